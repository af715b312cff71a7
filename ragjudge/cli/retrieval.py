"""``ragjudge retrieval``: trec_eval-compatible evaluation of a run, and significance tests between two runs.

    ragjudge retrieval QRELS RUN [-m MEASURE ...] [-q] [-c] [-l N] [-M N] [-J] [--format trec|json]
    ragjudge retrieval compare QRELS RUN_A RUN_B [-m MEASURE ...] [--resamples N] [--seed S]

The first form prints exactly trec_eval's lines (``measure<TAB>qid|all<TAB>value``), so they diff against it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["register", "run"]

_USAGE = "%(prog)s QRELS RUN [options] | %(prog)s compare QRELS RUN_A RUN_B [options]"


def register(subparsers: Any) -> None:
    """Add the ``retrieval`` subcommand."""
    p = subparsers.add_parser(
        "retrieval", usage=_USAGE, help="trec_eval-exact ranking measures; compare two runs",
        description="Evaluate a TREC run against qrels exactly as trec_eval does (same options, same output), "
                    "or compare two runs with a paired t-test, a randomization test and a bootstrap interval.")
    p.add_argument("paths", nargs="+", metavar="FILE", help="QRELS RUN, or: compare QRELS RUN_A RUN_B")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="trec_eval name (map, P.5,10, ndcg_cut.10, official, all_trec) or notation (nDCG@10); "
                        "repeatable (default: official)")
    p.add_argument("-q", "--query", action="store_true", help="also print each topic's values")
    p.add_argument("-c", "--complete", action="store_true", help="judged topics missing from the run count as 0")
    p.add_argument("-l", "--level", type=float, default=1, metavar="N", help="lowest relevant grade (default 1)")
    p.add_argument("-M", "--max-docs", type=int, metavar="N", help="only the first N ranked documents count")
    p.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents before ranking")
    p.add_argument("--format", choices=("trec", "json"), default="trec", help="output format (default trec)")
    p.add_argument("--resamples", type=int, default=10_000, help="compare: random resamples (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="compare: random seed (default 0)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate one run (two paths) or compare two (``compare`` and three paths)."""
    paths = list(args.paths)
    compare = paths[0] == "compare"
    if compare:
        paths = paths[1:]
    if len(paths) != (3 if compare else 2):
        print(f"ragjudge retrieval: error: expected {'compare QRELS RUN_A RUN_B' if compare else 'QRELS RUN'}, "
              f"got {len(args.paths)} paths", file=sys.stderr)
        return 2
    try:
        return _compare(args, paths) if compare else _evaluate(args, paths)
    except ValueError as error:
        if type(error) is not ValueError:  # DataError and friends: let the CLI print them
            raise
        print(f"ragjudge retrieval: error: {error}", file=sys.stderr)
        return 2


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"relevance_level": args.level, "complete": args.complete, "max_docs": args.max_docs,
            "judged_only": args.judged_only}


def _evaluate(args: argparse.Namespace, paths: list[str]) -> int:
    from ragjudge.retrieval import Measure, evaluate
    from ragjudge.retrieval.report import format_trec, select_trec, to_json

    selection = select_trec(args.measure)
    # Only runid/num_q asked: still evaluate, for the topic count.
    result = evaluate(paths[0], paths[1], selection.measures or [Measure("NumRet")], **_options(args))
    if args.format == "json":
        print(json.dumps(to_json(result, selection.measures, per_query=args.query), indent=2))
    else:
        sys.stdout.write("".join(line + "\n" for line in format_trec(result, selection, per_query=args.query)))
    return 0


def _compare(args: argparse.Namespace, paths: list[str]) -> int:
    from ragjudge.retrieval import compare, evaluate, read_qrels
    from ragjudge.retrieval.report import select_trec

    measures = [m for m in select_trec(args.measure or ["map", "ndcg_cut.10", "P.10"]).measures if not m.is_count]
    qrels = read_qrels(paths[0])
    a, b = (evaluate(qrels, path, measures, **_options(args)) for path in paths[1:])
    rows = compare(a, b, measures, resamples=args.resamples, seed=args.seed)
    if args.format == "json":
        print(json.dumps([_row_dict(r) for r in rows], indent=2))
        return 0
    print(f"A: {paths[1]}\nB: {paths[2]}\ntopics in both: {rows[0].n if rows else 0}")
    print(f"{'measure':<16} {'A':>8} {'B':>8} {'A-B':>8} {'t':>8} {'p(t)':>8} {'p(rand)':>8}  95% CI of A-B")
    for r in rows:
        print(f"{r.measure.trec_name or str(r.measure):<16} {r.mean_a:8.4f} {r.mean_b:8.4f} {r.difference:8.4f} "
              f"{r.t_test.t:8.3f} {r.t_test.p:8.4f} {r.p_randomization:8.4f}  [{r.ci[0]:.4f}, {r.ci[1]:.4f}]")
    return 0


def _row_dict(r: Any) -> dict[str, Any]:
    return {"measure": r.measure.trec_name or str(r.measure), "n": r.n, "mean_a": r.mean_a, "mean_b": r.mean_b,
            "difference": r.difference, "t": r.t_test.t, "df": r.t_test.df, "p_t": r.t_test.p,
            "p_randomization": r.p_randomization, "ci": list(r.ci)}
