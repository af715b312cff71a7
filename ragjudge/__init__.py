"""ragjudge: evaluate retrieval-augmented generation with measured, swappable judges.

Importing this package is cheap: it never imports torch, transformers or openai.
"""

from __future__ import annotations

__version__ = "0.1.0"
