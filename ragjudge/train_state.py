"""Training checkpoints: enough to resume an interrupted ``ragjudge train`` run where it stopped.

``output/checkpoint`` holds the model (``save_pretrained``), the tokenizer, the optimizer state, torch's RNG
state and ``state.json`` (epoch, step, batch within the epoch, best AUC, history, seconds spent, and the run's
identity: the data hash and the recipe that turns the data into batches, which a resumed run must share).
The epoch order of batches is a pure function of the seed and the epoch, so skipping the batches already done
puts a resumed run on exactly the path it was on.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ragjudge.errors import ConfigError
from ragjudge.judges.nli_runtime import import_torch

__all__ = ["TrainState", "load_checkpoint", "save_checkpoint"]


@dataclass
class TrainState:
    """Where a run is: counters, the best validation AUC so far, and the evaluation history."""

    epoch: int = 0
    step: int = 0
    batch_in_epoch: int = 0
    best_auc: float = float("-inf")
    bad_evals: int = 0
    loss: float = 0.0
    seconds: float = 0.0
    stopped: str = ""
    history: list[dict[str, Any]] = field(default_factory=list)
    resumed_from: Path | None = None

    def restore_optimizer(self, optimizer: Any, checkpoint: Path) -> None:
        """Load the optimizer and RNG state when this state came from a checkpoint."""
        if self.resumed_from is None:
            return
        torch, _ = import_torch()
        saved = torch.load(checkpoint / "optimizer.pt", weights_only=False)
        optimizer.load_state_dict(saved["optimizer"])
        torch.set_rng_state(saved["rng"])


def save_checkpoint(
    model: Any, tokenizer: Any, optimizer: Any, state: TrainState, directory: Path, identity: dict[str, Any]
) -> None:
    """Write the checkpoint; state.json is replaced last, so a crash mid-write leaves the old one readable."""
    torch, _ = import_torch()
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    saved = {"optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()}
    torch.save(saved, directory / "optimizer.pt")
    body = {k: v for k, v in asdict(state).items() if k not in {"resumed_from", "stopped"}}
    body.update(identity)
    tmp = directory / "state.json.tmp"
    tmp.write_text(json.dumps(body, indent=1), encoding="utf-8")
    tmp.replace(directory / "state.json")


def load_checkpoint(directory: Path, identity: dict[str, Any]) -> TrainState | None:
    """The state saved in ``directory``; None when there is none; an error when it is of another run.

    ``identity`` is ``{"data_sha256", "recipe"}``. A checkpoint from before recipes were recorded is checked on
    its data only.
    """
    path = directory / "state.json"
    if not path.is_file():
        return None
    body = json.loads(path.read_text(encoding="utf-8"))
    if body.pop("data_sha256", None) != identity["data_sha256"]:
        raise ConfigError(f"{directory} is a checkpoint of training on other data; delete it or use another "
                          "--output", key="output")
    saved = body.pop("recipe", None)
    if saved is not None and saved != identity["recipe"]:
        now = identity["recipe"]
        keys = [*saved, *(k for k in now if k not in saved)]  # a setting dropped from the recipe shows too
        changed = ", ".join(f"{k} {saved.get(k)!r} -> {now.get(k)!r}" for k in keys if saved.get(k) != now.get(k))
        raise ConfigError(f"{directory} is a checkpoint of a run with other settings ({changed}); resume with "
                          "the same settings, or delete it or use another --output", key="output")
    return TrainState(**body, resumed_from=directory)
