"""trec_eval's ``-m`` selections and its output format, so ragjudge's output diffs cleanly against trec_eval's.

``-m`` accepts what trec_eval accepts for the measures ragjudge computes (``map``, ``P.5,10``, ``P`` with its
default cutoffs, ``ndcg_cut_10``, the ``official`` and ``all_trec`` nicknames, ``runid``, ``num_q``) and the shared
notation (``nDCG@10``). Lines come in trec_eval's order: measure families in its table order, cutoffs ascending,
every measure of a topic before the next topic (topics in string order), then the ``all`` lines. Values print as
``%-22s\\t%s\\t%6.4f`` (counts as integers), as trec_eval prints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ragjudge.retrieval.evaluation import Evaluation
from ragjudge.retrieval.measures import MEASURE_NAMES, Measure, parse_measure

__all__ = ["TrecSelection", "format_trec", "select_trec", "to_json"]

_DEFAULT_CUTOFFS = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10),
}
_FAMILY = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success"}
_PLAIN = ("num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "ndcg")
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "P")
_ALL_TREC = (*_OFFICIAL, "recall", "ndcg", "ndcg_cut", "map_cut", "success")
# trec_eval's table order of the families ragjudge prints (cut-off measures sort after plain ones of a name).
_ORDER = {name: i for i, name in enumerate(
    ("NumRet", "NumRel", "NumRelRet", "AP", "Rprec", "RR", "P", "R", "nDCG:all", "nDCG", "AP:cut", "Success"))}


@dataclass
class TrecSelection:
    """The measures to print, in trec_eval's order, and whether to print ``runid`` and ``num_q``."""

    measures: list[Measure] = field(default_factory=list)
    runid: bool = False
    num_q: bool = False


def select_trec(specs: Iterable[str] | None) -> TrecSelection:
    """The selection trec_eval's ``-m`` arguments make (``official`` when there are none)."""
    selection = TrecSelection()
    wanted: list[Measure] = []
    for spec in list(specs or []) or ["official"]:
        for name in _expand(spec):
            if name == "runid":
                selection.runid = True
            elif name == "num_q":
                selection.num_q = True
            else:
                wanted.append(parse_measure(name))
    selection.measures = sorted(dict.fromkeys(wanted), key=_sort_key)
    return selection


def _expand(spec: str) -> list[str]:
    if spec == "official":
        return [n for s in _OFFICIAL for n in _expand(s)]
    if spec == "all_trec":
        return [n for s in _ALL_TREC for n in _expand(s)]
    family, dot, params = spec.partition(".")
    if family in _DEFAULT_CUTOFFS:
        cutoffs = _DEFAULT_CUTOFFS[family] if not dot else _cutoffs(params, spec)
        return [f"{family}_{k}" for k in cutoffs]
    if dot:
        raise ValueError(f"measure {spec!r}: only P, recall, ndcg_cut, map_cut and success take cutoffs")
    if spec in _PLAIN or spec in ("runid", "num_q"):
        return [spec]
    try:
        parse_measure(spec)
    except ValueError:
        raise ValueError(f"unsupported measure {spec!r}; trec_eval names ragjudge computes: "
                         f"{', '.join((*_PLAIN, *_DEFAULT_CUTOFFS))}, runid, num_q, official, all_trec; "
                         f"or the notation {', '.join(MEASURE_NAMES)} (e.g. nDCG@10)") from None
    return [spec]


def _cutoffs(params: str, spec: str) -> list[int]:
    try:
        cutoffs = sorted({int(p) for p in params.split(",")})
    except ValueError:
        raise ValueError(f"measure {spec!r}: cutoffs must be integers") from None
    if not cutoffs or cutoffs[0] <= 0:
        raise ValueError(f"measure {spec!r}: cutoffs must be positive")
    return cutoffs


def _sort_key(m: Measure) -> tuple[int, int, int, str]:
    family = m.name + (":cut" if m.name == "AP" and m.cutoff else ":all" if m.name == "nDCG" and not m.cutoff
                       else "")
    extra = 0 if m.trec_name is not None else 1  # measures trec_eval lacks print after its own
    return (extra, _ORDER.get(family, len(_ORDER)), m.cutoff or 0, str(m))


def _label(m: Measure) -> str:
    return m.trec_name or str(m)


def _value(m: Measure, value: float) -> str:
    return str(int(value)) if m.is_count else f"{value:.4f}"


def format_trec(result: Evaluation, selection: TrecSelection, *, per_query: bool = False) -> Iterator[str]:
    """trec_eval's output lines (without newlines) for ``result``: per topic with ``per_query``, then ``all``."""
    columns = [(m, result[m].tolist()) for m in selection.measures]
    if per_query:
        for i, topic in enumerate(result.topics):
            for m, values in columns:
                yield f"{_label(m):<22}\t{topic}\t{_value(m, values[i])}"
    if selection.runid:
        yield f"{'runid':<22}\tall\t{result.run_name or 'unknown'}"
    if selection.num_q:
        yield f"{'num_q':<22}\tall\t{len(result.topics)}"
    for m, _ in columns:
        yield f"{_label(m):<22}\tall\t{_value(m, result.mean(m))}"


def to_json(result: Evaluation, measures: Iterable[Measure] | None = None, *,
            per_query: bool = True) -> dict[str, Any]:
    """A JSON-ready dict: run name, topic count, means and (with ``per_query``) per-topic values."""
    chosen = list(measures) if measures is not None else result.measures
    out: dict[str, Any] = {
        "run": result.run_name, "num_q": len(result.topics),
        "all": {_label(m): result.mean(m) for m in chosen},
    }
    if per_query:
        out["topics"] = {t: {_label(m): float(result[m][i]) for m in chosen} for i, t in enumerate(result.topics)}
    return out
