"""A tiny deterministic stand-in for a sentence-transformers model (a module of its own, so tests import it
by a name no other test directory uses)."""

from __future__ import annotations

import hashlib
import re

import numpy as np


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
