"""Writing a meta-evaluation: ``report.json`` (every number), ``report.md`` (tables), ``timing.json``.

``report.json`` and ``report.md`` hold nothing that varies between runs, so the same data, judges and seeds
give the same bytes. Throughput varies with the machine and its load, so it goes to ``timing.json`` and to
the timing table that :func:`timing_markdown` renders (shown by the CLI and the benchmark, kept out of
``report.md``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["STAT_TITLES", "fmt_estimate", "report_markdown", "timing_markdown", "write_json"]

STAT_TITLES = {"auc_roc": "AUC-ROC", "balanced_accuracy": "bal. acc.", "f1_unfaithful": "F1 (unfaithful)",
               "cohen_kappa": "kappa", "spearman": "Spearman"}


def write_json(path: str | Path, document: dict[str, Any]) -> None:
    """Write ``document`` as indented JSON with a final newline (stable key order, no NaN)."""
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    Path(path).write_text(text + "\n", encoding="utf-8")


def fmt_estimate(est: dict[str, Any], digits: int = 3) -> str:
    """``0.812 [0.771, 0.850]``, or ``-`` when undefined."""
    if est["value"] is None:
        return "-"
    text = f"{est['value']:.{digits}f}"
    if est["ci95"] is not None:
        text += f" [{est['ci95'][0]:.{digits}f}, {est['ci95'][1]:.{digits}f}]"
    return text


def _usage(usage: dict[str, Any] | None) -> tuple[str, str]:
    if usage is None:
        return "-", "-"
    return f"{usage['input_tokens'] + usage['output_tokens']:,}", f"{usage['cost']:.4f}"


def _judge_rows(report: dict[str, Any]) -> list[str]:
    head = ["judge", "scored", "failed", "skipped", "threshold", *STAT_TITLES.values(), "tokens", "cost"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, entry in report["judges"].items():
        threshold = "-" if entry["threshold"] is None else f"{entry['threshold']:.3f}"
        tokens, cost = _usage(entry["usage"])
        counts = [str(entry[k]) for k in ("n_scored", "n_failed", "n_skipped")]
        estimates = [fmt_estimate(entry["stats"][name]) for name in STAT_TITLES]
        cells = [f"`{label}`", *counts, threshold, *estimates, tokens, cost]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _pair_rows(report: dict[str, Any]) -> list[str]:
    rows = ["| judge A | judge B | both scored | kappa | Spearman |", "|---|---|---|---|---|"]
    for pair in report["pairs"]:
        rows.append(f"| `{pair['a']}` | `{pair['b']}` | {pair['n']} | {fmt_estimate(pair['cohen_kappa'])} | "
                    f"{fmt_estimate(pair['spearman'])} |")
    return rows


def _unscored(report: dict[str, Any]) -> list[str]:
    lines = []
    for label, entry in report["judges"].items():
        for reason, count in entry["unscored_reasons"].items():
            lines.append(f"- `{label}`: {count} x {reason}")
        if entry["threshold_note"]:
            lines.append(f"- `{label}`: no threshold: {entry['threshold_note']}")
    return lines


def _setup(report: dict[str, Any]) -> str:
    cal, ev, boot = report["calibration"], report["evaluation"], report["bootstrap"]
    source = (f"a held-out {cal['fraction']:.0%} of the data (stratified, seed {cal['seed']})"
              if cal["source"] == "split" else f"`{cal['file']['name']}`")
    data = report["data"]
    return (f"Data `{data['name']}` ({data['n']} samples, {report['labels']['kind']} labels), "
            f"metric `{report['metric']}`. Thresholds chosen on {source} ({cal['n']} samples) by maximising "
            f"balanced accuracy; every statistic below is on the other {ev['n']} samples ({ev['n_faithful']} "
            f"faithful, {ev['n_unfaithful']} unfaithful) that each judge scored. Brackets: "
            f"{boot['level']:.0%} percentile bootstrap intervals ({boot['resamples']} resamples of samples, "
            f"seed {boot['seed']}).")


def report_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: setup, the judge-vs-human table, the judge-pair table, unscored samples."""
    parts = [f"# Judge meta-evaluation: {report['data']['name']}", "", _setup(report), "",
             "## Agreement with human labels", "", *_judge_rows(report), ""]
    if report["pairs"]:
        parts += ["## Agreement between judges", "", *_pair_rows(report), ""]
    unscored = _unscored(report)
    if unscored:
        parts += ["## Samples not scored (left out of that judge's statistics)", "", *unscored, ""]
    return "\n".join(parts)


def timing_markdown(timing: dict[str, Any]) -> str:
    """Throughput per judge (wall clock on this machine; varies run to run)."""
    rows = ["| judge | samples | seconds | samples/s |", "|---|---|---|---|"]
    for label, t in timing.items():
        rate = "-" if t["samples_per_second"] is None else f"{t['samples_per_second']:,.1f}"
        rows.append(f"| `{label}` | {t['samples']} | {t['seconds']:.2f} | {rate} |")
    return "\n".join(rows)
