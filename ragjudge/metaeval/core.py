"""Meta-evaluation end to end: read labeled data, split off calibration, run every judge, compute the report.

:func:`meta_evaluate` returns a :class:`MetaEvaluation` whose ``report`` holds every number and nothing that
changes between runs (no paths, times or speeds: the data file is named by its base name and SHA-256), so the
same file, judges and seeds give the same report; wall-clock figures live apart in ``timing``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from ragjudge import __version__
from ragjudge.data import read_samples
from ragjudge.errors import DataError
from ragjudge.evaluate import assign_ids
from ragjudge.metaeval.analysis import Labels, judge_summary, pair_summary, pick_threshold
from ragjudge.metaeval.bootstrap import resample_weights
from ragjudge.metaeval.runner import JudgeRun, run_judge
from ragjudge.metaeval.specs import JudgeChoice, unique_labels
from ragjudge.metaeval.threshold import calibration_split
from ragjudge.records import Sample

__all__ = ["MetaEvaluation", "Settings", "file_identity", "labels_of", "meta_evaluate"]

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Settings:
    """How to meta-evaluate: metric, calibration (a file, else a split fraction), seed, bootstrap, batches."""

    metric: str = "faithfulness"
    calibrate_on: str | Path | None = None
    calibration_split: float = 0.3
    seed: int = 0
    resamples: int = 1000
    level: float = 0.95
    label_cut: float = 0.5
    batch_size: int = 256
    progress: bool | None = None


@dataclass
class MetaEvaluation:
    """The deterministic report, the timing apart, and what figures need (evaluation labels and runs)."""

    report: dict[str, Any]
    timing: dict[str, Any]
    labels: Labels
    runs: list[JudgeRun]
    thresholds: list[float | None]


def file_identity(path: str | Path) -> dict[str, str]:
    """A file's base name and SHA-256 (stable wherever the file is read from)."""
    path = Path(path)
    return {"name": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def labels_of(samples: Sequence[Sample], where: str | Path) -> np.ndarray:
    """The human labels of ``samples``; a sample without one is a :class:`DataError`."""
    missing = [i for i, s in enumerate(samples, start=1) if s.label is None]
    if missing:
        raise DataError(f"{len(missing)} sample(s) have no human 'label' (first: record {missing[0]}); "
                        "meta-evaluation needs one per sample", path=where, field="label")
    return np.array([float(s.label or 0.0) for s in samples])


def _calibration(data: list[Sample], labels: np.ndarray,
                 settings: Settings) -> tuple[list[Sample], np.ndarray, dict[str, Any]]:
    """Samples to score (data, then any calibration file), and the mask of calibration ones among them."""
    if settings.calibrate_on is not None:
        extra = read_samples(settings.calibrate_on)
        cal_labels = labels_of(extra, settings.calibrate_on)
        mask = np.r_[np.zeros(len(data), bool), np.ones(len(extra), bool)]
        info = {"source": "file", "file": file_identity(settings.calibrate_on), "n": len(extra)}
        return data + extra, np.r_[labels, cal_labels], {**info, "mask": mask}
    mask = calibration_split(labels, settings.calibration_split, seed=settings.seed)
    info = {"source": "split", "fraction": settings.calibration_split, "seed": settings.seed,
            "n": int(mask.sum())}
    return data, labels, {**info, "mask": mask}


def _judge_entry(run: JudgeRun, cal: JudgeRun, threshold: float | None, why: str | None,
                 estimates: dict[str, Any]) -> dict[str, Any]:
    usage = None if run.usage is None else run.usage.model_dump(exclude={"cached"})
    return {"judge": run.choice.judge.model_dump(), "fingerprint": run.fingerprint,
            "metric_options": run.metric_options, "threshold": threshold, "threshold_note": why,
            **run.counts(), "unscored_reasons": run.top_reasons(),
            "calibration": {k: v for k, v in cal.counts().items()},
            "stats": {k: v.to_dict() for k, v in estimates.items()}, "usage": usage}


def meta_evaluate(data_path: str | Path, choices: Sequence[JudgeChoice],
                  settings: Settings | None = None) -> MetaEvaluation:
    """Meta-evaluate every judge of ``choices`` on the labeled file ``data_path``."""
    settings = settings or Settings()
    if not choices:
        raise DataError("meta-evaluation needs at least one judge")
    data = assign_ids(read_samples(data_path))
    labels = labels_of(data, data_path)
    to_score, all_labels, cal = _calibration(data, labels, settings)
    mask = cal.pop("mask")
    full_runs = [run_judge(c, settings.metric, to_score, batch_size=settings.batch_size,
                           progress=settings.progress) for c in unique_labels(list(choices))]
    evaluation = np.flatnonzero(~mask)
    eval_labels = Labels(all_labels[evaluation], settings.label_cut)
    cal_labels = Labels(all_labels[mask], settings.label_cut)
    runs = [r.part(~mask) for r in full_runs]
    cal_runs = [r.part(mask) for r in full_runs]
    picked = [pick_threshold(cal_labels, r) for r in cal_runs]
    weights = resample_weights(evaluation.size, seed=settings.seed, resamples=settings.resamples)
    judges = {}
    for run, cal_run, (threshold, why) in zip(runs, cal_runs, picked, strict=True):
        est = judge_summary(eval_labels, run, threshold, weights, settings.level)
        judges[run.choice.label] = _judge_entry(run, cal_run, threshold, why, est)
    thresholds = [t for t, _ in picked]
    pairs = []
    for i, j in combinations(range(len(runs)), 2):
        found = pair_summary(runs[i], runs[j], (thresholds[i], thresholds[j]), weights, settings.level)
        pairs.append({"a": runs[i].choice.label, "b": runs[j].choice.label, "n": found.pop("n"),
                      **{k: v.to_dict() for k, v in found.items()}})
    report = {
        "schema_version": SCHEMA_VERSION, "ragjudge_version": __version__,
        "data": {**file_identity(data_path), "n": len(data)}, "metric": settings.metric,
        "labels": {"kind": "graded" if eval_labels.graded else "binary", "faithful_at": settings.label_cut},
        "calibration": cal,
        "evaluation": {"n": int(evaluation.size), "n_faithful": int(eval_labels.binary.sum()),
                       "n_unfaithful": int(evaluation.size - eval_labels.binary.sum())},
        "bootstrap": {"resamples": settings.resamples, "level": settings.level, "seed": settings.seed},
        "judges": judges, "pairs": pairs,
        "samples": _samples(data, labels, mask[:len(data)], full_runs),
    }
    timing = {r.choice.label: _timing(r) for r in full_runs}
    return MetaEvaluation(report, timing, eval_labels, runs, thresholds)


def _samples(data: list[Sample], labels: np.ndarray, cal: np.ndarray,
             runs: list[JudgeRun]) -> list[dict[str, Any]]:
    rows = []
    for i, sample in enumerate(data):
        scores = {r.choice.label: float(r.scores[i]) if np.isfinite(r.scores[i]) else None for r in runs}
        rows.append({"id": sample.id, "label": float(labels[i]),
                     "split": "calibration" if cal[i] else "evaluation", "scores": scores})
    return rows


def _timing(run: JudgeRun) -> dict[str, Any]:
    n = len(run.status)
    rate = n / run.seconds if run.seconds > 0 else None
    return {"samples": n, "seconds": run.seconds, "samples_per_second": rate}
