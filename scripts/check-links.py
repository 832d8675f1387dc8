#!/usr/bin/env python3
"""usage: scripts/check-links.py [ROOT]

Check that every relative link of the Markdown files under ROOT (default:
the repository; build/ and .git/ excluded) names a file or directory that
exists, e.g. README links to patches/NNNN-*.patch after a renumbering, and
that an #anchor into a Markdown file (or into the same file) names one of
its headings, as GitHub makes anchors of them.  Absolute URLs are not
checked.  Prints each dead link as FILE:LINE: TARGET and ends with
"N passed, N failed" (one check per link); exits 1 if any link is dead.
"""
import functools
import os
import re
import sys

# [text](target) and [text](target "title"); <...> autolinks are URLs.
LINK = re.compile(r'\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
SKIP_DIRS = {'.git', 'build', 'node_modules'}


def links(path):
    in_code = False
    with open(path, encoding='utf-8') as f:
        for nr, line in enumerate(f, 1):
            if line.lstrip().startswith('```'):
                in_code = not in_code
                continue
            if in_code:
                continue
            # inline code spans are not links
            for m in LINK.finditer(re.sub(r'`[^`]*`', '``', line)):
                yield nr, m.group(1)


@functools.lru_cache(maxsize=None)
def anchors(path):
    """The anchors GitHub gives the headings of Markdown file path: lower
    case, punctuation but '-' and '_' dropped, spaces made '-', and '-N'
    appended to the Nth repetition of an anchor."""
    seen = {}
    out = set()
    in_code = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.lstrip().startswith('```'):
                in_code = not in_code
                continue
            m = None if in_code else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
            if not m:
                continue
            text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', m.group(1))
            slug = re.sub(r'[^\w\- ]', '', text.lower()).replace(' ', '-')
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else '%s-%d' % (slug, n))
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    ok = bad = 0
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for name in sorted(files):
            if not name.endswith('.md'):
                continue
            path = os.path.join(d, name)
            for nr, target in links(path):
                if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                    continue
                file_part, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(d, file_part))
                good = os.path.exists(dest)
                if good and anchor and dest.endswith('.md'):
                    good = anchor in anchors(dest)
                if good:
                    ok += 1
                else:
                    bad += 1
                    print('%s:%d: %s' % (os.path.relpath(path, root), nr, target))
    print('%d passed, %d failed' % (ok, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
