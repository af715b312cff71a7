"""Time ragjudge's retrieval measures against pytrec_eval, ranx and ir_measures, in one run, on the same data.

    python benchmarks/retrieval_speed.py                      # 100,000 queries x 100 docs (the issue's size)
    python benchmarks/retrieval_speed.py --queries 10000      # quicker

Builds Q queries x 100 retrieved documents with about 10 graded relevant documents per query (plus judged
non-relevant ones), writes TREC files, and computes nDCG@10, AP, RR, P@10 and R@100 with every tool on three
input paths: TREC files (each tool's own reader), pandas DataFrames and in-memory dicts. Each measurement runs in
a fresh process (so memory is the tool's own and ranx's first call pays its JIT compilation, reported apart from
its warm second call); building the DataFrame or dicts is not timed. Every tool's per-query values are checked
against ragjudge's. Peak memory is the rise of the process's resident-set high-water mark during the call.
Scores are distinct within a query, so ranx's tie handling (not trec_eval's) cannot make it disagree.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

OURS = ["nDCG@10", "AP", "RR", "P@10", "R@100"]
PYTREC = {"ndcg_cut.10": "ndcg_cut_10", "map": "map", "recip_rank": "recip_rank", "P.10": "P_10",
          "recall.100": "recall_100"}
RANX = ["ndcg@10", "map", "mrr", "precision@10", "recall@100"]
TOOLS = ("ragjudge", "pytrec_eval", "ranx", "ir_measures")
PATHS = ("files", "dataframes", "dicts")


# ----------------------------------------------------------------------------------------------- data


def generate(queries: int, depth: int, relevant: int, seed: int, where: Path) -> Path:
    """Write run.txt, qrels.txt and data.npz under ``where`` (reused when already there)."""
    where.mkdir(parents=True, exist_ok=True)
    if (where / "data.npz").exists():
        return where
    rng = np.random.default_rng(seed)
    qids = np.array([str(q) for q in rng.choice(10 * queries, queries, replace=False) + 1000])
    # Documents: ids unique within a query; scores strictly decreasing with rank (no ties).
    docs = rng.integers(0, 80_000, size=(queries, depth)) * depth + np.arange(depth)
    scores = np.round(np.arange(depth, 0, -1) + rng.random((queries, depth)) * 0.999, 6)
    hits = rng.random((queries, depth)) < relevant * 0.6 / depth  # ~60% of the relevant ones are retrieved
    grades = rng.integers(1, 4, size=(queries, depth))
    unretrieved_grades = rng.integers(0, 4, size=(queries, 6))  # judged documents never retrieved
    run_lines, qrels_lines = [], []
    for i, q in enumerate(qids.tolist()):
        run_lines.extend(f"{q} Q0 D{d:07d} {r + 1} {s:.6f} bench\n" for r, (d, s) in
                         enumerate(zip(docs[i].tolist(), scores[i].tolist())))
        qrels_lines.extend(f"{q} 0 D{d:07d} {g}\n" for d, g, h in
                           zip(docs[i].tolist(), grades[i].tolist(), hits[i].tolist()) if h)
        qrels_lines.extend(f"{q} 0 D{d + 6 * i:07d} {g}\n" for d, g in
                           zip(range(9_000_000, 9_000_006), unretrieved_grades[i].tolist()))
    (where / "run.txt").write_text("".join(run_lines))
    (where / "qrels.txt").write_text("".join(qrels_lines))
    with open(where / "dicts.pkl", "wb") as f:
        pickle.dump(_parse_dicts(where), f, protocol=pickle.HIGHEST_PROTOCOL)
    np.savez(where / "data.npz", queries=queries)
    return where


def load_frames(where: Path) -> tuple[Any, Any]:
    """The run and qrels as DataFrames (ir_measures' column names), from the TREC files (not timed)."""
    import pandas as pd

    run = pd.read_csv(where / "run.txt", sep=" ", header=None, usecols=[0, 2, 4],
                      names=["query_id", "doc_id", "score"], dtype={"query_id": str, "doc_id": str})
    qrels = pd.read_csv(where / "qrels.txt", sep=" ", header=None, usecols=[0, 2, 3],
                        names=["query_id", "doc_id", "relevance"], dtype={"query_id": str, "doc_id": str})
    return qrels, run


def load_dicts(where: Path) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """The run and qrels as nested dicts (not timed)."""
    with open(where / "dicts.pkl", "rb") as f:
        data: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]] = pickle.load(f)
    return data


def _parse_dicts(where: Path) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    run: dict[str, dict[str, float]] = {}
    for line in (where / "run.txt").read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    qrels: dict[str, dict[str, int]] = {}
    for line in (where / "qrels.txt").read_text().splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    return qrels, run


# ------------------------------------------------------------------------------------------ the tools


def run_ragjudge(path: str, data: Any, where: Path) -> Any:
    from ragjudge.retrieval import evaluate

    qrels, run = (str(where / "qrels.txt"), str(where / "run.txt")) if path == "files" else data
    return evaluate(qrels, run, OURS)


def values_ragjudge(result: Any) -> dict[str, dict[str, float]]:
    return {m: dict(zip(result.topics, result[m].tolist(), strict=True)) for m in OURS}


def run_pytrec_eval(path: str, data: Any, where: Path) -> Any:
    import pytrec_eval

    if path == "files":
        with open(where / "qrels.txt") as f:
            qrels = pytrec_eval.parse_qrel(f)
        with open(where / "run.txt") as f:
            run = pytrec_eval.parse_run(f)
    elif path == "dataframes":
        qrels_df, run_df = data
        qrels = {q: dict(zip(g["doc_id"], g["relevance"].astype(int), strict=True))
                 for q, g in qrels_df.groupby("query_id", sort=False)}
        run = {q: dict(zip(g["doc_id"], g["score"], strict=True)) for q, g in run_df.groupby("query_id", sort=False)}
    else:
        qrels, run = data
    return pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC)).evaluate(run)


def values_pytrec_eval(values: Any) -> dict[str, dict[str, float]]:
    return {ours: {q: v[theirs] for q, v in values.items()} for ours, theirs in zip(OURS, PYTREC.values(),
                                                                                      strict=True)}


def run_ranx(path: str, data: Any, where: Path) -> Any:
    from ranx import Qrels, Run, evaluate

    if path == "files":
        qrels, run = Qrels.from_file(str(where / "qrels.txt"), kind="trec"), \
            Run.from_file(str(where / "run.txt"), kind="trec")
    elif path == "dataframes":
        # ranx wants object (not pandas' Arrow "str") id columns: converting them is part of its path.
        qrels_df, run_df = (df.astype({"query_id": object, "doc_id": object}) for df in data)
        qrels = Qrels.from_df(qrels_df, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
        run = Run.from_df(run_df, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    else:
        qrels, run = Qrels(data[0]), Run(data[1])
    evaluate(qrels, run, RANX, make_comparable=False)
    return run


def values_ranx(run: Any) -> dict[str, dict[str, float]]:
    return {ours: dict(run.scores[theirs]) for ours, theirs in zip(OURS, RANX, strict=True)}


def run_ir_measures(path: str, data: Any, where: Path) -> Any:
    import ir_measures

    measures = [ir_measures.parse_measure(m) for m in OURS]
    if path == "files":
        qrels, run = ir_measures.read_trec_qrels(str(where / "qrels.txt")), \
            ir_measures.read_trec_run(str(where / "run.txt"))
    else:
        qrels, run = data
    return list(ir_measures.iter_calc(measures, qrels, run))


def values_ir_measures(metrics: Any) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {m: {} for m in OURS}
    for metric in metrics:
        out[str(metric.measure)][metric.query_id] = metric.value
    return out


MODULES = {"ragjudge": "ragjudge.retrieval", "pytrec_eval": "pytrec_eval", "ranx": "ranx",
           "ir_measures": "ir_measures"}
RUNNERS = {"ragjudge": run_ragjudge, "pytrec_eval": run_pytrec_eval, "ranx": run_ranx,
           "ir_measures": run_ir_measures}
VALUES = {"ragjudge": values_ragjudge, "pytrec_eval": values_pytrec_eval, "ranx": values_ranx,
          "ir_measures": values_ir_measures}


# ----------------------------------------------------------------------------------- one measurement


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb() -> float:
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:  # Linux: "5" resets the high-water mark VmHWM
        f.write("5")


def _timed(runner: Any, path: str, data: Any, where: Path) -> tuple[dict[str, Any], Any]:
    gc.collect()
    _reset_peak()
    before = _rss_mb()
    wall, cpu = time.perf_counter(), time.process_time()
    values = runner(path, data, where)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "peak_mb": max(_peak_mb() - before, 0.0)}, values


def child(tool: str, path: str, where: Path) -> None:
    """Run one tool on one path in this (fresh) process; print JSON timings and write its values. ragjudge and
    ranx are called twice: the first call is cold (ranx compiles), the second warm."""
    __import__(MODULES[tool])  # imports are not timed: the cold call is the first call after import
    data = None
    if path == "dataframes":
        data = load_frames(where)
    elif path == "dicts":
        data = load_dicts(where)
    timings = []
    for _ in range(2 if tool in ("ranx", "ragjudge") else 1):
        timing, values = _timed(RUNNERS[tool], path, data, where)
        timings.append(timing)
    values = VALUES[tool](values)  # not timed: the same per-query dicts from every tool, for the check
    np.save(where / f"values-{tool}-{path}.npy", np.array([values], dtype=object), allow_pickle=True)
    print(json.dumps(timings))


def cold_start(where: Path) -> dict[str, float]:
    """Import time of ragjudge.retrieval and its first call on a small input, in a fresh process."""
    code = ("import time; t0 = time.perf_counter(); import ragjudge.retrieval as r; t1 = time.perf_counter();"
            "r.evaluate({'q': {'a': 1}}, {'q': {'a': 1.0, 'b': 0.5}}, ['nDCG@10', 'AP', 'RR', 'P@10', 'R@100']);"
            "t2 = time.perf_counter(); print(t1 - t0, t2 - t1)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return {"import": float(out[0]), "first_call": float(out[1])}


# ------------------------------------------------------------------------------------------ the table


def measure_all(where: Path, tools: list[str], paths: list[str], repeat: int) -> dict[tuple[str, str], Any]:
    """Per (tool, path), the timings of up to ``repeat`` fresh processes (one when a call takes over 20 s:
    a slow tool's noise does not change the comparison)."""
    results: dict[tuple[str, str], Any] = {}
    for path in paths:
        for tool in tools:
            runs = []
            for _ in range(repeat):
                command = [sys.executable, __file__, "--child", tool, path, "--workdir", str(where)]
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    print(f"{tool} on {path} failed:\n{done.stderr[-2000:]}", file=sys.stderr)
                    break
                runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
                print(f"  measured {tool:<12} {path:<10} {runs[-1]}", file=sys.stderr, flush=True)
                if runs[-1][0]["wall"] > 20:
                    break
            if runs:
                results[(tool, path)] = runs
    return results


def agreement(where: Path, tool: str, path: str) -> float:
    """Largest |difference| between a tool's per-query values and ragjudge's (inf if topic sets differ)."""
    ours = np.load(where / f"values-ragjudge-{path}.npy", allow_pickle=True)[0]
    theirs = np.load(where / f"values-{tool}-{path}.npy", allow_pickle=True)[0]
    worst = 0.0
    for m in OURS:
        if set(ours[m]) != set(theirs[m]):
            return float("inf")
        worst = max(worst, max((abs(ours[m][q] - theirs[m][q]) for q in ours[m]), default=0.0))
    return worst


def rows_for(results: dict[tuple[str, str], Any], path: str) -> list[tuple[str, dict[str, float]]]:
    """(label, timing) rows, the fastest of the processes: ragjudge and ranx as their first call in a fresh
    process (cold) and their second (warm); the others' one call."""
    rows = []
    for tool in TOOLS:
        runs = results.get((tool, path))
        if not runs:
            continue
        first = min((run[0] for run in runs), key=lambda t: t["wall"])
        if tool in ("ranx", "ragjudge"):
            later = min((t for run in runs for t in run[1:]), key=lambda t: t["wall"])
            label = "ragjudge" if tool == "ragjudge" else "ranx (cold)"
            rows += [(label, first), (f"{tool} (warm)", later)]
        else:
            rows.append((tool, first))
    return rows


def report(where: Path, results: dict[tuple[str, str], Any], paths: list[str], queries: int) -> None:
    print(f"\n{queries:,} queries x 100 docs; nDCG@10, AP, RR, P@10, R@100; wall and CPU seconds, peak MB")
    print(f"{'path':<11} {'tool':<16} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'peer/ours':>9}  values")
    for path in paths:
        rows = rows_for(results, path)
        ours = dict(rows).get("ragjudge")
        for label, t in rows:
            ratio = f"{t['wall'] / ours['wall']:9.2f}" if ours else f"{'-':>9}"
            tool = label.split()[0]
            agree = "reference" if tool == "ragjudge" else _agree_text(where, tool, path)
            print(f"{path:<11} {label:<16} {t['wall']:8.2f} {t['cpu']:8.2f} {t['peak_mb']:8.0f} {ratio}  {agree}")
        peers = [(label, t) for label, t in rows if not label.startswith("ragjudge")]
        if ours and peers:
            label, best = min(peers, key=lambda row: row[1]["wall"])
            print(f"{'':<11} fastest peer: {label}, {best['wall'] / ours['wall']:.2f}x ragjudge's time")


def _agree_text(where: Path, tool: str, path: str) -> str:
    worst = agreement(where, tool, path)
    return f"agree (max |diff| {worst:.1e})" if worst <= 1e-9 else f"DIFFER (max |diff| {worst:.3g})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--relevant", type=int, default=10, help="about this many relevant documents per query")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--repeat", type=int, default=3,
                        help="fresh processes per tool and path, the fastest kept (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=None, help="where the data go (default: /tmp/...)")
    parser.add_argument("--child", nargs=2, metavar=("TOOL", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    where = args.workdir or Path(f"/tmp/ragjudge-retrieval-bench-{args.queries}-{args.depth}-{args.seed}")
    if args.child:
        child(args.child[0], args.child[1], where)
        return 0
    started = time.perf_counter()
    generate(args.queries, args.depth, args.relevant, args.seed, where)
    print(f"data in {where} ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    cold = cold_start(where)
    paths = args.paths.split(",")
    results = measure_all(where, args.tools.split(","), paths, args.repeat)
    report(where, results, paths, args.queries)
    print(f"\nragjudge cold start in a fresh process: import {cold['import']:.2f} s, first call (tiny input) "
          f"{cold['first_call'] * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
