#!/usr/bin/env bash
# Every test: unit, store, the API contract in process (APIContractTests) and end-to-end (the real binary on
# 127.0.0.1, port 0), then the browser suite (Debian's chromium + chromium-driver over WebDriver, python3-selenium)
# against the same binary, and the checks of the binary as it is copied to another machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's end, in seconds since the start: where the run's time goes.
phase() { echo "run-all: $1 done after ${SECONDS} s"; }
# The documentation's links first: a broken one fails the run in a second, not after the build.
bash .ci/check-links.sh
bash .ci/check-history-words.sh
ulimit -n 65536 2>/dev/null || true
bash .ci/check-packages
bash .ci/check-js-syntax.sh
# Every page function fits on a screen (80 lines at most) and no error is swallowed by an empty catch.
bash .ci/check-js-functions.sh
# This run's tag: the servers its tests start carry it, so the leftover checks below see this run's only (another
# test run on the same machine is none of its business).
export MUSICVOTING_TEST_TAG="run$$"
# Without debug information: about a tenth off the build (docs/testing.md).
swift build --build-tests -Xswiftc -gnone
phase "debug build"
# The binary as it is copied to another machine, for the standalone checks: linked from this build's objects.
standalone=.build/standalone/musicvoting
bash Tests/link-standalone.sh "$standalone"
# axe-core for the accessibility checks: the script of the PyPI package pinned in .ci/pip-test.txt, installed once
# into .build/test-python (not the system; Debian's pip allows --target), never fetched by a test.
axe_marker=".build/test-python/$(grep -v '^#' .ci/pip-test.txt | sed 's/-/_/g; s/==/-/').dist-info"
if [[ ! -d "$axe_marker" ]]; then
    rm -rf .build/test-python
    /usr/bin/python3 -m pip install -q --root-user-action=ignore --no-deps --target .build/test-python -r .ci/pip-test.txt
fi
# The Swift suites and the browser suite run side by side. The Swift suites mostly wait (on sockets, child processes
# and the clock) and leave the cores three quarters idle; the browser suite is Chromium's CPU. Together they take
# about the time of the longer one. The Swift suites' output is printed when both are done.
logs=$(mktemp -d /tmp/mv-test-logs.XXXXXX)
# The tests' temporary files (servers' data folders and logs, browser profiles) in one folder of this run, open to
# all as /tmp is (PostgreSQL runs as its own user): removed after a green run, kept after a red one for its logs.
chmod 755 "$logs"
mkdir -m 1777 "$logs/tmp"
export TMPDIR=$logs/tmp
MUSICVOTING_TEST_LOGS=$logs/suites bash Tests/run-swift-tests.sh 4 > "$logs/swift" 2>&1 &
swift_tests=$!
# MusicVotingKit alone: its sources type-checked as one module with nothing but the toolchain's Foundation and
# Observation to import, so the kit cannot lean on a server module or a C library (the full build compiles it).
swiftc -typecheck -parse-as-library -swift-version 6 -module-name MusicVotingKit Sources/MusicVotingKit/*.swift \
    > "$logs/kit-alone" 2>&1 &
kit_alone=$!
end_of_run() {
    local code=$?
    kill "$swift_tests" "$kit_alone" 2>/dev/null || true
    if [[ $code == 0 ]]; then rm -rf "$logs"; else echo "run-all: the tests' logs and folders are kept in $logs"; fi
}
trap end_of_run EXIT
# Debian's python3 has python3-selenium and python3-pytest; a python3 earlier on PATH may not. Three browser tests at
# a time (python3-pytest-xdist): most of a browser test waits for a page, a stream or a TV's report.
status=0
MUSICVOTING_STANDALONE_BINARY=$standalone /usr/bin/python3 -m pytest -q -p no:cacheprovider -n 3 --dist load Tests/Browser Tests/Standalone \
    > "$logs/browser" 2>&1 || status=1
# A failure's reasons first (a record of the run may keep only its head, and a traceback is long), then everything.
if [[ $status != 0 ]]; then echo "browser or standalone tests failed, why:"; grep -E '^(E  |FAILED |ERROR )' "$logs/browser" | head -60; fi
cat "$logs/browser"
phase "browser and standalone tests"
wait "$swift_tests" || status=1
cat "$logs/swift"
phase "Swift tests"
if ! wait "$kit_alone"; then cat "$logs/kit-alone"; echo "MusicVotingKit does not build alone" >&2; status=1; fi
[[ $status == 0 ]] || exit 1
# Every PostgreSQL server, Prometheus, nginx and server binary the tests started ended with them. A process still
# ending is given 15 s (a test PostgreSQL's exit watcher looks once a second, then stops it); what runs after that
# was left running, and is named on standard output (a record of the run may keep only that) with what tells which
# test started it.
source Tests/test-processes.sh
for _ in $(seq 30); do
    left=$(tagged_test_processes "$MUSICVOTING_TEST_TAG")
    [[ -n "$left" ]] || break
    sleep 0.5
done
if [[ -n "$left" ]]; then
    echo "tests left running:"
    describe_test_processes "$left"
    exit 1
fi
