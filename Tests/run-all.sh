#!/usr/bin/env bash
# Every test: unit, store and end-to-end (the real binary on 127.0.0.1, port 0).
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 65536 2>/dev/null || true
swift build --build-tests
swift test --skip-build
