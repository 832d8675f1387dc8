#!/usr/bin/env python3
"""usage: scripts/comment-share.py TREE [BASE TIP]

The share of comment lines in DAMON's non-test C: lines that hold only a
comment, over lines that hold a comment or code (blank lines do not
count).  Files: mm/damon/*.[ch] without mm/damon/tests/,
include/linux/damon.h and include/trace/events/damon.h.

With TREE alone (any directory, such as an unpacked mainline tree): over
every line of those files.  With BASE and TIP (TREE a git repository,
such as build/linux with tag base and branch series): over the lines that
the net change BASE..TIP adds to those files, each classified in the TIP
version of its file, so that a line added inside a comment block counts
as comment even if it holds no comment marker.

Prints one line: "<comment> comment / <total> lines = <share>%".
"""
import os
import re
import subprocess
import sys

PATHS = ['mm/damon', 'include/linux/damon.h', 'include/trace/events/damon.h']


def classify(text):
    """For each line of C source text: 'comment', 'code' or None (blank)."""
    kinds = []
    in_block = False
    for line in text.split('\n'):
        code = comment = False
        i, n = 0, len(line)
        quote = None
        while i < n:
            c = line[i]
            if in_block:
                comment = True
                end = line.find('*/', i)
                if end < 0:
                    i = n
                else:
                    in_block = False
                    i = end + 2
                continue
            if quote:
                if c == '\\':
                    i += 2
                    continue
                if c == quote:
                    quote = None
                i += 1
                continue
            if line.startswith('/*', i):
                in_block = True
                comment = True
                i += 2
                continue
            if line.startswith('//', i):
                comment = True
                break
            if c in '"\'':
                quote = c
                code = True
            elif not c.isspace():
                code = True
            i += 1
        kinds.append('code' if code else 'comment' if comment else None)
    return kinds


def wanted(path):
    if path.startswith('mm/damon/tests/'):
        return False
    if path.startswith('mm/damon/'):
        return path.endswith(('.c', '.h'))
    return path in PATHS


def count(kinds, lines=None):
    sel = kinds if lines is None else [kinds[i - 1] for i in lines
                                       if i - 1 < len(kinds)]
    return sel.count('comment'), sel.count('comment') + sel.count('code')


def whole_tree(tree):
    com = tot = 0
    for p in PATHS:
        full = os.path.join(tree, p)
        files = ([os.path.join(d, f) for d, _, fs in os.walk(full) for f in fs]
                 if os.path.isdir(full) else [full])
        for f in sorted(files):
            rel = os.path.relpath(f, tree)
            if wanted(rel):
                c, t = count(classify(open(f, encoding='utf-8').read()))
                com, tot = com + c, tot + t
    return com, tot


def git(tree, *args):
    return subprocess.run(['git', '-C', tree] + list(args), check=True,
                          capture_output=True, text=True).stdout


def added(tree, base, tip):
    com = tot = 0
    names = git(tree, 'diff', '--name-only', '--diff-filter=AM', base, tip,
                '--', *PATHS).split()
    for name in names:
        if not wanted(name):
            continue
        diff = git(tree, 'diff', '-U0', base, tip, '--', name)
        lines = []
        for m in re.finditer(r'^@@ -\S+ \+(\d+)(?:,(\d+))? @@', diff, re.M):
            start, nr = int(m.group(1)), int(m.group(2) or 1)
            lines.extend(range(start, start + nr))
        kinds = classify(git(tree, 'show', '%s:%s' % (tip, name)))
        c, t = count(kinds, lines)
        com, tot = com + c, tot + t
    return com, tot


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    com, tot = (whole_tree(sys.argv[1]) if len(sys.argv) == 2 else
                added(*sys.argv[1:]))
    print('%d comment / %d lines = %.1f%%' % (com, tot,
                                             100.0 * com / max(tot, 1)))


if __name__ == '__main__':
    main()
