#!/usr/bin/env bash
# Every test: unit, store, the API contract in process (APIContractTests) and end-to-end (the real binary on
# 127.0.0.1, port 0), then the browser suite (Debian's chromium + chromium-driver over WebDriver, python3-selenium)
# against the same binary, and the checks of the standalone release binary.
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
# The release binary as it is copied to another machine (Swift runtime linked in, pages and assets inside) builds
# in the background, in a build folder of its own (SwiftPM builds one thing per folder at a time), on the cycles the
# debug build and the Swift tests leave idle: in a CPU cgroup of the lowest weight where the machine lets us make one
# (SwiftPM starts its compilers at the default niceness, so `nice` would not reach them), at equal weight elsewhere.
standalone=.build/standalone
mkdir -p .build
idle_group=/sys/fs/cgroup/cpu/musicvoting-$MUSICVOTING_TEST_TAG
(
    if mkdir "$idle_group" 2>/dev/null && echo 2 > "$idle_group/cpu.shares" && echo "$BASHPID" > "$idle_group/cgroup.procs"; then
        echo "the release build runs in $idle_group (cpu.shares 2)"
    fi
    exec swift build -c release --static-swift-stdlib --scratch-path "$standalone"
) > "$standalone.log" 2>&1 &
standalone_build=$!
trap 'kill "$standalone_build" 2>/dev/null || true; rmdir "$idle_group" 2>/dev/null || true' EXIT
swift build --build-tests
phase "debug build"
# axe-core for the accessibility checks: the script of the PyPI package pinned in .ci/pip-test.txt, installed once
# into .build/test-python (not the system; Debian's pip allows --target), never fetched by a test.
axe_marker=".build/test-python/$(grep -v '^#' .ci/pip-test.txt | sed 's/-/_/g; s/==/-/').dist-info"
if [[ ! -d "$axe_marker" ]]; then
    rm -rf .build/test-python
    /usr/bin/python3 -m pip install -q --root-user-action=ignore --no-deps --target .build/test-python -r .ci/pip-test.txt
fi
# The kit's tests are async and wait on the cooperative thread pool (two threads on two cores); the end-to-end
# tests block their threads on sockets. Run together, a kit test's 15 s wait was starved for over a minute:
# the kit runs on its own, after the rest.
swift test --skip-build --skip MusicVotingKitTests
phase "Swift tests"
swift test --skip-build --filter MusicVotingKitTests
phase "kit tests"
# Every PostgreSQL server, Prometheus, nginx and server binary the tests started ended with them.
sleep 2
source Tests/test-processes.sh
left=$(tagged_test_processes "$MUSICVOTING_TEST_TAG")
if [[ -n "$left" ]]; then echo "tests left running:" $left >&2; exit 1; fi
# MusicVotingKit alone: its sources in a package of their own, with nothing but Foundation and
# Observation to link against, so the kit cannot lean on a server module or a C library.
kit_package=$(mktemp -d)
mkdir -p "$kit_package/Sources/MusicVotingKit"
cp Sources/MusicVotingKit/*.swift "$kit_package/Sources/MusicVotingKit/"
cat > "$kit_package/Package.swift" <<'PACKAGE'
// swift-tools-version:6.0
import PackageDescription
let package = Package(name: "KitAlone", platforms: [.macOS(.v14), .iOS(.v17)],
                      products: [.library(name: "MusicVotingKit", targets: ["MusicVotingKit"])],
                      targets: [.target(name: "MusicVotingKit")])
PACKAGE
swift build --package-path "$kit_package" --product MusicVotingKit
rm -rf "$kit_package"
if ! wait "$standalone_build"; then tail -50 "$standalone.log" >&2; echo "the release build failed" >&2; exit 1; fi
phase "release build"
# Debian's python3 has python3-selenium and python3-pytest; a python3 earlier on PATH may not. Two browser tests at a
# time (python3-pytest-xdist): most of a browser test waits for a page, a stream or a TV's report.
MUSICVOTING_RELEASE_BINARY=$standalone/release/musicvoting /usr/bin/python3 -m pytest -q -p no:cacheprovider -n 2 --dist load Tests/Browser Tests/Standalone
phase "browser and standalone tests"
