"""Fixtures for the retrieval tests: trec_eval's own test files in ../shared/data/trec_eval.

They live beside the repository (never inside it). When they are missing the tests that need them are skipped
with a message saying where they were looked for, except in CI (``CI`` set), where that is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TREC_EVAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trec_eval"


def trec_file(name: str) -> Path:
    """A file of trec_eval's test folder, or a skip (a failure in CI) saying where it was looked for."""
    path = TREC_EVAL / name
    if not path.exists():
        message = f"trec_eval fixture {name} not found at {path}: the tests need ../shared/data beside the repo"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def reference_lines(name: str) -> list[tuple[str, str, str]]:
    """(measure, topic, value) of every line of a trec_eval output file."""
    rows = []
    for line in trec_file(name).read_text().splitlines():
        measure, topic, value = line.split("\t")
        rows.append((measure.strip(), topic, value))
    return rows
