"""The ``nli`` judge: entailment from any Hugging Face sequence-classification checkpoint (extra ``nli``).

``support``: every premise is cut into sentence windows that fit ``max_length`` beside the claim (see
:mod:`ragjudge.judges.nli_windows`), plus, with ``evidence_sentences``, one window of the sentences most
related to the claim (:mod:`ragjudge.judges.nli_evidence`: by shared words, or with ``evidence_ranking`` by the
model's own window scores, scored in a second pass); each (window, claim) pair is scored once per batch, however
many pairs share it; the claim's score is the max (or mean) over the windows of a premise, and the max
over premises. A window's score is P(entailment), or with ``score="entail_vs_contradict"`` P(e) / (P(e) + P(c)), which
ignores the neutral mass. Which output is entailment comes from the model config (:mod:`.nli_labels`) unless
the ``labels`` option says so. ``supported`` when the score reaches ``threshold``.

``relevance``: only for a relevance cross-encoder (a single-logit model, scored with a sigmoid) or when the
``task`` option declares it; (query, text) go through the model in that order. Otherwise the judge's ``tasks``
leave relevance out, and metrics that need it refuse the judge.

A directory written by ``ragjudge train`` loads with no other option: its labels are in the config and its
``max_length`` in ``ragjudge_nli.json``. Tests pass a pre-built ``(model, tokenizer)`` as ``pretrained``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from ragjudge.errors import ConfigError
from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.judges.nli_evidence import select_scored
from ragjudge.judges.nli_labels import label_roles
from ragjudge.judges.nli_runtime import (
    Scorer,
    float32_head,
    import_torch,
    load_pretrained,
    pick_device,
    warn_emulated_bf16,
)
from ragjudge.judges.nli_windows import Windower
from ragjudge.records import Pair, Task, Verdict

__all__ = ["METADATA_FILE", "NLIJudge"]

METADATA_FILE = "ragjudge_nli.json"  # written by ``ragjudge train`` next to the weights
_DTYPES = {"float16": "float16", "bfloat16": "bfloat16", "float32": "float32"}


class NLIJudge(Judge):
    """Entailment judge over a transformers classifier; batched, windowed, deduplicated."""

    name = "nli"
    version = "1"
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})  # the most it can do; each instance narrows this
    volatile_options = frozenset({"batch_size", "device", "dtype", "compile", "threads"})

    class Options(JudgeOptions):
        """Which checkpoint, how to read its labels, how to window premises, and how fast to run."""

        model: str = Field("cross-encoder/nli-deberta-v3-xsmall", description="hub name or local directory")
        revision: str | None = None
        trust_remote_code: bool = Field(False, description="e.g. Vectara HHEM; runs repo code")
        labels: dict[str, int] | None = Field(None, description="role -> output index")
        score: Literal["entailment", "entail_vs_contradict"] = "entailment"
        threshold: float = Field(0.5, ge=0.0, le=1.0, description="support: score to reach")
        relevance_threshold: float = Field(0.5, ge=0.0, le=1.0, description="relevance: score to reach")
        task: Literal["auto", "support", "relevance", "both"] = Field(
            "auto", description="auto: a 1-logit model judges relevance, any other judges support")
        max_length: int | None = Field(None, ge=16, description="default: metadata, else model")
        window_sentences: int | None = Field(None, ge=1, description="most sentences per window (None: fill)")
        window_overlap: int = Field(1, ge=0, description="sentences shared by consecutive windows")
        evidence_sentences: int | None = Field(
            None, ge=2, description="also score each claim against its most related premise sentences, "
                                    "at most this many, in one window (None: off)")
        evidence_ranking: Literal["words", "model", "both"] = Field(
            "words", description="how the evidence window is chosen: the sentences sharing the claim's rarest "
                                 "words, the windows the model scored highest (a second forward pass), or "
                                 "one window of each")
        aggregate: Literal["max", "mean"] = Field("max", description="over the windows of one premise")
        batch_size: int | None = Field(None, ge=1, description="default: 8 on cpu, 64 on a gpu")
        device: str = Field("auto", description="auto = cuda, then mps, then cpu")
        dtype: Literal["auto", "float32", "float16", "bfloat16"] = Field(
            "auto", description="auto: fp16 on cuda, fp32 on cpu; bfloat16 on cpu: mixed-precision autocast")
        quantize: Literal["none", "int8"] = Field(
            "none", description="int8: dynamic int8 quantisation of the Linear layers (CPU; ~2x float32)")
        compile: bool = Field(False, description="torch.compile the model (slow first batch)")
        threads: int | None = Field(None, ge=1, description="bound on torch CPU threads (process-wide)")

    options: Options

    def __init__(
        self,
        options: JudgeOptions | Mapping[str, Any] | None = None,
        *,
        pretrained: tuple[Any, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(options, **kwargs)
        torch, _ = import_torch()
        opts = self.options
        model, tokenizer = pretrained or load_pretrained(
            opts.model, revision=opts.revision, trust_remote_code=opts.trust_remote_code)
        if opts.threads:
            torch.set_num_threads(opts.threads)
        device = pick_device(torch, opts.device)
        _check_quantize(torch, opts, device)
        model = _quantized(torch, _placed(torch, model, device, opts.dtype).eval(), opts.quantize)
        self.precision = _precision(opts, device)
        autocast = "bfloat16" if self.precision == "bfloat16-autocast" else None
        if autocast:
            warn_emulated_bf16(torch, "nli judge, dtype='bfloat16'", "use dtype='float32' (or 'auto')")
            model = float32_head(torch, model, device)
        if opts.compile:
            model = torch.compile(model)
        num_labels = int(model.config.num_labels)
        # Instance-level tasks: what this checkpoint can do (the ClassVar says what the class could do).
        self.__dict__["tasks"] = _tasks(opts.task, num_labels)
        self.roles = {} if num_labels == 1 else label_roles(
            model.config.id2label, opts.labels, model=repr(opts.model))
        self.max_length = _max_length(opts, tokenizer, model)
        # On CPU, large padded batches lose to small ones (cache misses); a GPU wants many rows at once.
        batch_size = opts.batch_size or (8 if device == "cpu" else 64)
        self.scorer = Scorer(model, tokenizer, device, batch_size, self.max_length, autocast)
        by_words = None if opts.evidence_ranking == "model" else opts.evidence_sentences
        self.windower = Windower(tokenizer, self.max_length, window_sentences=opts.window_sentences,
                                 overlap=opts.window_overlap, evidence_sentences=by_words)
        # Evidence ranked by the model's own window scores: chosen after the first pass, scored in a second.
        self.model_evidence = None if opts.evidence_ranking == "words" else opts.evidence_sentences
        self.truncated_claims = 0  # claims cut to fit, over the judge's life (each batch also warns)

    def identity(self) -> dict[str, Any]:
        """The base identity plus the arithmetic the model runs in.

        ``dtype`` and ``device`` are volatile options (``auto`` means fp16 on a GPU and fp32 on the CPU), but
        what they resolve to is not: on the MiniLM judge, bf16 autocast moves probabilities by 1e-3 on average
        and 1e-2 at most against float32, as much as int8 does, so a cache must not hand one's scores to the other.
        """
        return {**super().identity(), "precision": self.precision}

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        """Score support and relevance pairs; identical (window, claim) rows are run once."""
        verdicts: list[Verdict | None] = [None] * len(pairs)
        support = [i for i, p in enumerate(pairs) if p.task is Task.SUPPORT]
        relevance = [i for i, p in enumerate(pairs) if p.task is Task.RELEVANCE]
        for i, verdict in zip(support, self._support([pairs[i] for i in support]), strict=True):
            verdicts[i] = verdict
        for i, verdict in zip(relevance, self._relevance([pairs[i] for i in relevance]), strict=True):
            verdicts[i] = verdict
        return [v if v is not None else Verdict.failed("internal: pair left unjudged") for v in verdicts]

    # -- support -----------------------------------------------------------------------------------------

    def _support(self, pairs: list[Pair]) -> list[Verdict]:
        return [self._support_verdict(item) for item in self.window_scores(pairs)]

    def window_scores(self, pairs: Sequence[Pair]) -> list[list[np.ndarray] | str]:
        """Per support pair: each premise's window scores (its evidence windows last: by words, then by the
        model), or why it is skipped.

        The verdict reduces these (``aggregate`` over a premise's windows, max over premises); they are public
        so that ``benchmarks/nli_aggregations.py`` can measure other reductions from the same forward passes.
        """
        self.windower.prepare(t for p in pairs for t in (p.text, *p.premises))
        rows: dict[tuple[str, str], int] = {}
        per_pair: list[list[list[int]] | str] = []  # row ids per premise, or the reason to skip
        ranked: list[tuple[list[int], str, list[str], int]] = []  # for model evidence: group, claim, windows
        truncated = 0
        for pair in pairs:
            claim, claim_tokens, cut = self.windower.claim(pair.text)
            truncated += cut
            if not claim.strip():
                per_pair.append("the claim is empty")
                continue
            groups = []
            for premise in pair.premises:
                group = [rows.setdefault((w, claim), len(rows))
                         for w in self.windower.claim_windows(premise, claim, claim_tokens)]
                if not group:
                    continue
                groups.append(group)
                if self.model_evidence:
                    plain = self.windower.windows(premise, claim_tokens)  # cached by claim_windows above
                    if len(plain) > 1:
                        ranked.append((group, claim, plain, claim_tokens))
            per_pair.append(groups if groups else "no premise text to judge against")
        self._warn_truncated(truncated)
        scores = self._row_scores(self.scorer.probabilities([w for w, _ in rows], [c for _, c in rows]))
        if ranked:
            scores = self._model_evidence(ranked, rows, scores)
        return [item if isinstance(item, str) else [scores[group] for group in item] for item in per_pair]

    def _model_evidence(self, ranked: list[tuple[list[int], str, list[str], int]], rows: dict[tuple[str, str], int],
                        scores: np.ndarray) -> np.ndarray:
        """Append to each group the window of its best-scored windows (``evidence_sentences`` at most), scoring
        the new ones in a second pass; ``scores`` extended to cover them."""
        assert self.model_evidence is not None
        new: dict[tuple[str, str], int] = {}
        self.windower.prepare(w for _, _, plain, _ in ranked for w in plain)  # token counts, in one batched call
        for group, claim, plain, claim_tokens in ranked:
            pieces = [(w, self.windower.tokens(w)) for w in plain]
            text = select_scored(pieces, scores[group[: len(plain)]].tolist(), self.windower.budget(claim_tokens),
                                 self.model_evidence)
            if text is None or text in plain:
                continue
            row = rows.get((text, claim))
            if row is None:
                row = new.setdefault((text, claim), len(rows) + len(new))
            if row not in group:
                group.append(row)
        if not new:
            return scores
        more = self._row_scores(self.scorer.probabilities([w for w, _ in new], [c for _, c in new]))
        rows.update(new)
        return np.concatenate([scores, more])

    def _support_verdict(self, item: list[np.ndarray] | str) -> Verdict:
        if isinstance(item, str):
            return Verdict.skipped(item)
        reduce = np.max if self.options.aggregate == "max" else np.mean
        score = max(float(reduce(group)) for group in item)
        return _verdict(score, self.options.threshold, ("supported", "unsupported"))

    def _row_scores(self, probs: np.ndarray) -> np.ndarray:
        """Per-row score from class probabilities: P(e), or P(e) / (P(e) + P(c))."""
        if probs.shape[1] == 1 or not self.roles:
            return probs[:, 0].astype(np.float64)
        entail = probs[:, self.roles["entailment"]].astype(np.float64)
        if self.options.score == "entailment" or "contradiction" not in self.roles:
            return entail
        both = entail + probs[:, self.roles["contradiction"]]
        ratio: np.ndarray = np.divide(entail, both, out=np.full_like(entail, 0.5), where=both > 0)
        return ratio

    def _warn_truncated(self, count: int) -> None:
        if count:
            self.truncated_claims += count
            warnings.warn(f"nli judge: {count} claim(s) longer than max_length={self.max_length} allows were "
                          "truncated to fit beside the premise", stacklevel=5)

    # -- relevance ---------------------------------------------------------------------------------------

    def _relevance(self, pairs: list[Pair]) -> list[Verdict]:
        if not pairs:
            return []
        probs = self.scorer.probabilities([p.query for p in pairs], [p.text for p in pairs])
        labels = ("relevant", "irrelevant")
        return [_verdict(float(s), self.options.relevance_threshold, labels) for s in self._row_scores(probs)]

    def close(self) -> None:
        """Drop the model so its memory can be freed."""
        self.__dict__.pop("scorer", None)


def _verdict(score: float, threshold: float, labels: tuple[str, str]) -> Verdict:
    score = min(1.0, max(0.0, score))
    return Verdict(score=score, label=labels[0] if score >= threshold else labels[1])


def _tasks(task: str, num_labels: int) -> frozenset[Task]:
    if task == "auto":
        return frozenset({Task.RELEVANCE if num_labels == 1 else Task.SUPPORT})
    if task == "both":
        return frozenset({Task.SUPPORT, Task.RELEVANCE})
    return frozenset({Task(task)})


def _precision(opts: NLIJudge.Options, device: str) -> str:
    """The arithmetic the judge's forward passes run in: ``int8``, ``bfloat16-autocast``, or the weights' dtype."""
    if opts.quantize != "none":
        return opts.quantize
    if opts.dtype == "bfloat16" and device == "cpu":
        return "bfloat16-autocast"
    if opts.dtype == "auto":
        return "float16" if device.startswith("cuda") else "float32"
    return opts.dtype


def _placed(torch: Any, model: Any, device: str, dtype: str) -> Any:
    """The model on ``device``; half precision only on a GPU (``auto``: fp16 on cuda, bf16 on mps is slow).

    ``bfloat16`` on the CPU keeps float32 weights and runs each forward under bf16 autocast instead (matmuls
    in bf16; the classification head in float32, :func:`~ragjudge.judges.nli_runtime.float32_head`): on CPUs
    with AVX512-BF16 or AMX that is ~1.7x faster than float32, with probabilities within ~1e-3
    (benchmarks/nli_throughput.py measures both).
    """
    if dtype == "auto":
        dtype = "float16" if device.startswith("cuda") else "float32"
    if dtype == "bfloat16" and device == "cpu":
        dtype = "float32"
    return model.to(device=device, dtype=getattr(torch, _DTYPES[dtype]))


def _check_quantize(torch: Any, opts: NLIJudge.Options, device: str) -> None:
    """Refuse, before any model is moved, a ``quantize`` the device, dtype or torch build cannot honour."""
    if opts.quantize == "none":
        return
    if device != "cpu":
        raise ConfigError(f"quantize={opts.quantize!r} is CPU dynamic quantisation; the device is {device!r} "
                          "(use dtype='float16' on a GPU)", key="quantize")
    if opts.dtype not in ("auto", "float32"):
        raise ConfigError(f"quantize={opts.quantize!r} runs in float32; drop dtype={opts.dtype!r}", key="dtype")
    quantization = getattr(getattr(torch, "ao", None), "quantization", None)
    if quantization is None or not hasattr(quantization, "quantize_dynamic"):
        raise ConfigError(f"quantize={opts.quantize!r} needs torch.ao.quantization.quantize_dynamic, which "
                          f"torch {torch.__version__} does not have", key="quantize")


def _quantized(torch: Any, model: Any, quantize: str) -> Any:
    """With ``quantize="int8"``, a copy of the model whose Linear layers run in int8 (the model is untouched).

    Dynamic quantisation, as ONNX Runtime and Optimum do it for CPU inference: weights stored as int8, each
    activation quantised on the fly, the matmuls in int8 (fbgemm / oneDNN kernels); everything else stays
    float32. Probabilities move by up to ~1e-2 (the fingerprint records the precision);
    benchmarks/nli_throughput.py measures the speed, and
    ``benchmarks/train_nli.py --nli-option quantize=int8`` the AUC of a trained judge.
    """
    if quantize == "none":
        return model
    with warnings.catch_warnings():
        # torch marks torch.ao.quantization deprecated in favour of torchao (not a dependency here); the eager
        # kernels still ship with torch 2.13, and they are what the benchmarks measure.
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.filterwarnings("ignore", r"(?s).*quantiz.*deprecated", UserWarning)
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


def _max_length(opts: NLIJudge.Options, tokenizer: Any, model: Any) -> int:
    """The option, else what ``ragjudge train`` recorded, else the smaller of the model's limits (cap 512)."""
    if opts.max_length:
        return opts.max_length
    metadata = Path(opts.model) / METADATA_FILE
    if metadata.is_file():
        return int(json.loads(metadata.read_text(encoding="utf-8"))["max_length"])
    limits = [512, getattr(model.config, "max_position_embeddings", 512) or 512]
    model_max = getattr(tokenizer, "model_max_length", None)
    if isinstance(model_max, int) and model_max > 0:
        limits.append(model_max)
    return int(min(limits))
