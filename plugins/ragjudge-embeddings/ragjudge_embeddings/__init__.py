"""ragjudge-embeddings: the ``embedding`` judge for ragjudge, registered under the ``ragjudge.judges`` group.

Importing this package is cheap: torch and sentence-transformers load when the judge first embeds a text.
"""

from __future__ import annotations

from ragjudge_embeddings.encoder import DEFAULT_MODEL
from ragjudge_embeddings.judge import Calibration, EmbeddingJudge

__all__ = ["DEFAULT_MODEL", "Calibration", "EmbeddingJudge"]
__version__ = "0.1.0"
