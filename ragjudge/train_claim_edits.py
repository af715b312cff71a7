"""Hard negatives made from an entailed claim, for ``ragjudge train --claim-edits``.

``--augment`` edits a sentence of the premise, so its positive is a copy of the source and its negative a
copy with one wrong detail: the model learns to check details when the claim is a near-copy. A summary sentence
is rarely a copy. SummEdits (its inconsistent summaries are consistent ones with one small edit) and CoGenSumm
put an *abstractive* claim beside the same claim with one detail changed, and a judge that only checks details
of near-copies scores both alike. This module takes a fraction of the entailed examples, whose hypotheses the
corpora's annotators wrote in their own words (MNLI, FEVER, MCTest, ANLI), and emits a pair: the hypothesis
(label 1) and the hypothesis with one edit of :func:`ragjudge.train_augment.perturb` (label 0), both against
the unchanged premise. The ``name`` and ``word`` edits take their replacement from that premise, so the wrong
detail is one the source does mention elsewhere, as in-source confusions are.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ragjudge.train_augment import DEFAULT_EDITS, perturb
from ragjudge.train_data import Example
from ragjudge.train_lexicon import Lexicon

__all__ = ["SOURCE", "edit_claims"]

SOURCE = "claim-edit"  # the ``source`` of the examples made here (``--weight claim-edit=W`` resamples them)
MIN_WORDS = 4  # shorter hypotheses ("A man is sleeping.") give edits that SICK and MNLI already hold


def edit_claims(examples: Sequence[Example], fraction: float, seed: int, edits: Sequence[str] = DEFAULT_EDITS,
                lexicon: Lexicon | None = None, first_pair: int = 0) -> list[Example]:
    """Positive / edited-claim pairs from ``fraction`` of the entailed examples (seeded, deterministic).

    Each pair is the entailed example again (positive first) and its hypothesis with one edit, both with the
    example's premise and ``pair`` numbers from ``first_pair`` on, so they do not collide with the pairs of
    ``--augment``. Examples made by other augmentations, and hypotheses under :data:`MIN_WORDS` words or with
    no edit that applies, give none.
    """
    if "lexical" in edits and lexicon is None:
        raise ValueError("the lexical edit needs a lexicon (train_lexicon.load_lexicon)")
    rng = random.Random(f"{seed}:claim-edits")
    premises = sorted({e.premise for e in examples})
    out: list[Example] = []
    for example in examples:
        if example.label != 1 or example.pair >= 0:  # every example --augment or this module made has a pair
            continue
        if rng.random() >= fraction or len(example.hypothesis.split()) < MIN_WORDS:
            continue
        other = ""
        if "foreign-name" in edits and len(premises) > 1:
            other = premises[rng.randrange(len(premises))]
            other = "" if other == example.premise else other
        negative = perturb(example.hypothesis, example.premise, rng, edits, other, lexicon)
        if negative is None or not _changes_meaning(example.hypothesis, negative):
            continue
        pair = first_pair + len(out) // 2
        out.append(Example(example.premise, example.hypothesis, 1, SOURCE, pair))
        out.append(Example(example.premise, negative, 0, SOURCE, pair))
    return out


def _changes_meaning(claim: str, edited: str) -> bool:
    """False for an edit that only adds capitalised words ("Nocera" -> "Joseph Nocera", a name swap whose new
    name contains the old one): the edited claim still says what the claim said. Negation adds "not" and stays."""
    before, after = claim.split(), edited.split()
    if [w.lower() for w in before] == [w.lower() for w in after]:
        return False
    removed, added = set(before) - set(after), set(after) - set(before)
    return bool(removed) or not all(w[:1].isupper() for w in added)
