#!/usr/bin/env bash
# Fails, naming each one, when a relative link in README.md or docs/*.md points at no file, or its #anchor at no
# heading of the file it names (anchors as GitHub makes them from headings). Links with a scheme (https:, mailto:)
# are not followed: the check runs offline. Python's standard library only.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - README.md docs/*.md <<'PYTHON'
import os, re, sys, unicodedata

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(].*?[\"')])?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
HTML_LINK = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"""<a\b[^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation gone, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)                          # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.lower()
    kept = "".join(c for c in text if c.isalnum() or c in " -_" or unicodedata.category(c).startswith("M"))
    return kept.replace(" ", "-")


def lines_outside_code(path):
    """(line number, text) of every line outside fenced code blocks, inline code spans blanked."""
    inside = False
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line.rstrip("\n"))


anchors_of = {}


def anchors(path):
    if path not in anchors_of:
        found, seen = set(), {}
        for _, line in lines_outside_code(path):
            match = HEADING.match(line)
            if match:
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(HTML_ANCHOR.findall(line))
        anchors_of[path] = found
    return anchors_of[path]


def targets(line):
    for pattern in (INLINE_LINK, HTML_LINK):
        yield from pattern.findall(line)
    match = REFERENCE.match(line)
    if match:
        yield match.group(1)


broken = []
checked = 0
for source in sys.argv[1:]:
    for number, line in lines_outside_code(source):
        for target in targets(line):
            if SCHEME.match(target) or target.startswith("//"):
                continue
            checked += 1
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(source), path)) if path else source
            where = f"{source}:{number}: {target}"
            if not os.path.exists(resolved):
                broken.append(f"{where}: no file {resolved}")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                broken.append(f"{where}: no heading #{anchor} in {resolved}")

for line in broken:
    print(line, file=sys.stderr)
if broken:
    print(f"check-links: {len(broken)} of {checked} links broken", file=sys.stderr)
    sys.exit(1)
print(f"check-links: {checked} links in {len(sys.argv) - 1} files, all found")
PYTHON
