"""Reading a `packsmith bench run` journal (journal.jsonl), for the bench scripts.

A run appends one record per pair as it ends; a rerun of a pair appends again,
so a pair's outcome is its last record.
"""

import json
import os
import sys


def read_jsonl(path):
    """Every record of a JSON-lines file; blank lines skipped."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def journal_path(run, tool):
    """The run's journal, or exit naming it and what to pass instead."""
    path = os.path.join(run, "journal.jsonl")
    if not os.path.isfile(path):
        sys.exit(f"{tool}: no journal at {path} (hint: pass a `packsmith bench run --out` directory)")
    return path


def pair_records(run, tool):
    """The run's pair records, in the order they were written."""
    return [r for r in read_jsonl(journal_path(run, tool)) if r.get("record") == "pair"]


def last_pairs(run, tool):
    """The run's pairs by (task, configuration), the last record of a rerun counting."""
    return {(r["task"], r["config"]): r for r in pair_records(run, tool)}
