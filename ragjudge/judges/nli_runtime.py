"""Loading a Hugging Face classifier and running it fast: imported only when an ``nli`` judge is built.

torch and transformers are imported here, lazily, so ``import ragjudge`` never pays for them; a missing one
raises :class:`MissingDependencyError` with the ``pip install 'ragjudge[nli]'`` line.

Speed comes from: encoding every (premise window, claim) pair in one batched fast-tokenizer call, sorting
the encoded pairs by length so each batch pads only to its own longest row (dynamic padding), and running the
model under ``torch.inference_mode``. Results are put back in input order, so scores never depend on batch
size or on the order of the pairs.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragjudge.errors import ConfigError, MissingDependencyError

__all__ = ["ModelLoadError", "Scorer", "float32_head", "import_torch", "load_pretrained", "native_bf16", "pick_device",
           "warn_emulated_bf16"]

_INPUTS = ("input_ids", "token_type_ids", "attention_mask")


class ModelLoadError(ConfigError):
    """The checkpoint named by the ``model`` option cannot be loaded (the message says which and why)."""


def import_torch() -> tuple[Any, Any]:
    """``(torch, transformers)``, or :class:`MissingDependencyError` naming whichever is missing."""
    try:
        import torch
    except ImportError as error:
        raise MissingDependencyError("the nli judge", "nli", "torch") from error
    try:
        import transformers
    except ImportError as error:
        raise MissingDependencyError("the nli judge", "nli", "transformers") from error
    return torch, transformers


def offline() -> bool:
    """Whether the Hugging Face hub must not be contacted (``HF_HUB_OFFLINE`` / ``TRANSFORMERS_OFFLINE``)."""
    return any(os.environ.get(v, "").lower() in {"1", "true", "yes", "on"}
               for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def load_pretrained(
    name: str, *, revision: str | None = None, trust_remote_code: bool = False
) -> tuple[Any, Any]:
    """Load ``(model, tokenizer)`` by hub name or local path; failures become :class:`ModelLoadError`."""
    _, transformers = import_torch()
    kwargs: dict[str, Any] = {"revision": revision, "trust_remote_code": trust_remote_code,
                              "local_files_only": offline()}
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(name, **kwargs)
        model = transformers.AutoModelForSequenceClassification.from_pretrained(name, **kwargs)
    except (OSError, ValueError, KeyError, ImportError) as error:
        why = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        hint = " (HF_HUB_OFFLINE is set: only local files and the cache are used)" if offline() else ""
        raise ModelLoadError(f"cannot load model {name!r}{hint}: {why}", key="model") from error
    return model, tokenizer


def pick_device(torch: Any, wanted: str) -> str:
    """``auto`` -> cuda, then mps, then cpu; any other value is passed through."""
    if wanted != "auto":
        return wanted
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    return "mps" if mps is not None and mps.is_available() else "cpu"


def native_bf16(torch: Any) -> bool | None:
    """Whether this CPU runs bf16 matmuls in hardware (AVX512-BF16 or AMX); None when torch cannot tell.

    Without either, oneDNN emulates bf16 and CPU autocast is far slower than float32, not faster: on an AMD
    EPYC (Zen 3, AVX2 only) ``benchmarks/train_step.py`` timed a MiniLM training step of 16 nli_all pairs at
    72 s under bf16 autocast against 4.1 s in float32 (18x), and an inference batch at 7.3 s against 1.2 s (6x).
    """
    cpu = getattr(torch, "cpu", None)
    named = (getattr(cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))
    probes: list[Callable[[], object]] = [probe for probe in named if callable(probe)]
    if not probes:
        return None
    try:
        return any(bool(probe()) for probe in probes)
    except RuntimeError:
        return None


def warn_emulated_bf16(torch: Any, who: str, instead: str) -> None:
    """Warn that ``who`` asked for CPU bf16 autocast on a CPU that emulates it (no warning when unknown)."""
    if native_bf16(torch) is False:
            warnings.warn(f"{who}: this CPU has neither AVX512-BF16 nor AMX, so bf16 autocast is emulated and runs "
                      f"6x (inference) to 18x (training) slower than float32 here; {instead}", RuntimeWarning,
                      stacklevel=3)


def float32_head(torch: Any, model: Any, device: str) -> Any:
    """``model`` with its classification head run in float32 when the rest runs under autocast.

    CPU autocast runs every Linear layer in bf16, the pooler's and the classifier's too, so the logits come
    out on bf16's grid of 8 significant bits and pairs whose logits differ by less than ~0.5% tie: on 494
    SummEdits (sentence, document) pairs scored by the trained MiniLM judge, float32 gives 382 distinct
    probabilities and bf16 autocast 335. The head (every module after the encoder, and the encoder's pooler)
    is a few hundred thousand multiply-adds per row, so running it in float32 costs nothing; it gives 382
    again. A model whose head cannot be found (its base model is itself) is returned as it is. The head's
    modules are changed in place (a ``pretrained`` model passed to the judge too), once however often called.
    """
    base = getattr(model, "base_model", model)
    if base is model:
        return model
    head = [module for module in model.children() if module is not base]
    pooler = getattr(base, "pooler", None)
    head += [pooler] if isinstance(pooler, torch.nn.Module) else []
    device_type = device.split(":")[0]

    def upcast(value: Any) -> Any:
        return value.float() if torch.is_tensor(value) and value.is_floating_point() else value

    for module in head:
        if getattr(module, "_ragjudge_float32", False):
            continue
        inner = module.forward

        def forward(*args: Any, _inner: Any = inner, **kwargs: Any) -> Any:
            with torch.autocast(device_type, enabled=False):
                return _inner(*map(upcast, args), **{key: upcast(v) for key, v in kwargs.items()})

        module.forward = forward
        module._ragjudge_float32 = True
    return model


@dataclass
class Scorer:
    """Runs (first, second) text pairs through a classifier and returns class probabilities in input order."""

    model: Any
    tokenizer: Any
    device: str
    batch_size: int
    max_length: int
    autocast: str | None = None  # "bfloat16": CPU mixed precision (weights stay float32)

    def encode(self, firsts: list[str], seconds: list[str]) -> dict[str, list[list[int]]]:
        """Token ids of every pair, unpadded, truncated to ``max_length`` as a last safety net."""
        enc = self.tokenizer(firsts, seconds, truncation=True, max_length=self.max_length)
        return {key: list(enc[key]) for key in _INPUTS if key in enc}

    def batches(self, encoded: dict[str, list[list[int]]]) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        """Length-sorted batches as ``(row indices, padded tensors on the device)``."""
        torch, _ = import_torch()
        lengths = np.fromiter((len(ids) for ids in encoded["input_ids"]), dtype=np.int64)
        order = np.argsort(-lengths, kind="stable")
        pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            width = int(lengths[rows].max())
            tensors = {}
            for key, seqs in encoded.items():
                fill = pad_id if key == "input_ids" else 0
                grid = np.full((len(rows), width), fill, dtype=np.int64)
                for r, row in enumerate(rows):
                    seq = seqs[row]
                    if self.tokenizer.padding_side == "left":
                        grid[r, width - len(seq):] = seq
                    else:
                        grid[r, : len(seq)] = seq
                tensors[key] = torch.from_numpy(grid).to(self.device)
            yield rows, tensors

    def forward(self, tensors: dict[str, Any]) -> Any:
        """Logits of one padded batch, as float32 on the CPU."""
        torch, _ = import_torch()
        mixed = (torch.autocast(self.device.split(":")[0], dtype=getattr(torch, self.autocast))
                 if self.autocast else contextlib.nullcontext())
        with torch.inference_mode(), mixed:
            return self.model(**tensors).logits.float().cpu()

    def probabilities(self, firsts: list[str], seconds: list[str]) -> np.ndarray:
        """Softmax over the labels (sigmoid for a 1-logit model), one row per pair, in input order."""
        torch, _ = import_torch()
        out: np.ndarray | None = None
        if not firsts:
            return np.zeros((0, self.num_labels), dtype=np.float32)
        for rows, tensors in self.batches(self.encode(firsts, seconds)):
            logits = self.forward(tensors)
            probs = torch.sigmoid(logits) if logits.shape[-1] == 1 else torch.softmax(logits, dim=-1)
            if out is None:
                out = np.zeros((len(firsts), probs.shape[-1]), dtype=np.float32)
            out[rows] = probs.numpy()
        assert out is not None  # firsts is non-empty, so at least one batch ran
        return out

    @property
    def num_labels(self) -> int:
        """Number of outputs of the classifier head."""
        return int(self.model.config.num_labels)
