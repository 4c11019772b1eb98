# Sourced by Tests/run-all.sh: the processes a test run with tag $1 (MUSICVOTING_TEST_TAG) starts beside its test
# processes, one "what pid" line each. The tests end them all; the run checks that they did.
tagged_test_processes() {
    local tag=$1 pid
    # The tests' own PostgreSQL servers (Tests/TestSupport/PostgreSQLCluster.swift).
    for pid in $(pgrep -u postgres -f "postgres -D /tmp/mv-pg-$tag-"); do echo "PostgreSQL $pid"; done
    # The metrics tests' Prometheus (Tests/EndToEndTests/PrometheusProcess.swift).
    for pid in $(pgrep -f "prometheus --config.file=/tmp/mv-prometheus-$tag-"); do echo "Prometheus $pid"; done
    # The cluster tests' nginx (Tests/PartyTestSupport/NginxProcess.swift).
    for pid in $(pgrep -f "nginx.*-p /tmp/mv-nginx-$tag-"); do echo "nginx $pid"; done
    # The servers: the binary carries the tag in its environment.
    for pid in $(pgrep -x musicvoting); do
        if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "MUSICVOTING_TEST_TAG=$tag"; then echo "musicvoting $pid"; fi
    done
}

# What each "what pid" line of tagged_test_processes is: its command line, parent and age, and for a server the end of
# its log (the requests it served name the test).
describe_test_processes() {
    local what pid data
    while read -r what pid; do
        echo "  $what $pid: $(ps -o ppid=,etime= -p "$pid" 2>/dev/null | xargs echo parent/age) $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)"
        if [[ $what == musicvoting ]]; then
            data=$(tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | grep -A1 -x -- --data | tail -1)
            if [[ -n $data && -f $data.log ]]; then tail -5 "$data.log" | sed "s/^/    /"; fi
        fi
    done <<< "$1"
}
