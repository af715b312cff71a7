"""``ragjudge meta-eval DATA --judge SPEC ...``: how judges agree with human labels and with each other."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register", "run"]

_SPEC_HELP = ("judge to meta-evaluate (repeatable): NAME, NAME:key=value,key=value (as=LABEL names it in the "
              "report), or a .yaml/.toml config file")


def register(subparsers: Any) -> None:
    """Add the ``meta-eval`` subcommand."""
    p = subparsers.add_parser(
        "meta-eval", help="measure judges against human labels (AUC, kappa, ... with intervals)",
        description="Score labeled data with each judge and report its agreement with the human labels and "
                    "with the other judges, with bootstrap intervals; writes JSON, Markdown and figures.")
    p.add_argument("data", help="labeled samples (.jsonl, .json or .csv) with a 'label' per sample")
    p.add_argument("--judge", action="append", required=True, metavar="SPEC", help=_SPEC_HELP)
    p.add_argument("--metric", default="faithfulness",
                   help="judged metric to meta-evaluate (default faithfulness)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--calibrate-on", metavar="FILE", help="labeled file to choose thresholds on")
    where.add_argument("--calibration-split", type=float, default=0.3, metavar="FRACTION",
                       help="else hold out this stratified fraction of DATA to choose thresholds "
                            "(default 0.3)")
    p.add_argument("--output", "-o", default="meta-eval", metavar="DIR",
                   help="output directory (default meta-eval)")
    p.add_argument("--seed", type=int, default=0, help="seed of the split and the bootstrap (default 0)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--batch-size", type=int, default=256, help="samples per judge batch (default 256)")
    p.add_argument("--end-to-end", metavar="RESULTS",
                   help="also draw end_to_end.png from an 'ragjudge evaluate' JSON result that has a "
                        "retrieval and a generation metric")
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no tables on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Meta-evaluate, write the outputs, print the tables."""
    from ragjudge.errors import ConfigError
    from ragjudge.metaeval import Settings, meta_evaluate, parse_judge_spec, write_end_to_end, write_outputs
    from ragjudge.metaeval.report import report_markdown, timing_markdown

    if args.resamples < 100 or args.batch_size < 1:
        raise ConfigError("--resamples must be at least 100 and --batch-size at least 1", path="command line")
    choices = [parse_judge_spec(spec, args.metric) for spec in args.judge]
    settings = Settings(metric=args.metric, calibrate_on=args.calibrate_on,
                        calibration_split=args.calibration_split, seed=args.seed, resamples=args.resamples,
                        batch_size=args.batch_size, progress=False if args.quiet else None)
    meta = meta_evaluate(args.data, choices, settings)
    written = write_outputs(meta, args.output, figures=not args.no_figures)
    if args.end_to_end:
        path, left_out = write_end_to_end(args.end_to_end, args.output)
        written.append(path)
        if left_out:
            print(f"end-to-end heatmap: {left_out} sample(s) without both scores left out", file=sys.stderr)
    if not args.quiet:
        print(report_markdown(meta.report))
        print("## Throughput (wall clock, this run)\n\n" + timing_markdown(meta.timing) + "\n")
        print("wrote " + ", ".join(str(p) for p in written))
    return 0
