"""Evidence windows: the premise sentences that bear on one claim, packed into a single window.

Sentence windows see one stretch of the premise at a time, so a claim that joins facts from sentences far apart
(a WiCE claim and the web page it cites, an abstractive summary sentence) is entailed by no window, and the
judge cannot tell it from a claim the premise never supports. The fix fact-verification systems use (FEVER's
pipelines, WiCE's evidence retrieval, FactScore) is to retrieve first: rank the premise's sentences by how much
of the claim they mention, keep the best few that fit the model beside the claim, and show the model those
together, in the order the premise has them.

Ranking by words (:class:`EvidenceIndex`) is lexical and per premise: a sentence scores the summed inverse
sentence frequency (within that premise) of the claim's words it contains, so a rare name weighs more than
"the". Ranking by the model (:func:`select_scored`) takes the windows the model itself scored highest against
the claim, so a paraphrase that shares no rare word can still be chosen (retrieve-then-verify with the verifier
as the retriever; it costs a second forward pass per claim and premise). Either way only the choice of
evidence changes; whether it entails the claim is still the model's call, and the evidence window is scored
beside the ordinary windows (the judge takes the max), so it can only add support that the model sees.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["EvidenceIndex", "select_scored"]

_WORD = re.compile(r"\w+")


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


class EvidenceIndex:
    """The sentences (pieces) of one premise with their token counts, words and word weights."""

    def __init__(self, pieces: Sequence[tuple[str, int]]) -> None:
        self.pieces = list(pieces)
        self.words = [_words(text) for text, _ in self.pieces]
        frequency = Counter(w for words in self.words for w in words)
        count = len(self.pieces)
        self.weight = {w: math.log(1.0 + count / df) for w, df in frequency.items()}

    def select(self, claim: str, budget: int, most: int) -> str | None:
        """The best ``most`` pieces for ``claim`` within ``budget`` tokens, joined in premise order.

        Pieces that share no word with the claim are never chosen; None when fewer than two pieces qualify (a
        single sentence is a window the judge already scores).
        """
        wanted = _words(claim)
        scores = [sum(self.weight[w] for w in words & wanted) for words in self.words]
        return _pack_best(self.pieces, [i for i, s in enumerate(scores) if s > 0], scores, budget, most)


def select_scored(pieces: Sequence[tuple[str, int]], scores: Sequence[float], budget: int, most: int) -> str | None:
    """The ``most`` best-scored pieces (windows with their token counts) within ``budget`` tokens, joined in
    premise order; None when fewer than two fit (a single window has its own score already)."""
    return _pack_best(pieces, range(len(pieces)), scores, budget, most)


def _pack_best(pieces: Sequence[tuple[str, int]], candidates: Iterable[int], scores: Sequence[float], budget: int,
               most: int) -> str | None:
    """Greedy by score (ties: earlier first), skipping what no longer fits; the chosen joined in premise order."""
    chosen: list[int] = []
    used = 0
    for i in sorted(candidates, key=lambda i: (-scores[i], i)):
        if len(chosen) == most:
            break
        if used + pieces[i][1] <= budget:
            chosen.append(i)
            used += pieces[i][1]
    if len(chosen) < 2:
        return None
    return " ".join(pieces[i][0] for i in sorted(chosen))
