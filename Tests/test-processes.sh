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
