"""``ragjudge train``: fine-tune an entailment judge from labeled pairs (see :mod:`ragjudge.train`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ragjudge.errors import ConfigError

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``train`` subcommand."""
    p = subparsers.add_parser(
        "train", help="fine-tune an nli judge from labeled pairs",
        description="Fine-tune a sequence-classification entailment judge on NLI pairs (premise, "
                    "hypothesis, label) or faithfulness records (contexts, answer, label). The output "
                    "directory loads with --judge nli --judge-option model=DIR. Running again with the same "
                    "--output resumes.")
    p.add_argument("--data", action="append", required=True, metavar="FILE", help="JSON lines, repeatable")
    p.add_argument("--output", required=True, metavar="DIR", help="judge + checkpoint dir")
    p.add_argument("--base", metavar="MODEL", help="HF encoder (default: MiniLM-L6)")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--max-samples", type=int, metavar="N", help="cap on training examples (seeded subsample)")
    p.add_argument("--max-length", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--val-size", type=int, default=1000, help="examples held out for validation AUC")
    p.add_argument("--patience", type=int, default=2, help="evaluations without AUC gain before stopping")
    p.add_argument("--eval-every", type=int, default=0, metavar="STEPS", help="also validate every N steps")
    p.add_argument("--save-every", type=int, default=500, metavar="STEPS", help="checkpoint every N steps")
    p.add_argument("--max-time", type=float, metavar="MINUTES", help="stop (and save) after this long")
    p.add_argument("--max-steps", type=int, metavar="STEPS",
                   help="stop (and save) after this many steps; the LR schedule spans them")
    p.add_argument("--augment", type=float, default=0.0, metavar="FRACTION",
                   help="make a positive and a hard negative from this fraction of premises")
    p.add_argument("--extrinsic", type=float, default=0.0, metavar="FRACTION",
                   help="of those premises, also make a pair whose negative adds a detail from another premise")
    p.add_argument("--edits", metavar="NAMES",
                   help="hard-negative edits, comma-separated, from number, name, negation, word, number-word, "
                        "foreign-name, lexical (default: the first four; lexical needs the train extra)")
    p.add_argument("--framing", type=float, default=0.0, metavar="FRACTION",
                   help="also add this fraction of examples with the claim framed as a dialogue turn ('yes, ...')")
    p.add_argument("--transcript", type=float, default=0.0, metavar="FRACTION",
                   help="also add this fraction of examples with the premise told as a chat by its opening "
                        "character ('Oliver: I am a cat.'), for judging summaries of dialogues")
    p.add_argument("--paraphrase", type=float, default=0.0, metavar="FRACTION",
                   help="make this fraction of the --augment pairs from a synonym-swapped sentence (train extra)")
    p.add_argument("--dilute", type=float, default=0.0, metavar="FRACTION",
                   help="show this fraction of short premises among related sentences of other premises, as "
                        "the judge's evidence window shows a claim its evidence")
    p.add_argument("--claim-edits", type=float, default=0.0, metavar="FRACTION",
                   help="of the entailed examples, this fraction also gives a pair: the hypothesis and the "
                        "hypothesis with one --edits edit (a paraphrased claim with one wrong detail, as SummEdits "
                        "makes)")
    p.add_argument("--pair-loss", type=float, default=0.0, metavar="W",
                   help="add W x a ranking loss that scores each --augment or --claim-edits positive above its "
                        "hard negative (the pair shares a batch)")
    p.add_argument("--weight", action="append", default=[], metavar="SOURCE=W",
                   help="resample examples of a source (the 'source' field) by W, e.g. binary-fever-nli=2")
    p.add_argument("--threads", type=int, help="torch CPU threads")
    p.add_argument("--bf16", action="store_true",
                   help="forward passes in bf16 autocast (CPUs with AVX512-BF16/AMX); weights stay float32")
    p.add_argument("--attention-dropout", type=float, metavar="P",
                   help="dropout on attention probabilities (default: the base's, 0.1 for MiniLM); 0 lets "
                        "attention run as one fused kernel: 1.2-1.4x faster float32 training steps on CPU")
    p.add_argument("--freeze-embeddings", action="store_true",
                   help="do not train the word-embedding matrix (half of MiniLM's weights; less optimizer work)")
    p.add_argument("--average-from", type=float, metavar="FRACTION",
                   help="from this fraction of the run on (0.5: its second half), keep the mean of the weights "
                        "after every step, and validate and save that mean (tail averaging, as SWA)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _weights(items: list[str]) -> dict[str, float]:
    weights = {}
    for item in items:
        source, sep, value = item.partition("=")
        try:
            weights[source] = float(value)
        except ValueError:
            sep = ""
        if not sep or not source:
            raise ConfigError(f"--weight expects SOURCE=NUMBER, got {item!r}", key="weight")
    return weights


def run(args: argparse.Namespace) -> int:
    """Train, then print the saved metadata's summary as JSON."""
    from ragjudge.train import TrainConfig, train
    from ragjudge.train_augment import DEFAULT_EDITS

    edits = DEFAULT_EDITS if args.edits is None else tuple(e.strip() for e in args.edits.split(",") if e.strip())
    config = TrainConfig(
        data=args.data, output=args.output, base=args.base, epochs=args.epochs, max_samples=args.max_samples,
        max_length=args.max_length, batch_size=args.batch_size, seed=args.seed, lr=args.lr,
        val_size=args.val_size, patience=args.patience, eval_every=args.eval_every,
        save_every=args.save_every, max_time=args.max_time, max_steps=args.max_steps, augment=args.augment,
        extrinsic=args.extrinsic,
        edits=edits, framing=args.framing, transcript=args.transcript, paraphrase=args.paraphrase,
        dilute=args.dilute, pair_loss=args.pair_loss,
        claim_edits=args.claim_edits,
        weights=_weights(args.weight), threads=args.threads, bf16=args.bf16,
        attention_dropout=args.attention_dropout, freeze_embeddings=args.freeze_embeddings,
        average_from=args.average_from,
        progress=not args.no_progress)
    metadata = train(config)
    keys = ("val_metrics", "stop_reason", "steps", "total_minutes", "train_examples")
    print(json.dumps({k: metadata.get(k) for k in keys}, indent=1))
    return 0
