"""Other reductions of the nli judge's window scores, measured on the nine faithfulness sets from one pass.

An answer's faithfulness is a reduction of its claims x premises x windows P(entailment) scores: the judge takes
the max over a premise's windows and over premises, the metric (``claim_scoring: min``) the least over claims.
On SummEdits the trained MiniLM judge ranks the edits of one document at 0.66 AUC but all of them pooled at
0.62 (``benchmarks/results/train_nli.md``): what it loses is in putting documents on one scale, and an answer
with more claims (more chances of a low one) or a premise with more windows (more chances of a high one) is
a candidate cause, and so is a source whose every sentence the model half-believes. Each rule in :data:`RULES`
corrects for one of those, with no labels and per answer only.

Step 1 runs the judge once per set (:meth:`NLIJudge.window_scores`: the judge's own windows and forward
passes; the metric's own claim splitting) and keeps the arrays in ``--work``, so a second run with other rules
costs no forward pass. Step 2 prints, per rule, AUC-ROC per set, the mean, SummEdits within a document, and on
how many sets it beats both heuristics at their best claim scoring (``train_nli.scores``). Rule ``judge`` is
the judge and metric unchanged, so it equals ``train_nli.py``'s nli column (``tests/test_nli_aggregations.py``
checks it against ``evaluate``). A sample the metric would skip counts as 0.5, as in ``train_nli.py``.

Rules chosen here would be chosen with the nine test sets in view: read a gain as a lead for a recipe that is
then fixed and measured, not as a result.

    HF_HUB_OFFLINE=1 python benchmarks/nli_aggregations.py --model DIR [--set summedits_eval ...]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "data"
Windows = list[list[np.ndarray]]  # one answer: per claim, per premise, its window scores
Rule = Callable[[Windows], float]


def _logit(p: np.ndarray | float) -> np.ndarray:
    q = np.clip(np.asarray(p, dtype=np.float64), 1e-6, 1 - 1e-6)
    out: np.ndarray = np.log(q / (1 - q))
    return out


def _sigmoid(x: np.ndarray | float) -> float:
    return float(1 / (1 + np.exp(-x)))


def claim_max(claim: list[np.ndarray]) -> float:
    """The judge's claim score: the max over premises of the max over their windows."""
    return max(float(w.max()) for w in claim)


def judge(answer: Windows) -> float:
    """The judge and ``claim_scoring: min`` unchanged: the weakest claim's score."""
    return min(map(claim_max, answer))


def mean(answer: Windows) -> float:
    """``claim_scoring: score``: the mean claim score."""
    return float(np.mean([claim_max(c) for c in answer]))


def softmin(t: float) -> Rule:
    """A smooth least claim, in logit space: ``-t log mean exp(-logit / t)`` (t -> 0 is the min)."""
    def rule(answer: Windows) -> float:
        x = -_logit(np.array([claim_max(c) for c in answer])) / t
        return _sigmoid(-t * (np.log(np.mean(np.exp(x - x.max()))) + x.max()))
    return rule


def claim_count(a: float) -> Rule:
    """The least claim's logit raised by ``a log n``: n claims give the least n chances to be low."""
    def rule(answer: Windows) -> float:
        return _sigmoid(_logit(judge(answer)) + a * np.log(len(answer)))
    return rule


def window_count(b: float) -> Rule:
    """Each premise's max window logit lowered by ``b log m``: m windows give the max m chances to be high."""
    def rule(answer: Windows) -> float:
        return min(max(_sigmoid(_logit(w.max()) - b * np.log(len(w))) for w in claim) for claim in answer)
    return rule


def window_contrast(beta: float) -> Rule:
    """Each premise's max window logit less ``beta`` times the mean logit of its windows: how far the best
    evidence stands above the premise's usual sentence, so a source whose every sentence the model half-believes
    (a transcript, a short chat) does not lift all its answers alike."""
    def rule(answer: Windows) -> float:
        return min(max(_sigmoid(float(_logit(w.max()) - beta * np.mean(_logit(w)))) for w in claim)
                   for claim in answer)
    return rule


RULES: dict[str, Rule] = {
    "judge": judge, "mean": mean, "softmin 1": softmin(1.0), "softmin 0.3": softmin(0.3),
    "claims +0.5 log n": claim_count(0.5), "claims +1 log n": claim_count(1.0),
    "windows -0.5 log m": window_count(0.5), "windows -1 log m": window_count(1.0),
    "contrast 0.25": window_contrast(0.25), "contrast 0.5": window_contrast(0.5), "contrast 1": window_contrast(1.0),
}


def windows_of(judge_: Any, rows: Sequence[dict[str, Any]]) -> list[Windows | None]:
    """Per row: its claims' window scores, or None where faithfulness would skip the sample."""
    from ragjudge.metrics.generation import Faithfulness
    from ragjudge.records import Pair

    metric = Faithfulness(judge_, claim_scoring="min")
    claims, owner = metric.split([str(r["answer"]) for r in rows])
    premises = [tuple(c for c in r["contexts"] if c.strip()) for r in rows]
    pairs = [Pair.support(claim, list(premises[j])) for claim, j in zip(claims, owner.tolist(), strict=True)]
    scored = judge_.window_scores(pairs) if pairs else []
    out: list[list[list[np.ndarray]] | None] = [[] for _ in rows]
    for item, j in zip(scored, owner.tolist(), strict=True):
        answer = out[j]
        if answer is None or isinstance(item, str):
            out[j] = None  # a claim the judge skips leaves no verdict; such a claim-level skip is rare
            continue
        answer.append(item)
    return [a if a and r["answer"].strip() and premises[j] else None
            for j, (a, r) in enumerate(zip(out, rows, strict=True))]


def apply(rule: Rule, answers: Sequence[Windows | None]) -> list[float]:
    return [0.5 if a is None else rule(a) for a in answers]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="a trained judge directory")
    parser.add_argument("--set", action="append", help="a set's name (default: all nine)")
    parser.add_argument("--work", default="/work/tmp/nli/aggregations", help="cache of window scores")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    import torch
    import train_nli as bench  # beside this script, which is sys.path[0] when it runs
    from sklearn.metrics import roc_auc_score

    from ragjudge.judges.nli import NLIJudge
    from ragjudge.judges.nli_runtime import native_bf16

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    options = dict(o.split("=", 1) for o in bench.on_this_cpu(bench.NLI_OPTIONS, native_bf16(torch)))
    nli = NLIJudge({**options, "model": args.model, "threads": args.threads, "batch_size": 16})
    paths = [p for p in sorted((SHARED / "faithfulness").glob("*.jsonl")) if not args.set or p.stem in args.set]
    if not paths:
        raise SystemExit(f"no faithfulness sets under {SHARED} (expected the shared data next to the repository)")
    table: dict[str, dict[str, float]] = {name: {} for name in RULES}
    bars: dict[str, float] = {}
    within: dict[str, float] = {}
    for path in paths:
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        cache = work / f"{path.stem}.{_key(args.model, options)}.pkl"
        if not cache.is_file():
            cache.write_bytes(pickle.dumps(windows_of(nli, rows)))
        answers = pickle.loads(cache.read_bytes())  # noqa: S301 - written above by this script
        labels = [int(r["label"]) for r in rows]
        for name, rule in RULES.items():
            values = apply(rule, answers)
            table[name][path.stem] = float(roc_auc_score(labels, values))
            if path.stem == "summedits_eval":
                got: dict[str, float | None] = {str(r["id"]): v for r, v in zip(rows, values, strict=True)}
                within[name] = bench.by_group(path, got)["within document"]
        bars[path.stem] = max(bench.auc(path, bench.scores(path, h, [], work, mode))[0]
                              for h in ("overlap", "tfidf") for mode in ("score", "min", "label"))
        print(json.dumps({"set": path.stem, **{n: round(t[path.stem], 4) for n, t in table.items()}}), flush=True)
    names = [p.stem for p in paths]
    print("\n| rule | " + " | ".join(names) + " | mean | wins | summedits within a document |")
    print("|---|" + "---|" * (len(names) + 3))
    bar_mean = np.mean(list(bars.values()))
    print("| heuristics' best | " + " | ".join(f"{bars[n]:.3f}" for n in names) + f" | {bar_mean:.3f} | | |")
    for name, aucs in table.items():
        wins = sum(aucs[n] > bars[n] for n in names)
        print(f"| {name} | " + " | ".join(f"{aucs[n]:.3f}" for n in names)
              + f" | {np.mean(list(aucs.values())):.3f} | {wins} | "
              + (f"{within[name]:.3f} |" if name in within else "- |"))


def _key(model: str, options: dict[str, str]) -> str:
    """The model (its files' sizes and times, so a judge trained again into the same directory is a new key)
    and the options the scores came from."""
    import hashlib

    root = Path(model)
    files = sorted((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in root.iterdir() if f.is_file()) \
        if root.is_dir() else []
    stamp = json.dumps([str(root.resolve()), files, sorted(options.items())]).encode()
    return hashlib.sha256(stamp).hexdigest()[:12]


if __name__ == "__main__":
    main()
