#!/usr/bin/env bash
# Fails, naming each line, when the code or the documentation cites an issue number or a date: comments and docs
# say why in product terms and cite rules (R24), history lives in git. An issue's item ("item 4") points nowhere
# either. The tests' code and names are held to the same; their recorded fixtures carry the providers' own dates.
set -euo pipefail
cd "$(dirname "$0")/.."
words="issue ?#?[0-9]|\bitems? [0-9]+\b"
status=0
if grep -rniIE "$words|20[0-9]{2}-[01][0-9]-[0-3][0-9]" Sources Public Templates docs README.md; then status=1; fi
if grep -rniIE "$words|20[0-9]{2}-[01][0-9]-[0-3][0-9]" Tests --include=*.swift --include=*.py --include=*.c --include=*.sh; then
    status=1
fi
if [ $status -ne 0 ]; then
    echo "check-history-words: issue numbers, items or dates above; say why in product terms instead" >&2
    exit 1
fi
echo "check-history-words: none in Sources Public Templates docs README.md Tests"
