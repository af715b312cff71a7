"""Conversational framing, for ``ragjudge train --framing``: the same claim as a dialogue turn would say it.

Grounded dialogue responses wrap a fact in talk: "yes, ...", "i'm not sure but ...", "all i know is ...",
"i agree, ...". An NLI model trained on MNLI-style hypotheses has never seen that and scores "not sure but
thick woodlands covered the island until the middle ages" as unsupported by "thick woodlands covered the island
until the middle ages." (this is most of what the v4 judge got wrong on BEGIN's and FaithDial's faithful
responses). For a fraction of the training examples this module adds a copy whose hypothesis opens with such a
phrase, with the label unchanged and for both labels, so the framing is neither evidence nor a cue.

Only phrases that stay inside the sentence are used: a faithfulness metric splits an answer into sentences, so
"Me too. X" reaches the judge as "X" already.
"""

from __future__ import annotations

import random

from ragjudge.train_data import Example

__all__ = ["PHRASES", "frame"]

PHRASES = ("yes, ", "yes ", "yeah, ", "no, ", "no ", "well, ", "oh, ", "sure, ", "i think ", "i believe ",
           "i know that ", "i heard that ", "i read that ", "i'm not sure, but ", "not sure but ",
           "i do not know, but ", "i don't, but ", "all i know is ", "i agree, ", "actually, ", "honestly, ",
           "oh cool, ", "it seems like ", "did you know that ", "from what i know, ", "i'm not sure but ")


def frame(examples: list[Example], fraction: float, seed: int) -> list[Example]:
    """Framed copies of ``fraction`` of the examples whose hypothesis is one sentence of 3 to 40 words."""
    rng = random.Random(f"{seed}:framing")
    out = []
    for example in examples:
        if rng.random() >= fraction or not _one_sentence(example.hypothesis):
            continue
        phrase = rng.choice(PHRASES)
        out.append(Example(example.premise, phrase + _lower_first(example.hypothesis), example.label, "framing"))
    return out


def _one_sentence(text: str) -> bool:
    words = text.split()
    inner = text.strip().rstrip(".!?\"')")
    return 3 <= len(words) <= 40 and not any(mark in inner for mark in (". ", "! ", "? "))


def _lower_first(text: str) -> str:
    """'The cat' -> 'the cat' for a common opening word; any other first word (a name) keeps its case."""
    text = text.strip()
    first = text.split(" ", 1)[0]
    if first in {"The", "A", "An", "It", "He", "She", "They", "There", "This", "That", "These", "Those", "In"}:
        return text[0].lower() + text[1:]
    return text
