"""The compiled kernels (``ragjudge._speedups``) against their pure-Python twins, on arbitrary Unicode text.

The oracle for each kernel is the Python code it replaces (``re.split`` + ``str.strip`` for the claim splitter;
``str.lower`` / ``str.translate`` / ``str.split`` / ``frozenset`` for the overlap fractions), which the article's
functions are checked against elsewhere. Without a C compiler the package installs without the kernels and
these tests skip, unless ``RAGJUDGE_REQUIRE_SPEEDUPS=1`` (CI sets it), which makes a missing kernel a failure.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragjudge.judges import overlap
from ragjudge.judges.text import Normaliser
from ragjudge.metrics.claims import SentenceSplitter

try:
    from ragjudge import _speedups as kernel
except ImportError:  # pragma: no cover - only without a compiler
    kernel = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(
    kernel is None and os.environ.get("RAGJUDGE_REQUIRE_SPEEDUPS") != "1",
    reason="ragjudge._speedups not built (no C compiler at install)")

# Letters in both cases (ASCII and not), sentence ends and other punctuation, every kind of white space that
# str.split() and re's \s know, one-, two- and four-byte code points.
ALPHABET = ("aAbBzZ09" ".!?,;'\"-()" " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2003\u2028\u3000"
            "éÉßİıΣσςǅ中文" "\U0001f600")
TEXT = st.text(alphabet=ALPHABET, max_size=40)


def test_the_kernel_is_built_when_ci_requires_it() -> None:
    assert kernel is not None
    assert overlap.kernel is kernel


def python_sentences(texts: list[str], min_chars: int, keep_short: bool) -> tuple[list[str], list[int]]:
    """The reference article's extract_claims rule, plus the short-answer rule, in plain Python."""
    claims, owners = [], []
    for j, text in enumerate(texts):
        kept = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > min_chars]
        if not kept and keep_short and text.strip():
            kept = [text.strip()]
        claims += kept
        owners += [j] * len(kept)
    return claims, owners


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, max_size=6), st.integers(0, 12), st.booleans())
def test_sentence_kernel_matches_re_split(texts: list[str], min_chars: int, keep_short: bool) -> None:
    claims, owners = SentenceSplitter(min_chars, keep_short).split_flat(texts)
    assert (claims, owners.tolist()) == python_sentences(texts, min_chars, keep_short)
    assert (claims, owners.tolist()) == tuple(
        x if isinstance(x, list) else x.tolist() for x in SentenceSplitter(min_chars, keep_short)._split_flat(texts))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, st.lists(TEXT, max_size=3)), max_size=6), st.booleans(), st.booleans())
def test_overlap_kernel_matches_python_sets(pairs: list[tuple[str, list[str]]], lowercase: bool,
                                            strip: bool) -> None:
    targets = [t for t, _ in pairs]
    sources = [tuple(p) for _, p in pairs]
    norm = Normaliser(lowercase=lowercase, punctuation="strip" if strip else "keep", stop_words="none")
    expected = overlap._python_fractions(norm, targets, sources)
    got = overlap._kernel_fractions(targets, sources, lowercase, strip)
    assert got.tolist() == expected.tolist()


def test_overlap_kernel_compares_words_not_just_hashes() -> None:
    # Same length, different words, and the same word in other representations (1-, 2-, 4-byte strings).
    got = overlap._kernel_fractions(["ab cd", "Paris \U0001f600", "paris é", "AZ az", "Zz"],
                                    [("ba dc",), ("paris x",), ("PARIS É",), ("az",), ("zZ", "ZZ")], True, False)
    assert got.tolist() == [0.0, 0.5, 1.0, 1.0, 1.0]
    kept_case = overlap._kernel_fractions(["Zz", "a b"], [("zz",), ("b, a",)], False, True)
    assert kept_case.tolist() == [0.0, 1.0]


def test_overlap_kernel_rejects_bad_buffers() -> None:
    assert kernel is not None
    out = np.empty(1)
    with pytest.raises(ValueError, match="offsets"):
        kernel.fractions(["a"], ["a"], np.zeros(1, np.int64), np.zeros(1, np.int64), out, True, False)
    with pytest.raises(IndexError, match="premise index"):
        kernel.fractions(["a"], ["a"], np.array([0, 1], np.int64), np.array([5], np.int64), out, True, False)
    with pytest.raises(TypeError, match="expected str"):
        kernel.fractions([b"a"], ["a"], np.array([0, 1], np.int64), np.array([0], np.int64), out, True, False)
