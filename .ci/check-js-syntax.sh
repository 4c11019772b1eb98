#!/usr/bin/env bash
# The pages run on TV and phone browsers from 2020 on (Chromium 69, Safari 12): no file in Public/js may use syntax
# they lack. esbuild lowers such syntax for an older target, so a file whose output changes with the target uses it.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS= read -r file; do
  current=$(esbuild --target=esnext --format=esm --log-level=error < "$file")
  older=$(esbuild --target=chrome69,safari12 --format=esm --log-level=error < "$file" 2>&1) || true
  if [ "$current" != "$older" ]; then
    echo "$file: syntax newer than Chromium 69 / Safari 12:" >&2
    diff <(echo "$current") <(echo "$older") | grep '^<' | head -5 >&2 || true
    status=1
  fi
done < <(find Public/js -name '*.js' | sort)
exit $status
