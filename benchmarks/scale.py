"""Local engine vs Ray engine on this machine: throughput, Ray's fixed start-up cost, identical results.

    python benchmarks/scale.py                     # 200,000 samples with overlap, 5,000 with tiny NLI
    python benchmarks/scale.py --n 20000 --nli-n 500   # a quick look

Faithfulness over synthetic samples (three contexts of three sentences, a two-sentence answer that mostly
reuses context sentences) read from one JSONL file by both engines. Local time includes reading the file;
Ray time is one ``evaluate_ray`` call on an already started Ray (its start-up is measured apart: ``ray.init``,
then a 256-sample run, which pays for starting the workers). Every run checks that the Ray result equals the
local one (per-sample outcomes and summaries) and stops if not. The NLI model is a random 2-layer, hidden-32
BERT: it measures the plumbing (actor start, model load, batching), not a real model's speed; its run scores
claims by P(entailment) (``claim_scoring: score``) so the identity check compares continuous values, and
torch runs one thread per process in both engines (Ray sets ``OMP_NUM_THREADS=1`` in its workers; the local run
gets the nli judge's ``threads: 1``): on a loaded machine torch's default thread pool, oversubscribed, was ten
times slower, which measured torch rather than the engines.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = ("the cat sat on mat dog ran in park paris is capital of france berlin germany a and not was it "
         "blue red green sky sun moon big small one two three four five river city old new").split()


def synthetic_jsonl(path: Path, n: int, seed: int = 0) -> Path:
    """``n`` samples as JSON lines; about 60% of answer sentences are copied from a context."""
    import json

    rng = random.Random(seed)

    def sentence() -> str:
        return " ".join(rng.choices(WORDS, k=rng.randint(5, 10))) + "."

    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            sentences = [sentence() for _ in range(9)]
            contexts = [" ".join(sentences[k:k + 3]) for k in (0, 3, 6)]
            answer = " ".join(rng.choice(sentences) if rng.random() < 0.6 else sentence() for _ in range(2))
            fh.write(json.dumps({"id": f"s{i}", "question": sentence(), "contexts": contexts,
                                 "answer": answer}) + "\n")
    return path


def save_tiny_nli(directory: Path) -> Path:
    """A random 2-layer, hidden-32 BERT NLI classifier and a word-level tokenizer over :data:`WORDS`."""
    from ragjudge.testing.tiny_models import save_tiny_nli as save

    return save(directory, [".", *WORDS], max_length=128)


def compare(label: str, data: Path, judge: dict[str, Any], batch_size: int, batches_per_task: int,
            scoring: str = "label") -> dict[str, Any]:
    """Run both engines on ``data``; fail loudly unless the results are identical."""
    from ragjudge.config import parse_config
    from ragjudge.data import read_samples
    from ragjudge.engines.local import evaluate_local
    from ragjudge.engines.ray_engine import evaluate_ray

    metric = {"name": "faithfulness", "options": {"claim_scoring": scoring}}
    config = parse_config({"judge": judge, "metrics": [metric], "batch_size": batch_size, "engine": "ray",
                           "ray": {"batches_per_task": batches_per_task}})
    start = time.perf_counter()
    local = evaluate_local(read_samples(data), config, progress=False)
    local_s = time.perf_counter() - start
    start = time.perf_counter()
    remote = evaluate_ray(data, config, progress=False)
    ray_s = time.perf_counter() - start
    if remote.to_dict() != local.to_dict():
        raise SystemExit(f"{label}: the Ray result differs from the local one")
    n = len(local.ids)
    row = {"label": label, "n": n, "local_s": local_s, "ray_s": ray_s, "local_rate": n / local_s,
            "ray_rate": n / ray_s, "mean": local.summary["faithfulness"].mean}
    print(_format(row), flush=True)
    return row


def _format(r: dict[str, Any]) -> str:
    return (f"{r['label']:<24}{r['n']:>9}{r['local_s']:>9.1f}{r['local_rate']:>10.0f}{r['ray_s']:>9.1f}"
            f"{r['ray_rate']:>10.0f}  yes (mean {r['mean']:.4f})")


def startup(ray: Any, num_cpus: int, data: Path, batch_size: int) -> tuple[float, float]:
    """Seconds for ``ray.init`` and for a first small overlap run (workers start)."""
    from ragjudge.config import parse_config
    from ragjudge.engines.ray_engine import evaluate_ray

    start = time.perf_counter()
    ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level="ERROR")
    init_s = time.perf_counter() - start
    start = time.perf_counter()
    evaluate_ray(data, parse_config({"batch_size": batch_size}), progress=False)
    return init_s, time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    """Build the inputs, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="samples for the overlap run (0: skip)")
    parser.add_argument("--nli-n", type=int, default=5_000, help="samples for the tiny NLI run (0: skip)")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--num-cpus", type=int, default=2)
    parser.add_argument("--batches-per-task", type=int, default=8, help="local batches per Ray call")
    args = parser.parse_args(argv)
    import ray

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warm = synthetic_jsonl(root / "warm.jsonl", 256, seed=1)
        init_s, first_s = startup(ray, args.num_cpus, warm, args.batch_size)
        rows = []
        if args.n:
            rows.append(compare("faithfulness/overlap", synthetic_jsonl(root / "overlap.jsonl", args.n),
                                {"name": "overlap"}, args.batch_size, args.batches_per_task))
        if args.nli_n:
            model = save_tiny_nli(root / "tiny-nli")
            rows.append(compare("faithfulness/tiny-nli", synthetic_jsonl(root / "nli.jsonl", args.nli_n),
                                {"name": "nli", "options": {"model": str(model), "threads": 1}}, args.batch_size,
                                args.batches_per_task, scoring="score"))
        ray.shutdown()
    print(f"Ray fixed start-up: ray.init {init_s:.1f} s; first 256-sample run {first_s:.1f} s "
          f"(num_cpus={args.num_cpus})")
    print(f"{'run':<24}{'samples':>9}{'local s':>9}{'local/s':>10}{'ray s':>9}{'ray/s':>10}  identical")
    for r in rows:
        print(_format(r))


if __name__ == "__main__":
    main()
