"""What a ranking measure is: a small frozen value with a name and parameters, parsed from and printed to one
notation.

The notation is the one code, config and CLI share, close to ir_measures'::

    nDCG@10   P@5   R@100   RR   RR@10   AP   AP@10   Rprec   Success@1   NumRet   NumRel   NumRelRet
    nDCG(gain=exponential)@10        P(rel=2)@5

``rel`` is the relevance threshold (a judged grade >= rel counts as relevant; default: the evaluation's
level, 1 unless changed) and ``gain`` is nDCG's gain, ``linear`` (the grade, trec_eval's) or ``exponential``
(2^grade - 1). trec_eval's names parse too: ``ndcg_cut_10`` or ``ndcg_cut.10``, ``P_5``, ``recall_100``,
``recip_rank``, ``map``, ``map_cut_10``, ``ndcg``, ``Rprec``, ``success_1``, ``num_ret``, ``num_rel``,
``num_rel_ret``. How a measure is computed lives in :mod:`ragjudge.retrieval.engine`."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["GAINS", "MEASURE_NAMES", "Measure", "parse_measure"]

#: Canonical measure names, in the order trec_eval prints its equivalents.
MEASURE_NAMES = ("NumRet", "NumRel", "NumRelRet", "AP", "Rprec", "RR", "P", "R", "nDCG", "Success")
GAINS = ("linear", "exponential")

_CUTOFF_REQUIRED = frozenset({"P", "R", "Success"})
_CUTOFF_OPTIONAL = frozenset({"AP", "RR", "nDCG"})
_NO_REL = frozenset({"NumRet"})

# Lower-cased spellings accepted for each canonical name.
_ALIASES = {
    "p": "P", "precision": "P",
    "r": "R", "recall": "R",
    "rr": "RR", "mrr": "RR", "recip_rank": "RR",
    "ap": "AP", "map": "AP",
    "ndcg": "nDCG",
    "rprec": "Rprec", "r-prec": "Rprec", "r_prec": "Rprec",
    "success": "Success", "hit": "Success", "hitrate": "Success", "hit_rate": "Success",
    "numret": "NumRet", "num_ret": "NumRet",
    "numrel": "NumRel", "num_rel": "NumRel",
    "numrelret": "NumRelRet", "num_rel_ret": "NumRelRet",
}
# trec_eval families that take a cutoff after "_" or ".".
_TREC_CUT = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success"}
_TREC_CUT_NAMES = {value: key for key, value in _TREC_CUT.items()}
_TREC_PLAIN = {"AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "Rprec": "Rprec",
               "NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret"}

_NOTATION = re.compile(r"^(?P<name>[A-Za-z_\-]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+))?$")
_TREC = re.compile(r"^(?P<family>P|recall|ndcg_cut|map_cut|success)[_.](?P<cutoff>\d+)$")


@dataclass(frozen=True)
class Measure:
    """One ranking measure: ``name`` (canonical, see :data:`MEASURE_NAMES`) plus its parameters.

    ``cutoff`` is the rank depth k (required for P, R and Success; optional for AP, RR and nDCG); ``rel``
    overrides the evaluation's relevance threshold; ``gain`` selects nDCG's gain. ``str(measure)`` prints the
    notation that :func:`parse_measure` reads back."""

    name: str
    cutoff: int | None = None
    rel: float | None = None
    gain: str = "linear"

    def __post_init__(self) -> None:
        if self.name not in MEASURE_NAMES:
            raise ValueError(f"unknown measure {self.name!r}; known: {', '.join(MEASURE_NAMES)}")
        if self.cutoff is not None and (isinstance(self.cutoff, bool) or self.cutoff < 1):
            raise ValueError(f"{self.name}: the cutoff must be a positive integer, got {self.cutoff!r}")
        if self.name in _CUTOFF_REQUIRED and self.cutoff is None:
            raise ValueError(f"{self.name} needs a cutoff, e.g. {self.name}@10")
        if self.cutoff is not None and self.name not in _CUTOFF_REQUIRED | _CUTOFF_OPTIONAL:
            raise ValueError(f"{self.name} takes no cutoff")
        if self.gain not in GAINS:
            raise ValueError(f"unknown gain {self.gain!r}; known: {', '.join(GAINS)}")
        if self.gain != "linear" and self.name != "nDCG":
            raise ValueError(f"{self.name} takes no gain (only nDCG does)")
        if self.rel is not None and (self.name in _NO_REL or self.rel < 0):
            raise ValueError(f"{self.name}: rel must be a grade >= 0 and NumRet takes none, got {self.rel!r}")

    def __str__(self) -> str:
        params = []
        if self.rel is not None:
            params.append(f"rel={_number(self.rel)}")
        if self.gain != "linear":
            params.append(f"gain={self.gain}")
        text = self.name + (f"({','.join(params)})" if params else "")
        return text if self.cutoff is None else f"{text}@{self.cutoff}"

    @property
    def trec_name(self) -> str | None:
        """trec_eval's name for this measure (``ndcg_cut_10``), or None when trec_eval has no equivalent.

        trec_eval sets the relevance threshold for all measures at once (``-l``), so ``rel`` is not part of
        the name."""
        if self.gain != "linear" or (self.name == "RR" and self.cutoff is not None):
            return None
        if self.cutoff is not None:
            return f"{_TREC_CUT_NAMES[self.name]}_{self.cutoff}"
        return _TREC_PLAIN[self.name]

    @property
    def is_count(self) -> bool:
        """True for the num_* counts, which are summed (not averaged) over topics and print as integers."""
        return self.name.startswith("Num")


def parse_measure(text: str | Measure) -> Measure:
    """Parse one measure from the shared notation or from a trec_eval name; a Measure passes through.

    Raises ValueError naming the text when it is not a measure.
    """
    if isinstance(text, Measure):
        return text
    spec = text.strip()
    trec = _TREC.match(spec)
    if trec:
        return Measure(_TREC_CUT[trec["family"]], cutoff=int(trec["cutoff"]))
    match = _NOTATION.match(spec)
    if not match:
        raise ValueError(f"cannot parse measure {text!r}; expected e.g. nDCG@10, P(rel=2)@5 or ndcg_cut_10")
    name = _ALIASES.get(match["name"].lower())
    if name is None:
        raise ValueError(f"unknown measure {match['name']!r} in {text!r}; known: {', '.join(MEASURE_NAMES)}")
    cutoff = None if match["cutoff"] is None else int(match["cutoff"])
    rel, gain = _params(match["params"], text)
    try:
        return Measure(name, cutoff=cutoff, rel=rel, gain=gain)
    except ValueError as error:
        raise ValueError(f"{text!r}: {error}") from None


def _params(params: str | None, text: str) -> tuple[float | None, str]:
    rel: float | None = None
    gain = "linear"
    for item in filter(None, (p.strip() for p in (params or "").split(","))):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep:
            raise ValueError(f"parameter {item!r} in {text!r} is not key=value")
        if key == "rel":
            try:
                rel = float(value)
            except ValueError:
                raise ValueError(f"rel={value!r} in {text!r} is not a number") from None
        elif key == "gain":
            gain = {"exp": "exponential", "lin": "linear"}.get(value, value)
        else:
            raise ValueError(f"unknown parameter {key!r} in {text!r}; known: rel, gain")
    return rel, gain


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
