"""Agreement statistics, computed under sample weights so one code path gives estimates and bootstraps.

Every statistic takes a weight matrix ``w`` of shape ``(B, n)``: row ``b`` holds how many times each of the
``n`` samples occurs in resample ``b`` (a row of ones is the data itself). A value with multiplicity ``k``
counts as ``k`` copies, so a row's statistic equals the statistic of the expanded resample: what scikit-learn
or scipy would report on ``x[idx]``. Undefined values (one class absent, a constant ranking) are NaN in these
arrays; the public report turns them into ``None``.

Conventions: label 1 is faithful, 0 unfaithful; a judge predicts faithful when its score reaches the
threshold; AUC-ROC ranks by score with ties counted one half (as ``roc_auc_score``); the F1 is the unfaithful
class's.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "auc_roc", "balanced_accuracy", "cohen_kappa", "f1_unfaithful", "ones", "roc_points", "spearman",
    "weighted_ranks",
]

_F = np.ndarray


def ones(n: int) -> _F:
    """The weight matrix of the data itself: one row of ones."""
    return np.ones((1, n), dtype=np.float64)


def _groups(values: _F) -> tuple[_F, _F]:
    """Sort order of ``values`` and the start of each run of equal values in that order."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    first = np.r_[True, sorted_values[1:] != sorted_values[:-1]] if values.size else np.zeros(0, bool)
    return order, np.flatnonzero(first)


def _sum_groups(w: _F, order: _F, starts: _F) -> _F:
    """Per-row total weight of every tie group (columns follow ``starts``)."""
    if starts.size == 0:
        return np.zeros((w.shape[0], 0))
    return np.add.reduceat(w[:, order], starts, axis=1)


def auc_roc(labels: _F, scores: _F, w: _F | None = None) -> _F:
    """AUC-ROC of ``scores`` for ``labels`` (1 positive) per weight row; NaN when a class is absent."""
    labels, scores = np.asarray(labels, np.float64), np.asarray(scores, np.float64)
    w = ones(labels.size) if w is None else w
    order, starts = _groups(scores)
    pos = _sum_groups(w * (labels == 1), order, starts)
    neg = _sum_groups(w * (labels == 0), order, starts)
    below = np.cumsum(neg, axis=1) - neg
    numerator = (pos * (below + 0.5 * neg)).sum(axis=1)
    denominator = pos.sum(axis=1) * neg.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def _confusion(labels: _F, predicted: _F, w: _F) -> tuple[_F, _F, _F, _F]:
    """Weighted (true faithful, false unfaithful, false faithful, true unfaithful) per row."""
    y, p = np.asarray(labels) == 1, np.asarray(predicted) == 1
    return w @ (y & p), w @ (y & ~p), w @ (~y & p), w @ (~y & ~p)


def balanced_accuracy(labels: _F, predicted: _F, w: _F | None = None) -> _F:
    """Mean recall over the classes present (scikit-learn's ``balanced_accuracy_score``)."""
    w = ones(len(labels)) if w is None else w
    tp, fn, fp, tn = _confusion(labels, predicted, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        recalls = np.stack([tp / (tp + fn), tn / (tn + fp)])
    present = np.isfinite(recalls)
    count = present.sum(axis=0)
    total = np.where(present, recalls, 0.0).sum(axis=0)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def f1_unfaithful(labels: _F, predicted: _F, w: _F | None = None) -> _F:
    """F1 of the unfaithful class (label 0); 0 when it is neither true nor predicted (scikit-learn's way)."""
    w = ones(len(labels)) if w is None else w
    _, fn, fp, tn = _confusion(labels, predicted, w)
    # Here the unfaithful class is positive: its true positives are ``tn``, its false positives ``fn``.
    denominator = 2 * tn + fn + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 2 * tn / denominator, 0.0)


def cohen_kappa(a: _F, b: _F, w: _F | None = None) -> _F:
    """Cohen's kappa of two binary raters; NaN when chance agreement is 1 (both raters constant)."""
    w = ones(len(a)) if w is None else w
    both, a_only, b_only, neither = _confusion(a, b, w)
    total = both + a_only + b_only + neither
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (both + neither) / total
        pa, pb = (both + a_only) / total, (both + b_only) / total
        chance = pa * pb + (1 - pa) * (1 - pb)
        return np.where(chance < 1, (observed - chance) / (1 - chance), np.nan)


def weighted_ranks(values: _F, w: _F) -> _F:
    """Average ranks (1-based, ties shared) each sample would have in each row's expanded resample."""
    order, starts = _groups(np.asarray(values, np.float64))
    group_w = _sum_groups(w, order, starts)
    group_rank = np.cumsum(group_w, axis=1) - group_w + (group_w + 1) / 2
    group_of = np.empty(len(values), dtype=np.int64)
    group_of[order] = np.cumsum(np.isin(np.arange(len(values)), starts)) - 1
    ranks: _F = group_rank[:, group_of]
    return ranks


def spearman(x: _F, y: _F, w: _F | None = None) -> _F:
    """Spearman's rank correlation per weight row; NaN when either side is constant."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    w = ones(x.size) if w is None else w
    rx, ry = weighted_ranks(x, w), weighted_ranks(y, w)
    total = w.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = rx - (w * rx).sum(axis=1, keepdims=True) / total
        dy = ry - (w * ry).sum(axis=1, keepdims=True) / total
        cov = (w * dx * dy).sum(axis=1)
        sx, sy = (w * dx * dx).sum(axis=1), (w * dy * dy).sum(axis=1)
        # Two distinct values give a sum of squares of at least 1/2; anything tiny is rounding on a constant.
        defined = (sx > 1e-6) & (sy > 1e-6)
        return np.where(defined, cov / np.sqrt(np.where(defined, sx * sy, 1.0)), np.nan)


def roc_points(labels: _F, scores: _F) -> tuple[_F, _F]:
    """False- and true-positive rates at every distinct threshold, from (0, 0) to (1, 1)."""
    labels, scores = np.asarray(labels, np.float64), np.asarray(scores, np.float64)
    order = np.argsort(-scores, kind="mergesort")
    s, y = scores[order], labels[order] == 1
    last = np.r_[s[1:] != s[:-1], True] if s.size else np.zeros(0, bool)
    tps, fps = np.cumsum(y)[last], np.cumsum(~y)[last]
    n_pos, n_neg = max(int(y.sum()), 1), max(int((~y).sum()), 1)
    return np.r_[0.0, fps / n_neg], np.r_[0.0, tps / n_pos]
