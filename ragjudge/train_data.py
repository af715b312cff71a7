"""Labeled pairs for ``ragjudge train``: reading both input formats, hashing, splitting, weighting.

Two JSON-lines formats are accepted, detected per line:

- NLI: ``{"premise", "hypothesis", "label"}`` where ``label`` is ``entailment`` / ``neutral`` /
  ``contradiction`` / ``not_entailment`` (or 1 / 0), or a ``binary_label`` field (1 = entailment) that wins;
  ``source`` (optional) names the origin, for per-source weights.
- Faithfulness: ``{"contexts": [str], "answer", "label"}`` with ``label`` 1 = supported; the premise is the
  contexts joined by blank lines.

Every example becomes a binary (premise, hypothesis, label) with 1 = entailed / supported: neutral and
contradiction both mean "not supported", which is the question a faithfulness judge answers.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjudge.errors import DataError

__all__ = ["Example", "data_fingerprint", "read_examples", "split_examples", "weighted"]

_POSITIVE = {"entailment", "entailed", "supported", "1", "true"}
_NEGATIVE = {"neutral", "contradiction", "not_entailment", "non_entailment", "unsupported", "0", "false"}


@dataclass(frozen=True)
class Example:
    """One binary training pair: does ``premise`` support ``hypothesis`` (label 1) or not (0)?

    ``pair``: the same number on a positive and the hard negative made from it (:mod:`ragjudge.train_augment`),
    -1 for an example with no counterpart; ``--pair-loss`` ranks the two of a pair.
    """

    premise: str
    hypothesis: str
    label: int
    source: str = ""
    pair: int = -1


def read_examples(path: str | Path) -> list[Example]:
    """Every example of a JSON-lines file in either format; a bad line raises :class:`DataError`."""
    examples = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                examples.append(_example(_object(line, path, number), path, number))
    if not examples:
        raise DataError("no examples in the file", path=path)
    return examples


def _object(line: str, path: str | Path, number: int) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise DataError(f"not JSON: {error.msg}", path=path, line=number) from error
    if not isinstance(record, dict):
        raise DataError("expected a JSON object", path=path, line=number)
    return record


def _example(record: dict[str, Any], path: str | Path, number: int) -> Example:
    source = str(record.get("source", Path(path).stem))
    if "premise" in record and "hypothesis" in record:
        field = "binary_label" if "binary_label" in record else "label"
        premise, hypothesis = record["premise"], record["hypothesis"]
    elif "contexts" in record and "answer" in record:
        field = "label"
        contexts = record["contexts"]
        contexts = [contexts] if isinstance(contexts, str) else contexts
        if not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts):
            raise DataError("contexts must be a list of strings", path=path, line=number, field="contexts")
        premise, hypothesis = "\n\n".join(contexts), record["answer"]
    else:
        raise DataError("expected premise + hypothesis (NLI) or contexts + answer (faithfulness)",
                        path=path, line=number)
    if not isinstance(premise, str) or not isinstance(hypothesis, str):
        raise DataError("premise and hypothesis must be strings", path=path, line=number)
    return Example(premise, hypothesis, _label(record.get(field), path, number, field), source)


def _label(value: Any, path: str | Path, number: int, field: str) -> int:
    text = str(value).strip().lower()
    if isinstance(value, bool):
        text = str(int(value))
    if text in _POSITIVE:
        return 1
    if text in _NEGATIVE:
        return 0
    raise DataError(f"unknown label {value!r} (expected an NLI label or 1 / 0)",
                    path=path, line=number, field=field)


def data_fingerprint(paths: Iterable[str | Path]) -> dict[str, Any]:
    """sha256 of each file and of all of them in order: the training data's identity in the metadata."""
    files = []
    total = hashlib.sha256()
    for path in paths:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        total.update(digest.encode("ascii"))
        files.append({"path": str(path), "sha256": digest})
    return {"sha256": total.hexdigest(), "files": files}


def split_examples(examples: list[Example], val_size: int, seed: int) -> tuple[list[Example], list[Example]]:
    """A seeded shuffle, then ``(train, validation)`` with ``val_size`` examples held out."""
    order = list(examples)
    random.Random(seed).shuffle(order)
    val_size = min(val_size, len(order) // 2)
    return order[val_size:], order[:val_size]


def weighted(examples: list[Example], weights: Mapping[str, float], seed: int) -> list[Example]:
    """Resample by source: weight 2 repeats each example of that source twice, 0.5 keeps half (seeded)."""
    if not weights:
        return examples
    rng = random.Random(seed)
    out = []
    for example in examples:
        weight = weights.get(example.source, 1.0)
        copies = int(weight) + (1 if rng.random() < weight - int(weight) else 0)
        out.extend([example] * copies)
    return out
