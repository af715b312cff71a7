"""trec_eval-exact ranking measures, computed for all topics at once with numpy.

What a measure is (:class:`Measure`, notation ``nDCG@10``, ``P(rel=2)@5``, trec_eval names ``ndcg_cut_10``) is
separate from how it is computed (:mod:`.engine`). Entry points:

- :func:`evaluate` a run against qrels (file paths, :class:`Qrels`/:class:`Run`, dicts or DataFrames), with
  trec_eval's options; :func:`read_qrels` / :func:`read_run` read TREC files fast;
- :func:`compare` two runs with a paired t-test, a randomization test and a bootstrap interval;
- per-query helpers over plain lists (:func:`precision_at_k`, :func:`ndcg_at_k`, ...) and
  :func:`evaluate_samples` for ragjudge samples, on the same engine.

Semantics, from trec_eval's source: ranking by score descending, ties by docno descending (the rank column is
ignored); grades < 0 are judged non-relevant; a topic without relevant documents counts with 0; topics missing
from the run are left out unless ``complete``; duplicate (topic, document) rows in a run or in qrels are an
error, as they are for trec_eval.
"""

from __future__ import annotations

from ragjudge.retrieval.data import Qrels, Run
from ragjudge.retrieval.evaluation import Evaluation, as_qrels, as_run, evaluate
from ragjudge.retrieval.frames import qrels_from_dataframe, run_from_dataframe
from ragjudge.retrieval.measures import Measure, parse_measure
from ragjudge.retrieval.samples import (
    average_precision,
    evaluate_rankings,
    evaluate_samples,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)
from ragjudge.retrieval.stats import Comparison, bootstrap_ci, compare, paired_t_test, randomization_test
from ragjudge.retrieval.trec_files import read_qrels, read_run

__all__ = [
    "Comparison",
    "Evaluation",
    "Measure",
    "Qrels",
    "Run",
    "as_qrels",
    "as_run",
    "average_precision",
    "bootstrap_ci",
    "compare",
    "evaluate",
    "evaluate_rankings",
    "evaluate_samples",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg_at_k",
    "paired_t_test",
    "parse_measure",
    "precision_at_k",
    "qrels_from_dataframe",
    "randomization_test",
    "read_qrels",
    "read_run",
    "recall_at_k",
    "reciprocal_rank",
    "run_from_dataframe",
]
