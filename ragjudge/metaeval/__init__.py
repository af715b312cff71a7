"""Judge meta-evaluation: how a judge agrees with human labels and with other judges, with intervals.

* :func:`meta_evaluate` scores labeled data with every judge through the normal pipeline, picks each judge's
  threshold on calibration data, and reports AUC-ROC, balanced accuracy, F1 of the unfaithful class, Cohen's
  kappa and Spearman against the labels, and kappa and Spearman between judges, with bootstrap intervals.
* :func:`write_outputs` writes the JSON, the Markdown and the figures.
* :func:`ppi_mean` is prediction-powered inference (ARES) for a mean from judge scores and a few human labels.

The statistics live in :mod:`.stats`, thresholds in :mod:`.threshold`, bootstrap in :mod:`.bootstrap`.
"""

from __future__ import annotations

from ragjudge.metaeval.core import MetaEvaluation, Settings, meta_evaluate
from ragjudge.metaeval.outputs import write_end_to_end, write_outputs
from ragjudge.metaeval.ppi import PPIEstimate, ppi_mean
from ragjudge.metaeval.specs import JudgeChoice, parse_judge_spec

__all__ = [
    "JudgeChoice", "MetaEvaluation", "PPIEstimate", "Settings", "meta_evaluate", "parse_judge_spec",
    "ppi_mean", "write_end_to_end", "write_outputs",
]
