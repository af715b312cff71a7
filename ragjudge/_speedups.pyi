"""Types of the compiled kernels (ragjudge/_speedups.c); each has a pure-Python twin with the same results."""

from typing import Any

def fractions(targets: list[str], premises: list[str], offsets: Any, members: Any, out: Any, lowercase: bool,
              strip: bool, /) -> None:
    """Fill ``out[i]`` (float64) with the largest share of ``targets[i]``'s distinct words found in one of
    ``premises[members[offsets[i]:offsets[i + 1]]]`` (int64 buffers); -1.0 when the target has no words."""

def split_sentences(texts: list[str], min_chars: int, keep_short: bool, /) -> tuple[list[str], bytes]:
    """Each text's sentences longer than ``min_chars``, stripped, and their owners as int64 bytes."""
