"""Figures (PNG, matplotlib from the ``plots`` extra): ROC curves, judge agreement, end-to-end heatmap.

Matplotlib is imported inside each function, and only its object API is used (no pyplot, no global backend
switch), so importing this module costs nothing and drawing never disturbs a user's own figures.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragjudge.errors import MissingDependencyError
from ragjudge.metaeval.stats import roc_points

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["agreement_matrix", "plot_agreement", "plot_end_to_end", "plot_roc"]


def _figure(width: float, height: float) -> Figure:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError("figures", "plots", "matplotlib") from None
    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: str | Path) -> Path:
    path = Path(path)
    fig.savefig(path, format="png", metadata={"Software": None})
    return path


def plot_roc(curves: dict[str, tuple[np.ndarray, np.ndarray]], aucs: dict[str, float | None], title: str,
             path: str | Path) -> Path:
    """One ROC curve per judge (``{label: (labels, scores)}``), AUC in the legend, chance as a diagonal."""
    fig = _figure(6.0, 5.2)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="chance (AUC 0.5)")
    for label, (truth, scores) in curves.items():
        fpr, tpr = roc_points(truth, scores)
        auc = aucs.get(label)
        ax.plot(fpr, tpr, linewidth=1.8, label=f"{label} (AUC {'-' if auc is None else f'{auc:.3f}'})")
    ax.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="false-positive rate (unfaithful judged faithful)",
           ylabel="true-positive rate (faithful judged faithful)", title=title)
    ax.legend(loc="lower right", fontsize=8)
    return _save(fig, path)


def agreement_matrix(report: dict[str, Any], stat: str) -> tuple[list[str], list[str], np.ndarray]:
    """Rows ``human labels`` then judges, columns judges; cells the statistic (NaN when undefined)."""
    judges = list(report["judges"])
    matrix = np.full((len(judges) + 1, len(judges)), np.nan)
    for j, label in enumerate(judges):
        matrix[0, j] = _value(report["judges"][label]["stats"][stat])
        matrix[j + 1, j] = 1.0
    for pair in report["pairs"]:
        i, j = judges.index(pair["a"]), judges.index(pair["b"])
        matrix[i + 1, j] = matrix[j + 1, i] = _value(pair[stat])
    return ["human labels", *judges], judges, matrix


def _value(est: dict[str, Any]) -> float:
    return np.nan if est["value"] is None else float(est["value"])


def _heatmap(ax: Axes, fig: Figure, matrix: np.ndarray, rows: list[str], cols: list[str], cmap: str,
             limits: tuple[float, float], bar_label: str) -> None:
    image = ax.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=limits[0], vmax=limits[1], aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for (i, j), value in np.ndenumerate(matrix):
        text = "n/a" if np.isnan(value) else f"{value:.2f}"
        ax.text(j, i, text, ha="center", va="center", fontsize=9)
    fig.colorbar(image, ax=ax, label=bar_label)


def plot_agreement(report: dict[str, Any], path: str | Path) -> Path:
    """Two heatmaps side by side: Cohen's kappa and Spearman, human labels as the first row."""
    judges = list(report["judges"])
    fig = _figure(4.0 + 2.4 * len(judges), 1.6 + 0.55 * len(judges))
    panels = (("cohen_kappa", "Cohen's kappa (at calibrated thresholds)", "Cohen's kappa"),
              ("spearman", "Spearman rank correlation of scores", "Spearman's rho"))
    for k, (stat, title, bar) in enumerate(panels):
        rows, cols, matrix = agreement_matrix(report, stat)
        ax = fig.add_subplot(1, 2, k + 1)
        _heatmap(ax, fig, matrix, rows, cols, "RdBu", (-1.0, 1.0), bar)
        ax.set(title=title, xlabel="judge", ylabel="rater")
    fig.suptitle(f"Agreement on {report['data']['name']} ({report['evaluation']['n']} evaluation samples)")
    return _save(fig, path)


def plot_end_to_end(grid: np.ndarray, counts: np.ndarray, edges: np.ndarray, names: tuple[str, str, str],
                    path: str | Path) -> Path:
    """The article's heatmap: retrieval quality (rows, high at top) x generation quality (columns)."""
    retrieval, generation, value = names
    fig = _figure(6.4, 5.4)
    ax = fig.add_subplot()
    ticks = [f"{edges[i]:.2f}-{edges[i + 1]:.2f}" for i in range(len(edges) - 1)]
    image = ax.imshow(np.ma.masked_invalid(grid[::-1]), cmap="RdYlGn", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(ticks)), ticks)
    ax.set_yticks(range(len(ticks)), ticks[::-1])
    for (i, j), cell in np.ndenumerate(grid[::-1]):
        n = int(counts[::-1][i, j])
        ax.text(j, i, "n=0" if n == 0 else f"{cell:.2f}\nn={n}", ha="center", va="center", fontsize=9)
    fig.colorbar(image, ax=ax, label=f"mean {value}")
    ax.set(xlabel=f"generation quality ({generation})", ylabel=f"retrieval quality ({retrieval})",
           title=f"End-to-end quality: mean {value} per cell")
    return _save(fig, path)
