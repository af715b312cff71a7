"""Shared fixtures: a tiny deterministic encoder for fast tests, and the real packaged model, loaded once."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator

import numpy as np
import pytest
from ragjudge_embeddings import EmbeddingJudge

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the default model must never need the network


class WordHashEncoder:
    """Bag of lowercased words hashed into 64 dimensions: similar wording gives similar vectors, instantly."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, sentences: list[str], /, *, batch_size: int, convert_to_numpy: bool,
               normalize_embeddings: bool, show_progress_bar: bool) -> np.ndarray:
        self.calls.append(list(sentences))
        rows = np.zeros((len(sentences), 64), dtype=np.float32)
        for i, sentence in enumerate(sentences):
            for word in re.findall(r"\w+", sentence.lower()):
                rows[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1.0
        return rows


@pytest.fixture
def encoder() -> WordHashEncoder:
    """A fresh word-hash encoder (it records every call)."""
    return WordHashEncoder()


@pytest.fixture(scope="session")
def minilm() -> Iterator[EmbeddingJudge]:
    """The embedding judge with its default model: the packaged all-MiniLM-L6-v2, offline."""
    judge = EmbeddingJudge()
    yield judge
    judge.close()
