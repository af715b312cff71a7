"""Thresholds chosen on calibration data, and the seeded stratified split that holds calibration data out.

A judge's score becomes a faithful / unfaithful prediction at a threshold (faithful when the score reaches
it). The threshold maximises balanced accuracy on calibration samples, which is the same as maximising
Youden's J (J = 2 * balanced accuracy - 1). It is never chosen on the samples it is then scored on.
"""

from __future__ import annotations

import numpy as np

from ragjudge.errors import DataError

__all__ = ["calibration_split", "choose_threshold"]


def _candidates(scores: np.ndarray) -> np.ndarray:
    """Midpoints between consecutive distinct scores, plus one below the lowest and one above the highest."""
    distinct = np.unique(scores)
    middle = (distinct[1:] + distinct[:-1]) / 2.0
    cuts: np.ndarray = np.r_[distinct[0] - 1.0, middle, distinct[-1] + 1.0]
    return cuts


def choose_threshold(labels: np.ndarray, scores: np.ndarray) -> float:
    """The threshold with the best balanced accuracy on (``labels``, ``scores``); the lowest such one on ties.

    Labels must hold both classes (1 faithful, 0 not). Candidates outside the score range predict one class
    for everything (balanced accuracy 0.5), so a useless judge gets a trivial threshold, not a lucky one.
    """
    labels = np.asarray(labels) == 1
    scores = np.asarray(scores, dtype=np.float64)
    if labels.all() or not labels.any():
        raise DataError("calibration data needs samples of both labels (faithful and unfaithful) "
                        "scored by the judge to choose a threshold")
    cuts = _candidates(scores)
    order = np.sort(scores[labels]), np.sort(scores[~labels])
    # Faithful predicted when score >= cut: recall of faithful = share of positives at or above the cut.
    tpr = 1.0 - np.searchsorted(order[0], cuts, side="left") / order[0].size
    tnr = np.searchsorted(order[1], cuts, side="left") / order[1].size
    best = int(np.argmax((tpr + tnr) / 2.0))
    return float(cuts[best])


def calibration_split(labels: np.ndarray, fraction: float, *, seed: int = 0) -> np.ndarray:
    """A boolean mask of calibration samples: ``fraction`` of each label class, drawn with ``seed``.

    Stratified so both parts keep the label balance; at least one sample of each class goes each way when the
    class has two or more samples.
    """
    if not 0.0 < fraction < 1.0:
        raise DataError(f"calibration split must be between 0 and 1, got {fraction}")
    labels = np.asarray(labels) >= 0.5
    rng = np.random.Generator(np.random.PCG64(seed))
    mask = np.zeros(labels.size, dtype=bool)
    for cls in (True, False):
        members = np.flatnonzero(labels == cls)
        if members.size == 0:
            continue
        take = int(round(fraction * members.size))
        if members.size >= 2:
            take = min(max(take, 1), members.size - 1)
        mask[rng.permutation(members)[:take]] = True
    return mask
