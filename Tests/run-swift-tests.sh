#!/usr/bin/env bash
# The Swift tests, one suite per process, several processes at a time.
#
# Why not one `swift test`: most end-to-end tests block their thread on a socket or a child process, and one test
# process runs its tests on as many threads as the machine has cores. On two cores two waiting tests held the whole
# run while the CPU sat idle two thirds of the time. Each process here has its own threads, so the waits overlap.
#
# Usage: Tests/run-swift-tests.sh [processes]   (after `swift build --build-tests`; default: 4 processes)
# Every suite's output goes to $MUSICVOTING_TEST_LOGS (a temporary folder unless set); a failed suite's is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
processes=${1:-4}
bundle=.build/debug/MusicVotingPackageTests.xctest
logs=${MUSICVOTING_TEST_LOGS:-$(mktemp -d /tmp/mv-swift-tests.XXXXXX)}
mkdir -p "$logs"

# The suites that take longest start first, so none of them is left running alone at the end. The order only
# affects the time: a suite missing here still runs, after these.
first=(
    EndToEndTests.OriginalClientTests
    MusicVotingKitTests
    EndToEndTests.EventStreamTests
    EndToEndTests.IntegerFuzzTests
    EndToEndTests.StallTests
    EndToEndTests.ConnectionFloodAttackTests
    EndToEndTests.DeadTVTests
    EndToEndTests.PartyLifecycleTests
    EndToEndTests.PlaybackTests
    EndToEndTests.RequestHeadAttackTests
    ClusterTests.ClusterTests
    ClusterTests.InstanceKillTests
    ClusterTests.RollingReplacementTests
)
# Every suite: the part of a test's id before its first "/", the order above first.
all=$("$bundle" --testing-library swift-testing --list-tests 2>/dev/null | grep -v '^MusicVotingKitTests\.' | cut -d/ -f1 | sort -u)
# The kit's tests are one unit: its target, in a process of its own.
all=$(echo "$all"; echo MusicVotingKitTests)
suites=$( (printf '%s\n' "${first[@]}"; echo "$all") | awk 'NF && !seen[$0]++')
missing=$(printf '%s\n' "${first[@]}" | grep -vxF -f <(echo "$all") || true)
if [[ -n "$missing" ]]; then echo "run-swift-tests: no such suite: $missing" >&2; exit 1; fi

run_suite() {
    local suite=$1 log="$logs/$1.log" started=$SECONDS
    # A suite's id ends at its "/", so one suite's name never selects another whose name starts the same way.
    local filter="^${suite//./\\.}/"
    if [[ $suite == MusicVotingKitTests ]]; then filter='^MusicVotingKitTests\.'; fi
    # A suite that hangs fails after 10 minutes with what it printed, instead of holding the run until CI gives up
    # (the longest takes about a minute and a half on a loaded machine).
    local status=0
    timeout --kill-after=10 600 "$bundle" --testing-library swift-testing --filter "$filter" > "$log" 2>&1 || status=$?
    if [[ $status == 0 ]]; then
        echo "passed $suite ($((SECONDS - started)) s)"
    else
        # timeout answers 124 when it ended the suite (137 when it had to kill it).
        local stopped=""
        if [[ $status == 124 || $status == 137 ]]; then stopped=", stopped after 10 minutes"; fi
        # Past 128: ended by a signal (128 + its number), such as a crash or a write to a closed pipe.
        if [[ $status -gt 128 && $status != 137 ]]; then stopped=", ended by signal $(kill -l $((status - 128)) 2>/dev/null || echo $((status - 128)))"; fi
        echo "FAILED $suite ($((SECONDS - started)) s$stopped, exit status $status), why:"
        # The failures first (a suite's log can be long, and a record of it may keep only its head), then everything.
        grep -E '✘|recorded an issue|Fatal error|exited by itself' "$log" | head -40 | sed 's/^/    /'
        echo "  its output:"
        sed 's/^/    /' "$log"
        return 1
    fi
}
export -f run_suite
export bundle logs

# One PostgreSQL server for all the test processes, each test on a database of its own: an initdb and a server per
# process cost about 50 core-seconds a run. Tests that stop, pause or crash their server start their own.
postgres_bin=/usr/lib/postgresql/15/bin
postgres_folder=/tmp/mv-pg-${MUSICVOTING_TEST_TAG:+$MUSICVOTING_TEST_TAG-}runner$$
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_postgres() {
    if [[ -f $postgres_folder/db/postmaster.pid ]]; then
        as_postgres "$postgres_bin/pg_ctl" -D "$postgres_folder/db" -m immediate stop > /dev/null 2>&1 || true
    fi
    rm -rf "$postgres_folder"
}
mkdir "$postgres_folder"
trap stop_postgres EXIT
if [[ $(id -u) == 0 ]]; then chown postgres: "$postgres_folder"; fi
postgres_port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_postgres "$postgres_bin/initdb" -D "$postgres_folder/db" -U mv --auth=trust --no-locale -E UTF8 --nosync \
    > "$logs/postgres-initdb.log" 2>&1
as_postgres "$postgres_bin/pg_ctl" -D "$postgres_folder/db" -w -l "$postgres_folder/log" -o \
    "-F -k $postgres_folder -c listen_addresses=127.0.0.1 -p $postgres_port -c max_connections=1000" start > /dev/null
export MUSICVOTING_TEST_POSTGRES="$postgres_folder:$postgres_port"

count=$(echo "$suites" | wc -l)
echo "run-swift-tests: $count suites in $processes processes, logs in $logs"
# The test processes run in a process group of their own, so that a script ended early (a signal, a cancelled CI
# job) stops them all. Their PostgreSQL servers are stopped by the watchers the tests started (shells, spared here);
# the servers, nginx and Prometheus they started are found by this run's tag (Tests/test-processes.sh) and ended.
echo "$suites" | setsid -w xargs -P "$processes" -I{} bash -c 'run_suite "$@"' _ {} > "$logs/summary" 2>&1 &
group=$!
stop_early() {
    pkill -KILL -g "$group" -x xargs 2>/dev/null || true
    pkill -KILL -g "$group" -f "$bundle" 2>/dev/null || true
    [[ -n ${MUSICVOTING_TEST_TAG:-} ]] || return 0
    source Tests/test-processes.sh
    tagged_test_processes "$MUSICVOTING_TEST_TAG" | while read -r what pid; do
        if [[ $what != PostgreSQL ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
    done
}
trap 'if kill -0 "$group" 2>/dev/null; then stop_early; fi; stop_postgres' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
if wait "$group"; then status=0; else status=1; fi
grep -c '^passed' "$logs/summary" | sed 's/$/ suites passed/'
grep -A100000 '^FAILED' "$logs/summary" || true
# The longest suites, where the run's time goes.
grep -E '^(passed|FAILED) ' "$logs/summary" | sed -E 's/^[a-zA-Z]+ ([^ ]+) \(([0-9]+) s.*/\2 s \1/' | sort -rn | head -8 \
    | paste -sd, | sed 's/^/run-swift-tests: longest: /; s/,/, /g'
# The number of tests run, from each suite's own line, so a filter that selects nothing cannot pass unseen.
tests=$(grep -h 'Test run with' "$logs"/*.log | sed -E 's/.*Test run with ([0-9]+) test.*/\1/' | paste -sd+ | bc)
echo "run-swift-tests: $tests tests in $SECONDS s"
exit $status
