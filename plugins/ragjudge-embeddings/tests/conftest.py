"""Shared fixtures: a tiny deterministic encoder for fast tests, and the real packaged model, loaded once."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from embedding_fakes import WordHashEncoder
from ragjudge_embeddings import EmbeddingJudge

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the default model must never need the network


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
