"""Premises shown among related sentences, for ``ragjudge train --dilute``: training on evidence windows.

At inference the ``nli`` judge scores each claim against single premise sentences and against one *evidence
window*: the six premise sentences that share the claim's rarest words (:mod:`ragjudge.judges.nli_evidence`).
On long sources (SummEdits, CLIFF, WiCE) that window gives the claim its score more often than any single
sentence does. But most NLI training premises are one or two sentences (MNLI, SICK), so the model has rarely
seen what a window shows it: the evidence beside several on-topic sentences that say something else.

For a fraction of the short premises this module replaces the premise by the premise *among related sentences
from other premises*: sentences that contain the hypothesis' rarest words, as the evidence window's neighbours
do, added until the premise has ``window`` sentences or ``max_words`` words. The original premise stays whole
and in order at a random place among them. The label is unchanged, and that is what keeps the edit honest:
a related sentence from another premise may mention the hypothesis' subject but should not settle it, so a
sentence that holds half or more of the hypothesis' content words is never added (it might entail it).

Deterministic for a seed; an example whose premise already has ``window`` sentences, or whose hypothesis finds
no related sentence, is left as it is.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections import defaultdict
from collections.abc import Sequence

from ragjudge.judges.nli_windows import split_sentences
from ragjudge.train_data import Example

__all__ = ["dilute"]

_WORD = re.compile(r"[a-z0-9]+")
_CANDIDATES_PER_WORD = 24  # random sentences drawn from a word's list before moving to a commoner word
# Function words: this module's own list (not sklearn's ENGLISH_STOP_WORDS, which differs): the diluted
# examples of a recipe, and so a trained judge, depend on it.
_STOP = frozenset(
    "a about above after again against all also am an and any are as at be because been before being below "
    "between both but by can could did do does doing down during each few for from further had has have "
    "having he her here hers herself him himself his how i if in into is it its itself just me more most my "
    "myself no nor not now of off on once only or other our ours out over own same she should so some such "
    "than that the their theirs them themselves then there these they this those through to too under until "
    "up very was we were what when where which while who whom why will with would you your yours".split())


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOP}


class _Pool:
    """The distinct premises, their sentence counts, and every sentence of them indexed by content word."""

    def __init__(self, premises: Sequence[str]) -> None:
        self.premises = list(premises)
        self.number = {premise: p for p, premise in enumerate(self.premises)}
        self.sentence_counts: list[int] = []  # all sentences of a premise, before the length filter below
        self.sentences: list[str] = []
        self.owner: list[int] = []  # index of the premise a sentence comes from
        self.lengths: list[int] = []
        self.content: list[set[str]] = []
        self.postings: dict[str, list[int]] = defaultdict(list)
        for p, premise in enumerate(self.premises):
            own = split_sentences(premise)
            self.sentence_counts.append(len(own))
            for sentence in own:
                words = len(sentence.split())
                if not 5 <= words <= 40:
                    continue
                index = len(self.sentences)
                self.sentences.append(sentence)
                self.owner.append(p)
                self.lengths.append(words)
                self.content.append(_content(sentence))
                for word in self.content[index]:
                    self.postings[word].append(index)

    def related(self, hypothesis: str, premise_index: int, room: int, need: int,
                rng: random.Random) -> list[str]:
        """Up to ``need`` sentences of other premises with the hypothesis' rarest words, within ``room`` words."""
        premise = self.premises[premise_index]
        wanted = _content(hypothesis)
        ranked = sorted((w for w in wanted if w in self.postings), key=lambda w: (len(self.postings[w]), w))
        chosen: list[str] = []  # a sentence that several premises share, or the premise's own, once at most
        for word in ranked:
            posting = self.postings[word]
            draws = posting if len(posting) <= _CANDIDATES_PER_WORD else rng.sample(posting, _CANDIDATES_PER_WORD)
            for index in draws:
                # Checked before each draw, so a list filled by a word's last sentence still takes the next
                # word's sample: the random draws (and examples) of the v7 run.
                if len(chosen) == need:
                    return chosen
                sentence = self.sentences[index]
                if (self.owner[index] == premise_index or sentence in chosen or sentence in premise
                        or self.lengths[index] > room or 2 * len(self.content[index] & wanted) >= len(wanted)):
                    continue
                chosen.append(sentence)
                room -= self.lengths[index]
        return chosen


def dilute(examples: list[Example], fraction: float, seed: int, window: int = 6,
           max_words: int = 140) -> list[Example]:
    """``examples`` with ``fraction`` of those whose premise has fewer than ``window`` sentences and
    ``max_words`` words replaced by a copy whose premise sits among related sentences of other premises.

    Same length and order, labels and hypotheses unchanged; ``max_words`` bounds the new premise so that it
    fits the training ``max_length`` beside the hypothesis (about 1.3 tokens a word: on nli_all, 0.15% of the
    diluted MiniLM pairs pass 256 tokens, and truncation cuts those from the premise's end).
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"dilute fraction must be in [0, 1], got {fraction}")
    if fraction == 0.0:
        return list(examples)
    pool = _Pool(sorted({e.premise for e in examples}))
    rng = random.Random(f"{seed}:dilute")
    out = []
    for example in examples:
        index = pool.number[example.premise]
        count = pool.sentence_counts[index]
        words = len(example.premise.split())
        if count >= window or words >= max_words or rng.random() >= fraction:
            out.append(example)
            continue
        related = pool.related(example.hypothesis, index, max_words - words, window - count, rng)
        if not related:
            out.append(example)
            continue
        at = rng.randint(0, len(related))
        premise = " ".join([*related[:at], example.premise.strip(), *related[at:]])
        out.append(dataclasses.replace(example, premise=premise))
    return out
