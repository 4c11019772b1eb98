#!/usr/bin/env bash
# Every test: unit, store and end-to-end (the real binary on 127.0.0.1, port 0), then the browser
# suite (Debian's chromium + chromium-driver over WebDriver, python3-selenium) against the same binary.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 65536 2>/dev/null || true
bash .ci/check-packages
swift build --build-tests
swift test --skip-build
# Debian's python3 has python3-selenium and python3-pytest; a python3 earlier on PATH may not.
/usr/bin/python3 -m pytest -q -p no:cacheprovider Tests/Browser
