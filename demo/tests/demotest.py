# SPDX-License-Identifier: GPL-2.0
"""Shared by the host-side tests of demo/ (test_demo_*.py): the paths, the
record they draw, and demo/attr-demo.py loaded as a module."""
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
for d in (os.path.join(REPO, 'guest'), os.path.join(REPO, 'demo')):
    if d not in sys.path:
        sys.path.insert(0, d)

import damon_probes as dp  # noqa: E402

# the record of a real `make run` (build/demo/record.json, copied here)
RECORD = os.path.join(HERE, 'record.json')


def record_path():
    """The record to test with."""
    return RECORD


def load_record():
    """The record of record_path(), as JSON."""
    with open(record_path()) as f:
        return json.load(f)


def attr_demo():
    """demo/attr-demo.py as a module (its main() does not run)."""
    spec = importlib.util.spec_from_file_location(
        'attr_demo', os.path.join(REPO, 'demo', 'attr-demo.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def windows_of(rec):
    """A record's windows as trace_windows() returns them, and the truths
    as kpage_scan() does (in the record's probe order), for attr-demo's
    functions."""
    keys = rec['probe_keys']
    wins = [[dp.TraceRegion(0, s, e, acc, 0, hits, len(win))
             for s, e, acc, hits, _ in win] for win in rec['regions']]
    truths = [dict(zip(keys, t)) for win in rec['regions']
              for _, _, _, _, t in win]
    return wins, truths, keys
