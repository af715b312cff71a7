"""Which output of a sequence-classification model means *entailment* (and which *contradiction*).

Checkpoints name their labels every way: ``ENTAILMENT``, ``entailment``, ``entail``, ``e``, ``supported``,
``consistent``, ``not_entailment``, or nothing at all (``LABEL_0``, ``LABEL_1`` ...).
:func:`label_roles` reads ``config.id2label`` and returns the index of each role it recognises.

Roles: ``entailment`` (the positive class), ``contradiction`` (the negative class of a 3-label model, or the
only other class of a 2-label model such as ``not_entailment`` / ``not_supported`` / ``hallucinated``) and
``neutral``. Scoring then uses P(entailment), or P(entailment) / (P(entailment) + P(contradiction)).

Fallback when every label is a generic ``LABEL_k`` (documented, and announced with a warning):

- 2 labels: ``LABEL_1`` is entailment / supported, ``LABEL_0`` the negative class (MiniCheck and binary
  classifiers trained by ``ragjudge train`` use this order);
- 3 labels: the GLUE MNLI order of the ``datasets`` library, entailment 0, neutral 1, contradiction 2.

Any other naming is an error that shows the labels and asks for the ``labels`` option, which always wins.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping

from ragjudge.errors import ConfigError

__all__ = ["ROLES", "label_roles", "role_of"]

ROLES = ("entailment", "neutral", "contradiction")

# Normalised label name (lowercase, letters only) -> role. "Negative" names of binary models map to
# contradiction, so the entail-vs-contradict score of a 2-label model is simply P(entailment).
_SYNONYMS: dict[str, str] = {
    **dict.fromkeys(
        ["entailment", "entailed", "entails", "entail", "ent", "e", "supported", "support", "supports",
         "consistent", "faithful", "factual", "yes", "true", "positive", "relevant"], "entailment"),
    **dict.fromkeys(["neutral", "neu", "n", "unknown", "notenoughinfo", "nei"], "neutral"),
    **dict.fromkeys(
        ["contradiction", "contradicted", "contradicts", "contradict", "contra", "con", "c", "refuted",
         "refutes", "notentailment", "nonentailment", "notentailed", "notsupported", "unsupported",
         "inconsistent", "hallucinated", "hallucination", "unfaithful", "no", "false", "negative",
         "irrelevant"], "contradiction"),
}
_GENERIC = re.compile(r"^label_?(\d+)$")
_FALLBACK = {2: {"entailment": 1, "contradiction": 0}, 3: {"entailment": 0, "neutral": 1, "contradiction": 2}}


def role_of(label: str) -> str | None:
    """The role a label name stands for, or None when the name is not recognised."""
    return _SYNONYMS.get(re.sub(r"[^a-z]", "", label.lower()))


def label_roles(
    id2label: Mapping[int, str], override: Mapping[str, int] | None = None, *, model: str = "the model"
) -> dict[str, int]:
    """Map roles to output indices: ``override`` if given, else the config's names, else the generic fallback.

    Raises :class:`ConfigError` naming the model and its labels when no entailment index can be found.
    """
    n = len(id2label)
    if override:
        return _checked(dict(override), n, model)
    names = {int(i): str(name) for i, name in id2label.items()}
    if n in _FALLBACK and all(_GENERIC.match(name.lower()) for name in names.values()):
        warnings.warn(f"{model} names its labels {sorted(names.values())}; assuming {_FALLBACK[n]} "
                      "(pass the nli judge option labels={...} to say otherwise)", stacklevel=3)
        return dict(_FALLBACK[n])
    roles: dict[str, int] = {}
    for index, name in sorted(names.items()):
        role = role_of(name)
        if role is not None and role not in roles:
            roles[role] = index
    if "entailment" not in roles:
        raise ConfigError(f"cannot tell which output of {model} means entailment from its labels {names}; "
                          "pass labels={'entailment': INDEX, 'contradiction': INDEX}", key="labels")
    return _checked(roles, n, model)


def _checked(roles: dict[str, int], n: int, model: str) -> dict[str, int]:
    for role, index in roles.items():
        if role not in ROLES:
            raise ConfigError(f"unknown label role {role!r}; roles are {', '.join(ROLES)}", key="labels")
        if not 0 <= index < n:
            raise ConfigError(f"label {role!r} -> {index} is outside the {n} outputs of {model}",
                              key="labels")
    if "entailment" not in roles:
        raise ConfigError("the labels option must give the entailment index", key="labels")
    return roles
