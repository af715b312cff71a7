"""Judge agreement with human labels on every faithfulness set in ../shared/data/faithfulness/.

For each set, meta-evaluates every available judge (overlap and tfidf always; nli with ``--nli-model PATH``;
llm with ``--llm-url URL``) with thresholds chosen on a held-out stratified part of the same set
(``--calibration-split``, default 0.3) or on another set (``--calibrate-on SET``; that set itself then falls
back to its own split). Writes ``benchmarks/results/agreement.md`` (the table), ``agreement.json`` (every
number but the per-sample rows), ``agreement_auc.png`` (AUC with intervals per set and judge), and per set
``agreement/<set>/`` with ``report.md``, ``roc.png`` and ``agreement.png``.

    python benchmarks/agreement.py                       # overlap and tfidf on all sets
    python benchmarks/agreement.py --nli-model runs/nli --llm-url http://127.0.0.1:8080/v1 --llm-model m
    python benchmarks/agreement.py --sets dialfact,wice_dev --calibrate-on cliff_val
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ragjudge.metaeval import Settings, meta_evaluate, parse_judge_spec
from ragjudge.metaeval.core import MetaEvaluation
from ragjudge.metaeval.outputs import write_figures
from ragjudge.metaeval.report import fmt_estimate, report_markdown, write_json
from ragjudge.metaeval.specs import JudgeChoice

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "faithfulness"
RESULTS = ROOT / "benchmarks" / "results"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", type=Path, default=DATA)
    p.add_argument("--sets", help="comma-separated set names (file stems); default all")
    p.add_argument("--calibration-split", type=float, default=0.3)
    p.add_argument("--calibrate-on", metavar="SET", help="choose thresholds on this set for every other set")
    p.add_argument("--nli-model", metavar="PATH", help="checkpoint directory for the nli judge")
    p.add_argument("--llm-url", metavar="URL", help="OpenAI-compatible server for the llm judge")
    p.add_argument("--llm-model", default="local", help="model name on that server")
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", type=Path, default=RESULTS)
    return p.parse_args(argv)


def judges(args: argparse.Namespace) -> list[JudgeChoice]:
    """Every judge this run can use."""
    specs = ["overlap", "tfidf"]
    if args.nli_model:
        specs.append(f"nli:model={args.nli_model},as=nli")
    if args.llm_url:
        specs.append(f"llm:base_url={args.llm_url},model={args.llm_model},as=llm")
    return [parse_judge_spec(s) for s in specs]


def data_sets(args: argparse.Namespace) -> list[Path]:
    """The sets to run, failing clearly when the shared data is absent."""
    if not args.data_dir.is_dir():
        sys.exit(f"no data at {args.data_dir}: the benchmark needs ../shared/data beside the repository")
    paths = sorted(args.data_dir.glob("*.jsonl"))
    if args.sets:
        wanted = set(args.sets.split(","))
        paths = [p for p in paths if p.stem in wanted]
    return paths


def run_set(path: Path, args: argparse.Namespace) -> MetaEvaluation:
    """Meta-evaluate every judge on one set and write its per-set outputs."""
    other = args.data_dir / f"{args.calibrate_on}.jsonl" if args.calibrate_on else None
    settings = Settings(calibrate_on=other if other is not None and other != path else None,
                        calibration_split=args.calibration_split, seed=args.seed, resamples=args.resamples)
    meta = meta_evaluate(path, judges(args), settings)
    out = args.output / "agreement" / path.stem
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(report_markdown(meta.report), encoding="utf-8")
    write_figures(meta, out)
    return meta


def table(metas: dict[str, MetaEvaluation]) -> list[str]:
    """One row per set and judge."""
    head = ["set", "eval n", "judge", "AUC-ROC", "bal. acc.", "F1 (unfaithful)", "kappa", "threshold",
            "failed+skipped", "samples/s"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, meta in metas.items():
        for label, entry in meta.report["judges"].items():
            stats = entry["stats"]
            threshold = "-" if entry["threshold"] is None else f"{entry['threshold']:.3f}"
            rate = meta.timing[label]["samples_per_second"]
            shown = [fmt_estimate(stats[k]) for k in ("auc_roc", "balanced_accuracy", "f1_unfaithful",
                                                       "cohen_kappa")]
            unscored = str(entry["n_failed"] + entry["n_skipped"])
            cells = [name, str(meta.report["evaluation"]["n"]), f"`{label}`", *shown, threshold, unscored,
                     "-" if rate is None else f"{rate:,.0f}"]
            rows.append("| " + " | ".join(cells) + " |")
    return rows


def pair_table(metas: dict[str, MetaEvaluation]) -> list[str]:
    """Judge-pair agreement per set."""
    rows = ["| set | judges | kappa | Spearman |", "|---|---|---|---|"]
    for name, meta in metas.items():
        for pair in meta.report["pairs"]:
            rows.append(f"| {name} | `{pair['a']}` vs `{pair['b']}` | {fmt_estimate(pair['cohen_kappa'])} | "
                        f"{fmt_estimate(pair['spearman'])} |")
    return rows


def auc_figure(metas: dict[str, MetaEvaluation], path: Path) -> None:
    """AUC-ROC with its interval, per set (x) and judge (marker)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 4.8), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    labels = list(next(iter(metas.values())).report["judges"])
    for k, label in enumerate(labels):
        xs, ys, lo, hi = [], [], [], []
        for i, meta in enumerate(metas.values()):
            est = meta.report["judges"][label]["stats"]["auc_roc"]
            if est["value"] is not None and est["ci95"] is not None:
                xs.append(i + (k - (len(labels) - 1) / 2) * 0.15)
                ys.append(est["value"])
                lo.append(est["value"] - est["ci95"][0])
                hi.append(est["ci95"][1] - est["value"])
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, label=label)
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1, label="chance")
    ax.set_xticks(range(len(metas)), list(metas), rotation=25, ha="right")
    ax.set(ylabel="AUC-ROC vs human labels (95% bootstrap CI)", xlabel="data set", ylim=(0.3, 1.0),
           title="Judge agreement with human faithfulness labels, per set")
    ax.legend(fontsize=8)
    fig.savefig(path, format="png", metadata={"Software": None})


def main(argv: list[str] | None = None) -> int:
    """Run every set, write the table, the JSON and the figures."""
    args = parse_args(argv)
    metas = {path.stem: run_set(path, args) for path in data_sets(args)}
    args.output.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {
        name: {k: v for k, v in m.report.items() if k != "samples"} | {"timing": m.timing}
        for name, m in metas.items()}
    write_json(args.output / "agreement.json", summary)
    auc_figure(metas, args.output / "agreement_auc.png")
    command = " ".join(["python benchmarks/agreement.py", *(sys.argv[1:] if argv is None else argv)])
    calibration = (f"thresholds chosen on `{args.calibrate_on}`" if args.calibrate_on else
                   f"thresholds chosen on a held-out stratified {args.calibration_split:.0%} of each set")
    text = ["# Judge agreement with human faithfulness labels", "",
            f"Command: `{command}`", "",
            f"Metric `faithfulness` (claim_scoring=score), {calibration}; statistics on the remaining "
            f"samples; 95% percentile bootstrap intervals ({args.resamples} resamples, seed {args.seed}). "
            "samples/s is wall clock on this machine (2 shared cores) and varies run to run. Per-set "
            "reports and figures: `agreement/<set>/`; AUC overview: `agreement_auc.png`.", "",
            *table(metas), "", "## Judge pairs", "", *pair_table(metas), ""]
    (args.output / "agreement.md").write_text("\n".join(text), encoding="utf-8")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
