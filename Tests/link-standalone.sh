#!/usr/bin/env bash
# The binary as it is copied to another machine (the Swift runtime and Foundation linked in, pages and assets
# inside), made from the test build's own object files: SwiftPM's link command for `musicvoting`, from the build's
# manifest, with the Swift libraries taken statically. The same code the other tests ran, without a second compile
# of the package (`swift build -c release --static-swift-stdlib` makes the binary a release installs; it compiles
# everything again, minutes on two cores).
#
# Usage: Tests/link-standalone.sh OUTPUT   (after `swift build --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/.."
output=$1
mkdir -p "$(dirname "$output")"
/usr/bin/python3 - "$output" <<'PYTHON'
import json, subprocess, sys

# SwiftPM writes each command of the build into its manifest, one JSON array of arguments a line.
link = None
with open(".build/debug.yaml") as manifest:
    for line in manifest:
        line = line.strip()
        if line.startswith("args: [") and '"-emit-executable"' in line and '"-module-name","musicvoting"' in line:
            link = json.loads(line[len("args: "):])
if link is None:
    sys.exit("link-standalone: no link command for musicvoting in .build/debug.yaml")
link[link.index("-o") + 1] = sys.argv[1]
link.insert(link.index("-emit-executable"), "-static-stdlib")
# Without the build's debug information: a release's size, and less to copy and package.
link += ["-Xlinker", "--strip-debug"]
# Compiled for dynamic linking, the objects name Foundation's libraries but not what its static archives need in
# turn (SwiftPM's static build names those through the objects it compiles for it).
link += ["-lFoundationNetworking", "-l_CFURLSessionInterface", "-lFoundation", "-lFoundationInternationalization",
         "-lFoundationEssentials", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims",
         "-l_FoundationCollections", "-lswiftSynchronization", "-lcurl", "-lstdc++"]
result = subprocess.run(link, capture_output=True, text=True)
if result.returncode != 0:
    sys.exit("link-standalone: the link failed:\n" + result.stderr[-4000:])
PYTHON
