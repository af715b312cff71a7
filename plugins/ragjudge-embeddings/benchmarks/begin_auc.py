"""AUC of the embedding judge's ``support`` on a labeled faithfulness set (default: BEGIN), offline.

    python plugins/ragjudge-embeddings/benchmarks/begin_auc.py [DATA] [--limit N] [--unit sentence|premise]

Faithfulness is computed with ``claim_scoring: score`` (the mean of the claims' best premise similarity),
and the AUC is that score against the human label, over the scored samples. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ragjudge_embeddings import EmbeddingJudge
from sklearn.metrics import roc_auc_score

from ragjudge.data import read_samples
from ragjudge.evaluate import evaluate
from ragjudge.metrics import build_metric
from ragjudge.records import Status

DEFAULT_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "faithfulness" / "begin.jsonl"


def measure(path: Path, limit: int | None, unit: str) -> dict[str, object]:
    """Evaluate faithfulness with the embedding judge and compute the AUC against labels."""
    samples = read_samples(path)[:limit]
    judge = EmbeddingJudge(premise_unit=unit)
    metric = build_metric("faithfulness", judge, {"claim_scoring": "score"})
    start = time.perf_counter()
    result = evaluate(samples, [metric], progress=False)
    seconds = time.perf_counter() - start
    pairs = [(o.score, s.label) for o, s in zip(result.outcomes["faithfulness"], samples, strict=True)
             if o.status is Status.OK and s.label is not None]
    auc = roc_auc_score([label >= 0.5 for _, label in pairs], [score for score, _ in pairs])
    return {"data": path.name, "unit": unit, "n": len(samples), "n_scored": len(pairs), "auc": round(auc, 4),
            "seconds": round(seconds, 1), "texts_encoded": judge.texts_encoded}


def main() -> None:
    """Parse arguments, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--unit", choices=("sentence", "premise"), default="sentence")
    args = parser.parse_args()
    print(json.dumps(measure(args.data, args.limit, args.unit)))


if __name__ == "__main__":
    main()
