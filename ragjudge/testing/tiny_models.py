"""Tiny random BERT classifiers and word-level tokenizers, built in-process: offline seams for model judges.

Tests and benchmarks of the ``nli`` judge, the trainer and the Ray engine need a real checkpoint to load by
path, but no weights can be downloaded. These build one in milliseconds. The tokenizer is a raw ``tokenizers``
WordLevel model wrapped in ``PreTrainedTokenizerFast`` with ``model_input_names`` set, because transformers 5
otherwise reloads it without ``token_type_ids`` and BERT then fails. Needs the ``nli`` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["SPECIALS", "build_model", "build_tokenizer", "save_tiny_nli"]

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")
NLI_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def _vocab(words: Sequence[str]) -> dict[str, int]:
    return {tok: i for i, tok in enumerate(dict.fromkeys([*SPECIALS, *words]))}


def build_tokenizer(words: Sequence[str], *, max_length: int = 64) -> Any:
    """A fast lower-casing word-level tokenizer over ``words`` with BERT-style pair templates."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    transformers: Any = __import__("transformers")  # untyped for mypy's purposes
    vocab = _vocab(words)
    raw = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    raw.normalizer = normalizers.Lowercase()
    raw.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    raw.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=raw, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
        model_input_names=["input_ids", "token_type_ids", "attention_mask"], model_max_length=max_length)


def build_model(vocab_size: int, *, id2label: dict[int, str] | None = None, max_length: int = 64,
                seed: int = 0) -> Any:
    """A random 2-layer, hidden-32 BERT classifier (default labels: 3-way NLI), in eval mode."""
    import torch

    transformers: Any = __import__("transformers")  # untyped for mypy's purposes
    id2label = id2label or NLI_LABELS
    config = transformers.BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=max_length, num_labels=len(id2label),
                        id2label=id2label, label2id={v: k for k, v in id2label.items()})
    torch.manual_seed(seed)
    return transformers.BertForSequenceClassification(config).eval()


def save_tiny_nli(directory: str | Path, words: Sequence[str], *, id2label: dict[int, str] | None = None,
                  max_length: int = 64, seed: int = 0) -> Path:
    """Save a tiny classifier and its tokenizer to ``directory``: a checkpoint to load by path."""
    directory = Path(directory)
    build_model(len(_vocab(words)), id2label=id2label, max_length=max_length, seed=seed).save_pretrained(directory)
    build_tokenizer(words, max_length=max_length).save_pretrained(directory)
    return directory
