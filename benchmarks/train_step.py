"""Training step time of the MiniLM judge, per ``ragjudge train`` setting, against the default float32 step.

The same ``--batches`` batches (12) of 16 pairs from ``../shared/data/nli/nli_all.jsonl``, made as the trainer
makes them (``Batches``: length-grouped, padded to each batch's longest, max_length 256), and each model built
as the trainer builds it (``load_base``); forward + backward + gradient clipping + AdamW step, the settings
interleaved ``--repeat`` times after one warm-up pass each. Prints seconds per step and the speed-up over the
default step (the peer: the base's attention dropout, all weights trained) for:

- ``--attention-dropout 0``: no dropout mask on the attention probabilities (on CPU its ``bernoulli_`` and
  multiply cost about a third of a step, and with it PyTorch's SDPA cannot take its fused kernel);
- ``--attention-dropout 0 --freeze-embeddings``: also leave the word-embedding matrix untrained;
- ``--bf16`` (autocast), alone and with both levers, only where the CPU has bf16 in hardware (AVX512-BF16 or
  AMX): emulated it is 6-18x slower, and is left out with a message (``--bf16-anyway`` times it regardless).

Then the same for inference (forward passes under ``torch.inference_mode``, as the nli judge runs them) in
float32 and, where bf16 is timed, bf16.

    python benchmarks/train_step.py [--threads 2] [--repeat 2] [--batches 12] [--bf16-anyway]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "nli" / "nli_all.jsonl"
SAMPLE = 16 * 50 * 4  # examples drawn for the batches: four length-sorting groups of the trainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--bf16-anyway", action="store_true", help="time bf16 even where it is emulated")
    args = parser.parse_args()
    if not DATA.is_file():
        raise SystemExit(f"needs {DATA} (the shared NLI data next to the repository)")
    import numpy as np
    import torch

    from ragjudge.judges.nli_runtime import native_bf16
    from ragjudge.train import TrainConfig, load_base, make_optimizer
    from ragjudge.train_data import read_examples
    from ragjudge.train_loop import Batches

    torch.set_num_threads(args.threads)
    hardware = native_bf16(torch)
    print(f"bf16 in hardware (AVX512-BF16 or AMX): {hardware}", flush=True)
    examples = read_examples(DATA)
    keep = np.random.default_rng(0).choice(len(examples), min(SAMPLE, len(examples)), replace=False)
    examples = [examples[i] for i in np.sort(keep)]

    settings = _settings(hardware, args.bf16_anyway)
    models, tokenizer = {}, None
    for name, overrides in settings.items():
        torch.manual_seed(0)
        config = TrainConfig(data=[str(DATA)], output="unused", **overrides)
        model, tokenizer = load_base(config, None)
        models[name] = (model, make_optimizer(torch, model, 1e-5), config.bf16)
    batches = list(Batches(tokenizer, examples, 256, 16, 0).epoch(0))[: args.batches]
    width = sum(b["input_ids"].shape[1] for b in batches) / len(batches)
    print(f"{len(batches)} batches of 16 pairs, mean padded length {width:.1f} tokens", flush=True)

    def precision(bf16: bool) -> Any:
        return torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()

    def per_step(name: str) -> float:
        model, optimizer, bf16 = models[name]
        model.train()
        start = time.perf_counter()
        for batch in batches:
            with precision(bf16):
                loss = model(**batch).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        return (time.perf_counter() - start) / len(batches)

    def per_forward(name: str) -> float:
        model, _, bf16 = models[name]
        model.eval()
        start = time.perf_counter()
        with torch.inference_mode():
            for batch in batches:
                with precision(bf16):
                    model(**{k: v for k, v in batch.items() if k != "labels"})
        return (time.perf_counter() - start) / len(batches)

    inference = [n for n in ("float32 (default)", "--bf16") if n in models]
    runs: list[tuple[str, Callable[[str], float], list[str]]] = [
        ("training step", per_step, list(models)), ("inference batch", per_forward, inference)]
    for title, run, names in runs:
        for name in names:
            run(name)  # warm-up
        for _ in range(args.repeat):
            seconds = {name: run(name) for name in names}
            peer = seconds["float32 (default)"]
            print(f"{title}:", flush=True)
            for name, value in seconds.items():
                print(f"  {name:<52} {value:6.3f} s   {peer / value:4.2f}x", flush=True)


def _settings(hardware: bool | None, anyway: bool) -> dict[str, dict[str, Any]]:
    """The TrainConfig overrides timed, by the flags that set them."""
    settings: dict[str, dict[str, Any]] = {
        "float32 (default)": {},
        "--attention-dropout 0": {"attention_dropout": 0.0},
        "--attention-dropout 0 --freeze-embeddings": {"attention_dropout": 0.0, "freeze_embeddings": True},
    }
    if hardware is not False or anyway:
        settings["--bf16"] = {"bf16": True}
        settings["--bf16 --attention-dropout 0 --freeze-embeddings"] = {"bf16": True, "attention_dropout": 0.0,
                                                                       "freeze_embeddings": True}
    else:
        print("bf16 is emulated on this CPU: --bf16 left out (--bf16-anyway times it)", flush=True)
    return settings


if __name__ == "__main__":
    main()
