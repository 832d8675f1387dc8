#!/usr/bin/env python3
"""usage: scripts/series-rewrites.py [TREE [BASE [TIP]]]

How much of the series rewrites itself: for every patch of BASE..TIP
(default build/linux, base..series), the removed lines that an earlier
patch of the series added (git blame of the patch's parent on the
removed lines; lines of the base do not count).  Prints one row per patch
that removes such lines (number, count, the earlier patches and the
subject) and the total, e.g. to quote in the cover letter.
"""
import collections
import os
import re
import subprocess
import sys


def git(tree, *args):
    return subprocess.run(['git', '-C', tree] + list(args), check=True,
                          capture_output=True, text=True).stdout


def removed_ranges(tree, commit):
    """(path, start, count) of the removed line ranges, in the parent."""
    out = git(tree, 'diff', '-U0', '--no-renames', commit + '^', commit)
    path = None
    for line in out.splitlines():
        if line.startswith('--- '):
            path = None if line == '--- /dev/null' else line[6:]
        m = re.match(r'^@@ -(\d+)(?:,(\d+))? \+', line)
        if m and path:
            start, count = int(m.group(1)), int(m.group(2) or 1)
            if count:
                yield path, start, count


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    tree = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', 'build', 'linux')
    base = sys.argv[2] if len(sys.argv) > 2 else 'base'
    tip = sys.argv[3] if len(sys.argv) > 3 else 'series'
    commits = git(tree, 'rev-list', '--reverse', base + '..' + tip).split()
    number = {c: i + 1 for i, c in enumerate(commits)}
    total = 0
    for c in commits:
        by = collections.Counter()
        for path, start, count in removed_ranges(tree, c):
            blame = git(tree, 'blame', '--porcelain', '-L',
                        '%d,+%d' % (start, count), c + '^', '--', path)
            for line in blame.splitlines():
                m = re.match(r'^([0-9a-f]{40}) \d+ \d+', line)
                if m and m.group(1) in number:
                    by[number[m.group(1)]] += 1
        n = sum(by.values())
        if n:
            subject = git(tree, 'log', '-1', '--format=%s', c).strip()
            print('%3d %5d  from %s  %s' % (number[c], n,
                  ','.join(str(k) for k in sorted(by)), subject))
        total += n
    print('total: %d removed lines that an earlier patch of the series added '
          '(%d patches)' % (total, len(commits)))


if __name__ == '__main__':
    main()
