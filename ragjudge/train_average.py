"""Tail averaging of weights (``ragjudge train --average-from``): the judge saved is the running mean of the
weights over the last part of the run instead of its last point.

An average of the points a run visits late, after each optimizer step, lies nearer the middle of the flat
region they wander in than any one of them (stochastic weight averaging, Izmailov et al. 2018). SWAD (Cha et al.
2021) found dense averaging of that kind lifts accuracy on domains the training data does not cover, which is
the judge's situation: it trains on NLI pairs and is measured on dialogue, summaries and claims. MiniLM has no
batch normalisation, so the mean needs no statistics recomputed after it.

Only the parameters that train are averaged (with ``--freeze-embeddings`` the word embeddings stay the base's);
the mean is kept in float32 and written to the checkpoint, so a resumed run goes on with the same mean.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragjudge.errors import ConfigError
from ragjudge.judges.nli_runtime import import_torch

__all__ = ["WeightAverage"]

FILE = "average.pt"


class WeightAverage:
    """A running uniform mean of a model's trained parameters."""

    def __init__(self, model: Any) -> None:
        self.names = [name for name, p in model.named_parameters() if p.requires_grad]
        self.mean: dict[str, Any] = {}
        self.count = 0

    def update(self, model: Any) -> None:
        """Fold the model's current weights into the mean."""
        torch, _ = import_torch()
        params = dict(model.named_parameters())
        with torch.no_grad():
            if not self.mean:
                self.mean = {name: params[name].detach().float().clone() for name in self.names}
            else:
                weight = 1.0 / (self.count + 1)
                for name in self.names:
                    self.mean[name].lerp_(params[name].detach().float(), weight)
        self.count += 1

    @contextmanager
    def applied(self, model: Any) -> Iterator[None]:
        """The model carries the mean inside the block (to validate or save it) and its own weights after."""
        if not self.count:
            yield
            return
        torch, _ = import_torch()
        params = dict(model.named_parameters())
        own = {name: params[name].detach().clone() for name in self.names}
        with torch.no_grad():
            for name in self.names:
                params[name].copy_(self.mean[name])
        try:
            yield
        finally:
            with torch.no_grad():
                for name in self.names:
                    params[name].copy_(own[name])

    def save(self, directory: Path) -> None:
        torch, _ = import_torch()
        torch.save({"count": self.count, "mean": self.mean}, directory / FILE)

    def load(self, directory: Path) -> None:
        """The mean a checkpoint holds; none when the run had not reached the averaged part yet."""
        path = directory / FILE
        if not path.is_file():
            return
        torch, _ = import_torch()
        saved = torch.load(path, weights_only=True)
        if set(saved["mean"]) != set(self.names):
            raise ConfigError(f"{path} averages other parameters than this model trains; delete the checkpoint "
                              "or use another --output", key="output")
        self.count, self.mean = int(saved["count"]), saved["mean"]
