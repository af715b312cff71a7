"""``ragjudge evaluate DATA``: score a dataset with the configured metrics and judges."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ragjudge.errors import ConfigError

__all__ = ["parse_option", "register", "run"]


def parse_option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` with VALUE read as JSON when it parses (numbers, booleans, lists), else as a string."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"expected KEY=VALUE, got {text!r}", path="command line", key="--judge-option")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


def register(subparsers: Any) -> None:
    """Add the ``evaluate`` subcommand."""
    p = subparsers.add_parser("evaluate", help="score a dataset (JSONL, JSON or CSV)",
                              description="Score a dataset with generation metrics and retrieval measures.")
    p.add_argument("data", help="samples: .jsonl, .json or .csv")
    p.add_argument("--config", help="YAML or TOML run configuration")
    p.add_argument("--metric", "-m", action="append", dest="metrics", metavar="M",
                   help="metric to compute (repeatable): faithfulness, answer_relevance, context_precision, "
                        "context_recall, answer_correctness, or a retrieval measure such as nDCG@5")
    p.add_argument("--judge", help="judge for every generation metric (see 'ragjudge judges list')")
    p.add_argument("--judge-option", action="append", default=[], metavar="KEY=VALUE",
                   help="judge option (repeatable), e.g. threshold=0.6")
    p.add_argument("--output", "-o", help="write results: .json (full), .jsonl or .csv (per-sample rows)")
    p.add_argument("--seed", type=int, help="bootstrap seed (default 0)")
    p.add_argument("--batch-size", type=int, help="samples per judge batch (default 256)")
    p.add_argument("--no-cache", action="store_true", help="judges with an answer cache (llm) skip it")
    p.add_argument("--cache-path", help="answer cache file of judges that keep one (llm)")
    p.add_argument("--engine", choices=["local", "ray"], help="where batches run (default: local)")
    p.add_argument("--ray-address", help="Ray cluster to join (default $RAY_ADDRESS, else a local Ray)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary table")
    p.add_argument("--human-labels", metavar="FILE", help="JSONL of {id, label} for some samples: print a "
                   "prediction-powered (bias-corrected) mean and 95%% interval beside each judge mean")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, configure, evaluate, write, print the summary."""
    from ragjudge.config import RunConfig, build_metrics, load_config, with_overrides
    from ragjudge.data import read_samples
    from ragjudge.evaluate import evaluate

    config = load_config(args.config) if args.config else RunConfig()
    config = with_overrides(config, metrics=args.metrics, judge=args.judge,
                            judge_options=dict(parse_option(o) for o in args.judge_option),
                            seed=args.seed, batch_size=args.batch_size, engine=args.engine,
                            ray_address=args.ray_address, judge_defaults=_cache_flags(args))
    if config.engine == "ray":
        from ragjudge.engines.ray_engine import evaluate_ray

        result = evaluate_ray(args.data, config, progress=not args.quiet, config_path=args.config)
        return _report(result, args)
    samples = read_samples(args.data)
    metrics = build_metrics(config, path=args.config or "command line")
    try:
        result = evaluate(samples, metrics, batch_size=config.batch_size, seed=config.seed,
                          resamples=config.bootstrap.resamples, level=config.bootstrap.level,
                          progress=False if args.quiet else None)
    finally:
        for judge in {id(m.judge): m.judge for m in metrics if m.judge is not None}.values():
            judge.close()
    return _report(result, args)


def _report(result: Any, args: argparse.Namespace) -> int:
    """Write the result where asked and print the summary table."""
    if args.output:
        result.write(args.output)
    if not args.quiet:
        print(format_summary(result.to_dict()["summary"]), file=sys.stdout)
    if args.human_labels:
        from ragjudge.metaeval.human import format_ppi, ppi_for_result, read_human_labels

        print(format_ppi(result, ppi_for_result(result, read_human_labels(args.human_labels))))
    return 0


def _cache_flags(args: argparse.Namespace) -> dict[str, Any]:
    flags: dict[str, Any] = {}
    if args.no_cache:
        flags["cache"] = False
    if args.cache_path:
        flags["cache_path"] = args.cache_path
    return flags


def format_summary(summary: dict[str, Any]) -> str:
    """A fixed-width table: metric, mean, 95% interval, counts, judge."""
    width = max([22, *(len(name) + 2 for name in summary)])
    lines = [f"{'metric':<{width}}{'mean':>8}  {'95% CI':<17}{'scored':>7}{'failed':>7}{'skipped':>8}  judge"]
    for name, s in summary.items():
        mean = "-" if s["mean"] is None else f"{s['mean']:.3f}"
        ci = "-" if s["ci95"] is None else f"[{s['ci95'][0]:.3f}, {s['ci95'][1]:.3f}]"
        judge = "-" if s["judge"] is None else f"{s['judge']['name']} ({s['judge']['id']})"
        counts = f"{s['n_scored']:>7}{s['n_failed']:>7}{s['n_skipped']:>8}"
        lines.append(f"{name:<{width}}{mean:>8}  {ci:<17}{counts}  {judge}")
    return "\n".join(lines)
