#!/usr/bin/env bash
# Fails, naming each line, when the code or the documentation cites an issue number or a date: comments and docs
# say why in product terms and cite rules (R24), history lives in git.
set -euo pipefail
cd "$(dirname "$0")/.."
if grep -rniIE "issue ?#?[0-9]|20[0-9]{2}-[01][0-9]-[0-3][0-9]" Sources Public Templates docs README.md; then
    echo "check-history-words: issue numbers or dates above; say why in product terms instead" >&2
    exit 1
fi
echo "check-history-words: none in Sources Public Templates docs README.md"
