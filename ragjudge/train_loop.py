"""The pieces of a training run that touch tensors: length-grouped batches, validation, saving the judge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ragjudge.judges.nli import METADATA_FILE
from ragjudge.judges.nli_runtime import import_torch
from ragjudge.train_data import Example

__all__ = ["Batches", "evaluate", "pair_loss", "save_judge", "update_metadata"]

_GROUP = 50  # batches per length-sorting group: enough to pad little, few enough to keep the order random


class Batches:
    """Examples tokenised once; per epoch a seeded order where examples of similar length share a batch."""

    def __init__(self, tokenizer: Any, examples: list[Example], max_length: int, batch_size: int,
                 seed: int, pairs: bool = False) -> None:
        self.examples = examples
        self.batch_size = batch_size
        self.seed = seed
        # What goes into a batch together: with ``pairs`` the two examples of a pair (Example.pair), for the
        # pair loss; without, each example alone, which gives the order of runs before pairs existed.
        self.pairs = pairs
        self.units = (_units(examples, batch_size) if pairs
                      else [np.array([i], dtype=np.int64) for i in range(len(examples))])
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        enc = tokenizer([e.premise for e in examples], [e.hypothesis for e in examples],
                        truncation=True, max_length=max_length)
        self.inputs = {k: list(enc[k]) for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc}
        self.lengths = np.array([len(ids) for ids in self.inputs["input_ids"]], dtype=np.int64)
        self.labels = np.array([e.label for e in examples], dtype=np.int64)

    def __len__(self) -> int:
        return (len(self.examples) + self.batch_size - 1) // self.batch_size

    def order(self, epoch: int) -> list[np.ndarray]:
        """The epoch's batches as index arrays, seeded: shuffle the units (a pair or a lone example), sort them
        by their longest member within groups, pack them into batches of at most ``batch_size``, shuffle the
        batches."""
        rng = np.random.default_rng([self.seed, epoch])
        units = [self.units[i] for i in rng.permutation(len(self.units))]
        longest = np.array([int(self.lengths[u].max()) for u in units], dtype=np.int64)
        batches: list[np.ndarray] = []
        per_group = self.batch_size * _GROUP
        start = 0
        while start < len(units):
            end, size = start, 0
            while end < len(units) and size < per_group:
                size += len(units[end])
                end += 1
            group = [units[start + i] for i in np.argsort(longest[start:end], kind="stable")]
            current: list[np.ndarray] = []
            filled = 0
            for unit in group:
                if current and filled + len(unit) > self.batch_size:
                    batches.append(np.concatenate(current))
                    current, filled = [], 0
                current.append(unit)
                filled += len(unit)
            if current:
                batches.append(np.concatenate(current))
            start = end
        return [batches[i] for i in rng.permutation(len(batches))]

    def epoch(self, epoch: int, skip: int = 0) -> Iterator[dict[str, Any]]:
        """Padded tensor batches (with ``labels``) of one epoch, skipping the first ``skip`` (resume)."""
        for rows in self.order(epoch)[skip:]:
            yield self.tensors(rows, with_labels=True)

    def in_order(self, size: int) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        """Length-sorted batches without labels, for evaluation."""
        order = np.argsort(self.lengths, kind="stable")
        for start in range(0, len(order), size):
            rows = order[start : start + size]
            yield rows, self.tensors(rows, with_labels=False)

    def tensors(self, rows: np.ndarray, *, with_labels: bool) -> dict[str, Any]:
        """The rows padded to their longest, as torch tensors."""
        torch, _ = import_torch()
        width = int(self.lengths[rows].max())
        out = {}
        for key, seqs in self.inputs.items():
            grid = np.full((len(rows), width), self.pad_id if key == "input_ids" else 0, dtype=np.int64)
            for r, row in enumerate(rows):
                grid[r, : len(seqs[row])] = seqs[row]
            out[key] = torch.from_numpy(grid)
        if with_labels:
            out["labels"] = torch.from_numpy(self.labels[rows])
            if self.pairs:
                out["pair_rows"] = torch.from_numpy(self._pair_rows(rows))
        return out

    def _pair_rows(self, rows: np.ndarray) -> np.ndarray:
        """(positive row, negative row) within the batch for each whole pair in it, shape (pairs, 2)."""
        found: dict[int, list[int]] = {}
        for r, row in enumerate(rows):
            pair = self.examples[row].pair
            if pair >= 0:
                found.setdefault(pair, [-1, -1])[1 - int(self.labels[row])] = r
        return np.array([rs for rs in found.values() if min(rs) >= 0], dtype=np.int64).reshape(-1, 2)


def _units(examples: list[Example], batch_size: int) -> list[np.ndarray]:
    """Index arrays of the examples that go into a batch together: each pair (with the copies ``--weight``
    made of it), and each lone example. A pair whose copies would not fit in one batch goes in as
    (positive, negative) couples instead, so no batch grows past ``batch_size``."""
    members: dict[int, list[int]] = {}
    units: list[list[int]] = []
    for index, example in enumerate(examples):
        if example.pair < 0:
            units.append([index])
        elif example.pair in members:
            members[example.pair].append(index)
        else:
            members[example.pair] = [index]
            units.append(members[example.pair])
    fitted: list[list[int]] = []
    for unit in units:
        fitted.extend(_couples(unit, examples) if len(unit) > batch_size else [unit])
    return [np.array(unit, dtype=np.int64) for unit in fitted]


def _couples(unit: list[int], examples: list[Example]) -> list[list[int]]:
    """The copies of one pair as (positive, negative) couples; a copy left without a partner goes alone."""
    positives = [i for i in unit if examples[i].label == 1]
    negatives = [i for i in unit if examples[i].label != 1]
    couples = [list(c) for c in zip(positives, negatives, strict=False)]
    spare = positives[len(couples):] + negatives[len(couples):]
    return couples + [[i] for i in spare]


def pair_loss(logits: Any, pair_rows: Any) -> Any:
    """RankNet loss of the pairs: softplus(-(margin of the positive - margin of the negative)), where a margin
    is logit(entailment) - logit(not), averaged over the pairs; 0 for a batch with none."""
    torch, _ = import_torch()
    margin = logits[:, 1] - logits[:, 0]
    if len(pair_rows) == 0:
        return margin.sum() * 0.0
    gap = margin[pair_rows[:, 0]] - margin[pair_rows[:, 1]]
    return torch.nn.functional.softplus(-gap).mean()


def evaluate(model: Any, batches: Batches) -> dict[str, Any]:
    """Validation AUC-ROC, balanced accuracy at 0.5 and size, from P(entailment)."""
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    torch, _ = import_torch()
    model.eval()
    scores = np.zeros(len(batches.examples), dtype=np.float64)
    with torch.inference_mode():
        for rows, tensors in batches.in_order(64):
            scores[rows] = torch.softmax(model(**tensors).logits.float(), dim=-1)[:, 1].numpy()
    labels = batches.labels
    auc = float(roc_auc_score(labels, scores)) if len(set(labels.tolist())) == 2 else float("nan")
    balanced = float(balanced_accuracy_score(labels, scores >= 0.5)) if len(labels) else float("nan")
    return {"auc": round(auc, 4), "balanced_accuracy": round(balanced, 4), "n": int(len(labels))}


def save_judge(model: Any, tokenizer: Any, directory: Path, metadata: dict[str, Any]) -> None:
    """Save weights, tokenizer and ``ragjudge_nli.json``: a directory the ``nli`` judge loads as it is."""
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    (directory / METADATA_FILE).write_text(json.dumps(metadata, indent=1), encoding="utf-8")


def update_metadata(directory: Path, **extra: Any) -> dict[str, Any]:
    """Add ``extra`` to the saved metadata (how the run ended) and return it all."""
    path = directory / METADATA_FILE
    metadata: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    metadata.update(extra)
    if path.parent.is_dir():
        path.write_text(json.dumps(metadata, indent=1), encoding="utf-8")
    return metadata
