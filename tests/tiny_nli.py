"""A tiny random BERT classifier and word-level tokenizer, built in-process for offline NLI tests.

Shared by ``tests/judges/test_nli.py`` and ``tests/test_train.py``. The tokenizer is a raw ``tokenizers``
WordLevel model wrapped in ``PreTrainedTokenizerFast`` with ``model_input_names`` set, because transformers 5
otherwise reloads it without ``token_type_ids`` (see MACHINE_NOTES).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

WORDS = (
    "the cat sat on mat dog ran in park paris is capital of france berlin germany a an and not "
    "was were it he she they blue red green sky sun moon big small one two three four five . , ? !"
).split()
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]


def build_tokenizer() -> Any:
    """A fast word-level tokenizer over :data:`WORDS` with BERT-style pair templates."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate(SPECIALS + list(WORDS))}
    raw = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    raw.normalizer = normalizers.Lowercase()
    raw.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    raw.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    return PreTrainedTokenizerFast(
        tokenizer_object=raw, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
        model_input_names=["input_ids", "token_type_ids", "attention_mask"], model_max_length=64)


def build_model(id2label: dict[int, str] | None = None, seed: int = 0) -> Any:
    """A random 2-layer, hidden-32 BERT classifier with the given labels (default: 3-way NLI)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    id2label = id2label or {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = BertConfig(vocab_size=len(SPECIALS) + len(WORDS), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
                        num_labels=len(id2label), id2label=id2label,
                        label2id={v: k for k, v in id2label.items()})
    torch.manual_seed(seed)
    return BertForSequenceClassification(config).eval()


def save_tiny(directory: Path, id2label: dict[int, str] | None = None) -> Path:
    """Save a tiny model and tokenizer to ``directory`` (a checkpoint to load by path)."""
    build_model(id2label).save_pretrained(directory)
    build_tokenizer().save_pretrained(directory)
    return directory
