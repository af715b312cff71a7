"""The Judge contract: every judge, built-in or third-party, is a subclass of :class:`Judge`.

A judge declares a class-level ``name``, a nested pydantic ``Options`` model, the ``tasks`` it can judge, and
implements one batch-first method, :meth:`Judge.judge_batch`, that takes many pairs and returns one verdict per
pair, in order. Batching is where NLI padding, LLM concurrency and TF-IDF vectorisation come from, so a judge
always sees a whole batch. Callers use :meth:`Judge.judge`, which checks the contract around that method.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from ragjudge.batches import PairBatch
from ragjudge.errors import JudgeTaskError, PluginError, RagJudgeError
from ragjudge.records import Pair, Task, Verdict

__all__ = ["Judge", "JudgeOptions"]


class JudgeOptions(BaseModel):
    """Base of every judge's ``Options``: unknown options are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Judge(ABC):
    """A judge of ``support`` (do premises entail a claim?) and/or ``relevance`` (does a text address a query?).

    Subclasses set ``name``, ``tasks`` and (usually) a nested ``Options(JudgeOptions)`` class, and implement
    :meth:`judge_batch`. ``version`` is part of the fingerprint: bump it when a change alters verdicts.
    ``volatile_options`` names options that cannot change a verdict (batch size, device, concurrency); they are
    left out of the fingerprint so caches stay valid across them. ``pause_gc``: the judge runs in-process,
    fast, and makes no reference cycles, so the pipeline may pause Python's cyclic garbage collector over a
    whole batch with it (the heuristic judges set it; a judge with network I/O or a model should not).
    """

    name: ClassVar[str]
    version: ClassVar[str] = "1"
    tasks: ClassVar[frozenset[Task]] = frozenset()
    approximate_tasks: ClassVar[frozenset[Task]] = frozenset()
    volatile_options: ClassVar[frozenset[str]] = frozenset()
    pause_gc: ClassVar[bool] = False
    Options: ClassVar[type[JudgeOptions]] = JudgeOptions

    def __init__(self, options: JudgeOptions | Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        if isinstance(options, JudgeOptions):
            if kwargs:
                options = options.model_copy(update=kwargs)
            self.options: JudgeOptions = self.Options.model_validate(options.model_dump())
        else:
            self.options = self.Options.model_validate({**(options or {}), **kwargs})

    # -- the contract ------------------------------------------------------------------------------------

    @abstractmethod
    def judge_batch(self, pairs: Sequence[Pair]) -> Sequence[Verdict]:
        """Judge every pair; return exactly one verdict per pair, in the same order.

        An item the judge cannot decide gets ``Verdict.failed(reason)``; never raise for one bad item.
        Pairs all have a task in ``self.tasks`` (checked by :meth:`judge` before this is called). ``pairs``
        may be a :class:`~ragjudge.batches.PairBatch`, whose columns a vectorised judge can read directly; a
        list of :class:`Verdict` or a :class:`~ragjudge.batches.VerdictBatch` are both fine to return.
        """

    def judge(self, pairs: Sequence[Pair]) -> Sequence[Verdict]:
        """Judge ``pairs`` through :meth:`judge_batch`, enforcing the contract.

        A task the judge does not declare raises :class:`JudgeTaskError`. If the batch method itself raises,
        every pair of the batch gets a failed verdict carrying the error, so a run never loses items. A wrong
        number of verdicts is a bug in the judge and raises :class:`PluginError`.
        """
        if not len(pairs):
            return []
        tasks = set(pairs.tasks) if isinstance(pairs, PairBatch) else {pair.task for pair in pairs}
        for task in tasks - self.tasks:
            raise JudgeTaskError(f"judge {self.name!r} cannot judge {task.value!r}; it judges {self._task_list()}")
        try:
            verdicts = self.judge_batch(pairs)
        except RagJudgeError:
            raise
        except Exception as error:  # one broken batch must not lose the run: record it on every item
            reason = f"{self.name} judge raised {type(error).__name__}: {error}"
            return [Verdict.failed(reason) for _ in pairs]
        if len(verdicts) != len(pairs):
            raise PluginError(f"judge {self.name!r} returned {len(verdicts)} verdicts for {len(pairs)} pairs")
        return verdicts

    def supports(self, task: Task | str) -> bool:
        """Whether this judge declares ``task``."""
        return Task(task) in self.tasks

    def close(self) -> None:  # noqa: B027 - optional hook, deliberately not abstract
        """Release what the judge holds (clients, models). Idempotent; the default holds nothing."""

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- identity ----------------------------------------------------------------------------------------

    @property
    def fingerprint(self) -> dict[str, Any]:
        """What identifies this judge's verdicts: :meth:`identity` and its hash as ``id``."""
        body = self.identity()
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()
        return {**body, "id": digest[:16]}

    def identity(self) -> dict[str, Any]:
        """Name, version and verdict-relevant options; a subclass adds what else decides its verdicts."""
        options = self.options.model_dump(mode="json", exclude=set(self.volatile_options))
        return {"name": self.name, "version": self.version, "options": options}

    def _task_list(self) -> str:
        return ", ".join(sorted(task.value for task in self.tasks)) or "nothing"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"
