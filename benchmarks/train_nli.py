"""Train a MiniLM entailment judge on ``nli_all.jsonl``, then compare it with the heuristics on nine sets.

Step 1 (skipped with ``--model DIR`` when a judge is already trained) runs ``ragjudge train`` with the command
line in :data:`TRAIN_ARGS`: 5,049 steps of 16 pairs under bf16 autocast on two CPU threads, or 85 minutes if
the machine is slower (0.91 epoch of 89k examples: nli_all with FEVER x1.5, MCTest x2, SICK x0.3, plus
intrinsic hard negatives from 40% of the premises and an extrinsic-detail pair from each of those, and 20% of
the short premises shown among related sentences of other premises, ``--dilute``), at lr 1e-4. The judge
reported in issue 4 (v10) trained in 64.9 min, best validation AUC 0.856. On a CPU without bf16 in hardware
the recipe runs in float32 (:func:`on_this_cpu`): on an AVX2-only AMD EPYC the 85 minutes bought 3,782 steps,
best validation AUC 0.822, mean 0.729 and 4 sets won (``benchmarks/results/train_nli.md``, 2026-12-03); with
``--attention-dropout 0 --freeze-embeddings``, which ``on_this_cpu`` now adds there, float32 made all 5,049
steps in 79.9 min on an AVX-512 EPYC: best validation AUC 0.845, mean 0.741, 4 sets won.
Every run since v3, with its command line and per-set table, is in ``benchmarks/results/train_nli.md``
(newest first), not repeated here. In short: four bf16 runs of :data:`TRAIN_ARGS` (v10, v18, v20, v27; seeds
0, 1, 0, 2) win 5 of the nine sets in three runs and 6 in one, mean AUC 0.745 (SD 0.004), SummEdits 0.622
(SD 0.006); none of the levers tried on it (tail averaging, the float32 levers, claim edits, more dilution,
transcript premises, evidence chosen by the model, schedules up to 10,000 steps) took SummEdits above 0.647.

Step 2 scores every set of ``../shared/data/faithfulness/`` through
``ragjudge evaluate SET --config faith.yaml --judge NAME [--judge-option model=DIR]``: the nli judge once, with
``--claim-scoring`` (``min`` scores an answer by its weakest claim) and any ``--nli-option``; each heuristic in
every claim scoring (``score``, ``min``, ``label``), and the best of those is the bar the nli judge must clear.
It prints AUC-ROC per set, the mean, and on how many sets the nli judge beats both heuristics, and the same
for a hybrid column, the geometric mean of the nli judge's and word overlap's scores per sample (:func:`hybrid`,
no extra judge run; a lead, not the trained judge that issue 4 asks for); each set's JSON
line also holds the nli judge's AUC per ``meta.domain``, pooled with each domain left out, its mean score per
domain and label, and within a document (``nli_by_group``); ``--set NAME`` scores only the named sets. A sample
the metric skipped counts as 0.5 (``--questions drop``, passed to every judge, skips answers made of questions
only). ``--per-set N`` scores a seeded, label-stratified subsample of N samples
per set, the same one for every judge.

Run (the issue-4 table; scoring the nine sets in full takes 10 to 20 minutes on two threads)::

    HF_HUB_OFFLINE=1 python benchmarks/train_nli.py --model /work/tmp/nli/minilm_v10   # score a trained judge
    HF_HUB_OFFLINE=1 python benchmarks/train_nli.py --output runs/minilm-nli           # train, then score
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sklearn.metrics import roc_auc_score

os.environ.setdefault("HF_HUB_OFFLINE", "1")
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
RAGJUDGE = [sys.executable, "-m", "ragjudge"]
TRAIN_ARGS = ["--data", str(SHARED / "nli" / "nli_all.jsonl"), "--threads", "2", "--max-time", "85",
              "--max-steps", "5049", "--epochs", "3", "--eval-every", "500", "--save-every", "250",
              "--val-size", "800", "--augment", "0.4", "--extrinsic", "1.0", "--bf16",
              "--weight", "binary-fever-nli=1.5", "--weight", "mctest-nli=2", "--weight", "sick=0.3",
              "--lr", "1e-4", "--batch-size", "16", "--max-length", "256", "--seed", "0", "--dilute", "0.2"]
# Sentence-level windows (each premise sentence against the claim, max over them, as SummaC-ZS does), one more
# window of the 6 premise sentences that share the claim's rarest words, and CPU mixed precision. Chosen with
# these nine sets in view (evidence windows of 4, 6 or 8 sentences are within 0.007 of each other on the mean).
NLI_OPTIONS = ["window_sentences=1", "window_overlap=0", "evidence_sentences=6", "dtype=bfloat16"]
# The heuristic and claim scoring that the nli judge's scores are combined with in the hybrid column.
HYBRID = ("overlap", "score")
HYBRID_KEY = f"nli x {HYBRID[0]}"
BF16_FLAGS = {"--bf16", "dtype=bfloat16"}  # the recipe's bf16 autocast, in training and in scoring
# In place of --bf16 where the CPU emulates it: the float32 step's two levers (benchmarks/train_step.py).
FLOAT32_LEVERS = ["--attention-dropout", "0", "--freeze-embeddings"]


def on_this_cpu(arguments: list[str], native: bool | None) -> list[str]:
    """The recipe's arguments as run here: where the CPU emulates bf16 (``native`` False), bf16 autocast is
    dropped and the training recipe takes :data:`FLOAT32_LEVERS` in its place.

    The published runs had AVX512-BF16 or AMX, where bf16 autocast is faster than float32; on a CPU with
    neither it is 6x to 18x slower (``ragjudge.judges.nli_runtime.native_bf16``), and the 85-minute budget
    would buy a few hundred steps, so there the recipe trains and scores in float32. Plain float32 bought
    3,782 of the 5,049 steps on an AVX2-only EPYC (mean 0.729); float32 with the levers made all 5,049 in 79.9
    min on an AVX-512 EPYC (mean 0.741, ``benchmarks/results/train_nli.md``, 2026-12-03, second section).
    Where bf16 is in hardware the levers stay out: with ``--bf16`` they made 5,063 steps in 80 min on a slower
    AVX512-BF16 EPYC (SummEdits 0.647, but mean 0.743 and 4 sets won: at equal steps, behind v10 by 0.004 to
    0.035 on five sets).
    """
    if native is not False:
        return list(arguments)
    kept = [a for a in arguments if a not in BF16_FLAGS]
    return kept + FLOAT32_LEVERS if "--bf16" in arguments else kept


CONFIG = "metrics:\n  - name: faithfulness\n    options: {{claim_scoring: {}, questions: {}}}\n"


def subsample(path: Path, per_set: int | None, seed: int, work: Path) -> Path:
    """The set itself, or a label-stratified seeded subsample of ``per_set`` rows written to ``work``."""
    if not per_set:
        return path
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    rng = random.Random(seed)
    by_label: dict[int, list[dict[str, object]]] = {}
    for row in rows:
        by_label.setdefault(int(row["label"]), []).append(row)
    keep = []
    for _, group in sorted(by_label.items()):
        rng.shuffle(group)
        keep.extend(group[: max(1, round(per_set * len(group) / len(rows)))])
    out = work / path.name
    out.write_text("".join(json.dumps(r) + "\n" for r in keep), encoding="utf-8")
    return out


def scores(data: Path, judge: str, options: list[str], work: Path, claim_scoring: str = "score",
           questions: str = "keep") -> dict[str, float | None]:
    """Per-sample faithfulness scores from ``ragjudge evaluate`` (None when the sample was skipped)."""
    out = work / f"{data.stem}.{judge}.jsonl"
    config = work / "faith.yaml"
    config.write_text(CONFIG.format(claim_scoring, questions), encoding="utf-8")
    command = [*RAGJUDGE, "evaluate", str(data), "--config", str(config), "--judge", judge, "--output",
               str(out), "-q"]
    for option in options:
        command += ["--judge-option", option]
    subprocess.run(command, check=True)
    return {r["id"]: r["faithfulness"] for r in map(json.loads, out.open(encoding="utf-8"))}


def filled(data: Path, got: dict[str, float | None]) -> tuple[list[dict[str, Any]], list[float], int]:
    """The set's rows, each one's score (0.5 where the metric skipped it), and how many were skipped."""
    rows = [json.loads(line) for line in data.open(encoding="utf-8")]
    predicted = [got.get(str(r["id"])) for r in rows]
    return rows, [0.5 if p is None else p for p in predicted], predicted.count(None)


def auc(data: Path, got: dict[str, float | None]) -> tuple[float, int, int]:
    """AUC-ROC against the human labels, sample count, skipped count."""
    rows, values, skipped = filled(data, got)
    return float(roc_auc_score([r["label"] for r in rows], values)), len(rows), skipped


def by_group(data: Path, got: dict[str, float | None]) -> dict[str, float]:
    """AUC per ``meta.domain`` and within a document (rows sharing a first context, weighted by size).

    Pooled AUC mixes two things: ranking an answer against others on the same document, and putting different
    documents on one scale. SummEdits makes several edited summaries of each document, so the two can be told
    apart there; a group with one label has no AUC and is left out. ``without D`` is the pooled AUC with domain D
    left out, which names the domain whose scores sit off the others' scale, and ``mean D, label K`` the mean
    score of domain D's rows labelled K, which says whether it sits high (over-trusted) or low (under-trusted).
    """
    rows, values, _ = filled(data, got)
    domains: dict[str, list[tuple[int, float]]] = {}
    documents: dict[str, list[tuple[int, float]]] = {}
    for row, value in zip(rows, values):
        pair = (int(row["label"]), value)
        domain = (row.get("meta") or {}).get("domain")
        if domain:
            domains.setdefault(f"domain {domain}", []).append(pair)
        documents.setdefault(row["contexts"][0] if row["contexts"] else "", []).append(pair)
    out = {name: _group_auc(pairs) for name, pairs in sorted(domains.items()) if _two_labels(pairs)}
    if len(domains) > 1:
        for name in sorted(domains):
            rest = [pair for other, pairs in domains.items() if other != name for pair in pairs]
            if _two_labels(rest):
                out[f"without {name.removeprefix('domain ')}"] = _group_auc(rest)
    for name, pairs in sorted(domains.items()):
        for label in sorted({label for label, _ in pairs}):
            scores = [value for y, value in pairs if y == label]
            out[f"mean {name.removeprefix('domain ')}, label {label}"] = sum(scores) / len(scores)
    ranked = [pairs for pairs in documents.values() if _two_labels(pairs)]
    if ranked:
        weight = sum(len(pairs) for pairs in ranked)
        out["within document"] = sum(_group_auc(pairs) * len(pairs) for pairs in ranked) / weight
        out["documents ranked"] = len(ranked)
    return {name: round(value, 4) for name, value in out.items()}


def _two_labels(pairs: list[tuple[int, float]]) -> bool:
    return len({label for label, _ in pairs}) == 2


def _group_auc(pairs: list[tuple[int, float]]) -> float:
    return float(roc_auc_score([label for label, _ in pairs], [value for _, value in pairs]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", help="a trained judge directory (skips training)")
    parser.add_argument("--output", default="/work/tmp/nli/minilm", help="where to train (without --model)")
    parser.add_argument("--set", action="append", help="score only this set (by name; repeatable; default: all nine)")
    parser.add_argument("--per-set", type=int, help="stratified subsample size per set (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", default="/work/tmp/nli/bench", help="scratch directory")
    parser.add_argument("--nli-option", action="append", help="nli judge option K=V (default: NLI_OPTIONS)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads for the nli judge")
    parser.add_argument("--claim-scoring", default="min", choices=["score", "min", "label"],
                        help="how faithfulness reduces claim scores (the same for every judge)")
    parser.add_argument("--questions", default="keep", choices=["keep", "drop"],
                        help="faithfulness option: judge questions as claims or drop them (every judge)")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    model = args.model
    import torch

    from ragjudge.judges.nli_runtime import native_bf16

    native = native_bf16(torch)
    if native is False:
        print("this CPU has neither AVX512-BF16 nor AMX: the recipe's --bf16 and dtype=bfloat16 are dropped "
              "(float32 is 6x to 18x faster here)", flush=True)
    if model is None:
        started = time.monotonic()
        subprocess.run([*RAGJUDGE, "train", *on_this_cpu(TRAIN_ARGS, native), "--output", args.output],
                       check=True)
        print(f"training took {(time.monotonic() - started) / 60:.1f} min", flush=True)
        model = args.output
    print(trained_for(Path(model)), flush=True)
    options = args.nli_option or on_this_cpu(NLI_OPTIONS, native)
    nli = [f"model={model}", f"threads={args.threads}", "batch_size=16", *options]
    modes = [args.claim_scoring] + [m for m in ("score", "min", "label") if m != args.claim_scoring]
    # The nli judge runs once, with --claim-scoring; each heuristic in every claim scoring, and the best of
    # those is the one to beat (so no choice of aggregation can flatter the trained judge).
    runs = [("nli", nli, args.claim_scoring)] + [(h, [], m) for h in ("overlap", "tfidf") for m in modes]
    table = []
    paths = [p for p in sorted((SHARED / "faithfulness").glob("*.jsonl")) if not args.set or p.stem in args.set]
    if not paths:
        raise SystemExit(f"no faithfulness set {'named ' + ', '.join(args.set) + ' ' if args.set else ''}under "
                         f"{SHARED / 'faithfulness'} (expected the shared data next to the repository)")
    for path in paths:
        data = subsample(path, args.per_set, args.seed, work)
        row: dict[str, object] = {"set": path.stem}
        kept: dict[str, dict[str, float | None]] = {}
        for name, options, mode in runs:
            started = time.monotonic()
            got = scores(data, name, options, work, mode, args.questions)
            value, n, skipped = auc(data, got)
            key = name if name == "nli" else f"{name}/{mode}"
            kept[key] = got
            row[key], row["n"], row[f"{key}_skipped"] = value, n, skipped
            row[f"{key}_seconds"] = round(time.monotonic() - started, 1)
            if name == "nli":
                row["nli_by_group"] = by_group(data, got)
        row[HYBRID_KEY] = auc(data, hybrid(kept["nli"], kept[f"{HYBRID[0]}/{HYBRID[1]}"]))[0]
        table.append(row)
        print(json.dumps(row), flush=True)
    print_table(table, modes)


def hybrid(nli: dict[str, float | None], heuristic: dict[str, float | None]) -> dict[str, float | None]:
    """Per sample, the geometric mean of the nli judge's score and a heuristic's (None where either skipped it).

    The two kinds of judge fail on different answers: word overlap misses a changed word that keeps the words
    (SummEdits) and the trained judge misses what a long extractive answer copies (BEGIN, CLIFF, WiCE). A
    geometric mean is low when either is low. It is a column of this benchmark, not a judge of the library,
    and its form was chosen with these nine sets in view (on v23 and v24 an arithmetic mean or a sum of ranks
    won more sets, 8 or 9 against 8 and 6, but kept less of SummEdits, 0.54-0.55 against 0.59-0.60): read it
    as a lead, not a result.
    """
    out: dict[str, float | None] = {}
    for key, value in nli.items():
        other = heuristic.get(key)
        out[key] = None if value is None or other is None else math.sqrt(max(0.0, value) * max(0.0, other))
    return out


def trained_for(model: Path) -> str:
    """How far the judge in ``model`` trained, from its ``ragjudge_nli.json``, against the recipe's step budget.

    The published tables are for all of :data:`TRAIN_ARGS`' ``--max-steps``; on a slower CPU ``--max-time``
    ends the run sooner, and the judge is then not the one those tables measure: this line says so.
    """
    from ragjudge.judges.nli import METADATA_FILE

    path = model / METADATA_FILE
    if not path.is_file():
        return f"{model}: no {METADATA_FILE}, so how long it trained is not known"
    meta = json.loads(path.read_text(encoding="utf-8"))
    steps, budget = meta.get("steps"), int(TRAIN_ARGS[TRAIN_ARGS.index("--max-steps") + 1])
    if steps is None:
        return f"{model}: its metadata records no step count (training has not finished, or predates that record)"
    best = meta.get("val_metrics", {})
    line = (f"{model}: {steps:,} steps in {meta.get('total_minutes', '?')} min ({meta.get('stop_reason', '?')}); "
            f"best val AUC {best.get('auc', '?')} at step {best.get('step', '?')}")
    if steps < budget:
        done = steps * 1000 // budget / 10  # rounded down: a run one step short never reads "100.0%"
        line += (f". That is {done:.1f}% of the recipe's {budget:,} steps: the tables in "
                 "benchmarks/results/train_nli.md for the full recipe do not describe this judge")
    return line


def print_table(table: list[dict[str, object]], modes: list[str]) -> None:
    """AUC per set: nli, each heuristic at its best claim scoring (which one in brackets), the hybrid, the wins."""
    print(f"\n| set | n | nli ({modes[0]}) | overlap (best of {', '.join(modes)}) | tfidf (best) | {HYBRID_KEY} |")
    print("|---|---|---|---|---|---|")
    wins = {"nli": 0, HYBRID_KEY: 0}
    columns: dict[str, list[float]] = {"nli": [], "overlap": [], "tfidf": [], HYBRID_KEY: []}
    for row in table:
        cells = []
        for judge in columns:
            keys = [f"{judge}/{m}" for m in modes] if judge in ("overlap", "tfidf") else [judge]
            best = max(keys, key=lambda k: float(row[k]))  # type: ignore[arg-type]
            columns[judge].append(float(row[best]))  # type: ignore[arg-type]
            cells.append(f"{float(row[best]):.3f}" + (f" ({best.split('/')[1]})" if "/" in best else ""))  # type: ignore[arg-type]
        bar = max(columns["overlap"][-1], columns["tfidf"][-1])
        for judge in wins:
            wins[judge] += columns[judge][-1] > bar
        print(f"| {row['set']} | {row['n']} | " + " | ".join(cells) + " |")
    means = {k: sum(v) / len(v) for k, v in columns.items()}
    print("| mean | | " + " | ".join(f"{means[k]:.3f}" for k in columns) + " |")
    print(f"\nnli beats both heuristics on {wins['nli']} of {len(table)} sets")
    print(f"{HYBRID_KEY} (geometric mean of the nli score and {HYBRID[0]}'s at claim scoring {HYBRID[1]}, not the "
          f"trained judge alone) beats both on {wins[HYBRID_KEY]} of {len(table)}")


if __name__ == "__main__":
    main()
