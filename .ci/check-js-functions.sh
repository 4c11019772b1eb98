#!/usr/bin/env bash
# Every function in Public/js reads on one screen: none may run past 80 lines (declarations, expressions, arrows with
# a block, methods; from the header's line to the closing brace's). And no error is swallowed without a word: an
# empty `catch {}` or `.catch(() => {})` fails too (tell the user, or at least the console, what went wrong).
# Usage: check-js-functions.sh [--longest] [FILE…] (default: every Public/js/**/*.js; --longest also names each
# file's longest function).
set -euo pipefail
cd "$(dirname "$0")/.."
longest=
if [ "${1:-}" = --longest ]; then
  longest=1
  shift
fi
if [ "$#" -eq 0 ]; then
  mapfile -t files < <(find Public/js -name '*.js' | sort)
else
  files=("$@")
fi
LONGEST="$longest" exec python3 - "${files[@]}" <<'PYTHON'
import os
import re
import sys

LIMIT = 80
# After these a `/` starts a regular expression, not a division.
BEFORE_REGEX = {'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do',
                'else', 'yield', 'await'}
# `name (…) {` is a method or a function declaration unless the name is one of these.
NOT_FUNCTIONS = {'if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'typeof', 'await', 'new'}
MODIFIERS = {'async', 'static', 'get', 'set'}
WORD = re.compile(r'[A-Za-z_$][\w$]*')
NUMBER = re.compile(r'\d[\w.]*|\.\d[\w]*')


class ScanError(Exception):
    pass


def tokenize(text):
    """(kind, value, line) tokens; strings, template texts, regexes and comments are skipped as units."""
    tokens, braces, i, line, n = [], [], 0, 1, len(text)

    def template_text(i, line):
        # Inside a template literal: up to the closing backtick or a `${`.
        while i < n:
            c = text[i]
            if c == '\\':
                i += 2
                continue
            if c == '\n':
                line += 1
            if c == '`':
                return i + 1, line, False
            if c == '$' and text[i + 1:i + 2] == '{':
                return i + 2, line, True
            i += 1
        raise ScanError(f'unterminated template literal (line {line})')

    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
            i += 1
        elif c in ' \t\r':
            i += 1
        elif text.startswith('//', i):
            i = text.find('\n', i)
            i = n if i < 0 else i
        elif text.startswith('/*', i):
            end = text.find('*/', i + 2)
            if end < 0:
                raise ScanError(f'unterminated comment (line {line})')
            line += text.count('\n', i, end)
            i = end + 2
        elif c in '\'"':
            start_line, j = line, i + 1
            while j < n and text[j] != c:
                if text[j] == '\n':
                    raise ScanError(f'unterminated string (line {start_line})')
                j += 2 if text[j] == '\\' else 1
            tokens.append(('str', text[i:j + 1], start_line))
            i = j + 1
        elif c == '`':
            start_line = line
            i, line, opened = template_text(i + 1, line)
            tokens.append(('str', '`', start_line))
            if opened:
                braces.append('${')
        elif c == '}' and braces and braces[-1] == '${':
            braces.pop()
            tokens.append(('str', '`', line))
            i, line, opened = template_text(i + 1, line)
            if opened:
                braces.append('${')
        elif c == '/' and regex_allowed(tokens):
            start_line, j, in_class = line, i + 1, False
            while j < n:
                if text[j] == '\\':
                    j += 2
                    continue
                if text[j] == '\n':
                    raise ScanError(f'unterminated regular expression (line {start_line})')
                if text[j] == '[':
                    in_class = True
                elif text[j] == ']':
                    in_class = False
                elif text[j] == '/' and not in_class:
                    break
                j += 1
            j += 1
            while j < n and (text[j].isalnum()):
                j += 1
            tokens.append(('regex', text[i:j], start_line))
            i = j
        elif WORD.match(text, i):
            word = WORD.match(text, i).group()
            tokens.append(('word', word, line))
            i += len(word)
        elif NUMBER.match(text, i):
            i += len(NUMBER.match(text, i).group())
            tokens.append(('num', '0', line))
        else:
            for punct in ('=>', '...', '{', '}'):
                if text.startswith(punct, i):
                    break
            else:
                punct = c
            if punct == '{':
                braces.append('{')
            elif punct == '}':
                if not braces:
                    raise ScanError(f'unbalanced }} (line {line})')
                braces.pop()
            tokens.append(('punct', punct, line))
            i += len(punct)
    return tokens


def regex_allowed(tokens):
    if not tokens:
        return True
    kind, value, _ = tokens[-1]
    if kind == 'word':
        return value in BEFORE_REGEX
    if kind in ('num', 'str', 'regex'):
        return False
    return value not in (')', ']', '}')


def matches(tokens):
    """Index of the closing bracket for each opening one."""
    pairs, stack = {}, []
    for index, (kind, value, line) in enumerate(tokens):
        if kind != 'punct':
            continue
        if value in '([{':
            stack.append(index)
        elif value in ')]}':
            if not stack:
                raise ScanError(f'unbalanced {value} (line {line})')
            pairs[stack.pop()] = index
    if stack:
        raise ScanError(f'unclosed bracket (line {tokens[stack[-1]][2]})')
    return pairs


def opener_of(pairs):
    return {close: open_ for open_, close in pairs.items()}


def is_punct(tokens, index, value):
    return 0 <= index < len(tokens) and tokens[index][0] == 'punct' and tokens[index][1] == value


def is_word(tokens, index, value=None):
    return 0 <= index < len(tokens) and tokens[index][0] == 'word' and (value is None or tokens[index][1] == value)


def function_at(tokens, body, openers):
    """(header index, name) when the `{` at `body` opens a function's body, else None."""
    before = body - 1
    if is_punct(tokens, before, '=>'):
        params = before - 1
        start = openers.get(params, params)
        if is_word(tokens, start - 1, 'async'):
            start -= 1
        name = '<arrow>'
        if (is_punct(tokens, start - 1, '=') or is_punct(tokens, start - 1, ':')) and is_word(tokens, start - 2):
            name = tokens[start - 2][1]
        return start, name
    if not is_punct(tokens, before, ')'):
        return None
    start = openers[before] - 1
    if is_punct(tokens, start, '*'):
        start -= 1
    if not is_word(tokens, start) or tokens[start][1] in NOT_FUNCTIONS:
        return None
    name = tokens[start][1]
    if name == 'function':
        name = '<function>'
    elif is_word(tokens, start - 1, 'function'):
        start -= 1
    elif is_punct(tokens, start - 1, '*') and is_word(tokens, start - 2, 'function'):
        start -= 2
    while is_word(tokens, start - 1) and tokens[start - 1][1] in MODIFIERS | {'function'}:
        start -= 1
    return start, name


def empty_catches(tokens, pairs, bodies):
    """Lines of `catch {}` blocks and `.catch(…)` handlers whose body is empty."""
    for index, (kind, value, line) in enumerate(tokens):
        if kind != 'word' or value != 'catch':
            continue
        if is_punct(tokens, index - 1, '.') and is_punct(tokens, index + 1, '('):
            # The handler is the call's first argument: the first function body in it decides.
            inner, end = index + 2, pairs[index + 1]
            while inner < end and not is_punct(tokens, inner, ','):
                if inner in bodies:
                    if pairs[inner] == inner + 1:
                        yield line
                    break
                inner = pairs[inner] + 1 if inner in pairs and tokens[inner][1] in '([' else inner + 1
        else:
            block = index + 1
            if is_punct(tokens, block, '('):
                block = pairs[block] + 1
            if is_punct(tokens, block, '{') and pairs[block] == block + 1:
                yield line


def check(path):
    with open(path, encoding='utf-8') as source:
        tokens = tokenize(source.read())
    pairs = matches(tokens)
    openers = opener_of(pairs)
    problems, bodies, longest = [], set(), (0, '', 0)
    for index, (kind, value, line) in enumerate(tokens):
        if kind != 'punct' or value != '{':
            continue
        found = function_at(tokens, index, openers)
        if not found:
            continue
        bodies.add(index)
        start, name = found
        header_line = tokens[start][2]
        length = tokens[pairs[index]][2] - header_line + 1
        longest = max(longest, (length, name, header_line))
        if length > LIMIT:
            problems.append(f'{path}:{header_line} {name} {length} lines')
    problems += [f'{path}:{line} empty catch handler: tell the user or the console' for line in empty_catches(tokens, pairs, bodies)]
    if os.environ.get('LONGEST') and longest[0]:
        print(f'{path}:{longest[2]} longest: {longest[1]} {longest[0]} lines')
    return problems


failed = False
for path in sys.argv[1:]:
    try:
        problems = check(path)
    except ScanError as error:
        problems = [f'{path}: cannot scan: {error}']
    for problem in problems:
        print(problem)
        failed = True
if failed:
    print(f'check-js-functions: functions over {LIMIT} lines or errors swallowed silently above', file=sys.stderr)
    sys.exit(1)
print(f'check-js-functions: {len(sys.argv) - 1} files, every function at most {LIMIT} lines, no empty catch')
PYTHON
