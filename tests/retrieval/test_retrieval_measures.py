"""The measure notation: one string in config, CLI and code, parsed and printed back the same."""

from __future__ import annotations

import pytest

from ragjudge.retrieval import Measure, parse_measure

CANONICAL = ["nDCG@10", "nDCG", "P@5", "R@100", "RR", "RR@10", "AP", "AP@10", "Rprec", "Success@1", "NumRet",
             "NumRel", "NumRelRet", "nDCG(gain=exponential)@10", "P(rel=2)@5", "nDCG(rel=2,gain=exponential)",
             "R(rel=0.5)@3"]


@pytest.mark.parametrize("text", CANONICAL)
def test_notation_round_trips(text: str) -> None:
    assert str(parse_measure(text)) == text
    assert parse_measure(str(parse_measure(text))) == parse_measure(text)


@pytest.mark.parametrize(("trec", "notation"), [
    ("ndcg_cut_10", "nDCG@10"), ("ndcg_cut.10", "nDCG@10"), ("P_5", "P@5"), ("P.5", "P@5"),
    ("recall_100", "R@100"), ("recip_rank", "RR"), ("map", "AP"), ("map_cut_10", "AP@10"), ("ndcg", "nDCG"),
    ("Rprec", "Rprec"), ("success_1", "Success@1"), ("num_ret", "NumRet"), ("num_rel", "NumRel"),
    ("num_rel_ret", "NumRelRet"),
])
def test_trec_eval_names(trec: str, notation: str) -> None:
    measure = parse_measure(trec)
    assert str(measure) == notation
    assert measure.trec_name == trec.replace(".", "_")


@pytest.mark.parametrize(("alias", "notation"), [
    ("MRR", "RR"), ("MAP", "AP"), ("ndcg@10", "nDCG@10"), ("NDCG@10", "nDCG@10"), ("Hit@3", "Success@3"),
    ("precision@5", "P@5"), ("Recall@20", "R@20"), ("nDCG(gain=exp)@3", "nDCG(gain=exponential)@3"),
    (" AP ", "AP"),
])
def test_aliases(alias: str, notation: str) -> None:
    assert str(parse_measure(alias)) == notation


@pytest.mark.parametrize("text", ["P", "R", "Success", "Rprec@5", "NumRet@3", "nDCG(gain=cubic)@5",
                                  "P(foo=1)@5", "bpref", "P@0", "AP(gain=exponential)", "P(rel)@5",
                                  "P(rel=x)@5", "NumRet(rel=2)", "nDCG@-1", "", "gm_map"])
def test_bad_measures_are_refused_with_the_text(text: str) -> None:
    with pytest.raises(ValueError):
        parse_measure(text)


def test_measures_without_a_trec_eval_name() -> None:
    assert parse_measure("RR@10").trec_name is None
    assert parse_measure("nDCG(gain=exponential)@10").trec_name is None
    assert parse_measure("P(rel=2)@5").trec_name == "P_5"  # trec_eval sets the threshold globally (-l)


def test_measures_are_small_frozen_values() -> None:
    a, b = parse_measure("nDCG@10"), Measure("nDCG", cutoff=10)
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    with pytest.raises(AttributeError):
        a.cutoff = 5  # type: ignore[misc]
    assert parse_measure(a) is a
    assert parse_measure("num_rel").is_count and not parse_measure("P@5").is_count
