"""A tiny random BERT classifier and word-level tokenizer, built in-process for offline NLI tests.

Shared by ``tests/judges/test_nli.py`` and ``tests/test_train.py``; the builders are
:mod:`ragjudge.testing.tiny_models`, over this file's vocabulary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragjudge.testing import tiny_models
from ragjudge.testing.tiny_models import SPECIALS

WORDS = (
    "the cat sat on mat dog ran in park paris is capital of france berlin germany a an and not "
    "was were it he she they blue red green sky sun moon big small one two three four five . , ? !"
).split()


def build_tokenizer() -> Any:
    """A fast word-level tokenizer over :data:`WORDS` with BERT-style pair templates."""
    return tiny_models.build_tokenizer(WORDS)


def build_model(id2label: dict[int, str] | None = None, seed: int = 0) -> Any:
    """A random 2-layer, hidden-32 BERT classifier with the given labels (default: 3-way NLI)."""
    return tiny_models.build_model(len(SPECIALS) + len(WORDS), id2label=id2label, seed=seed)


def save_tiny(directory: Path, id2label: dict[int, str] | None = None) -> Path:
    """Save a tiny model and tokenizer to ``directory`` (a checkpoint to load by path)."""
    return tiny_models.save_tiny_nli(directory, WORDS, id2label=id2label)
