"""Third-party judges through the entry-point path: discovery, conflicts and pinning, broken plugins, listing.

Each test "installs" throwaway distributions by writing a ``*.dist-info`` directory and a module on a temporary
path put on ``sys.path``: importlib.metadata finds them exactly as it finds a pip-installed plugin.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ragjudge.cli import main
from ragjudge.config import build_metrics, parse_config
from ragjudge.errors import ConfigError, PluginError, UnknownJudgeError
from ragjudge.judges.registry import (
    JudgeOptionsError,
    available_judges,
    create_judge,
    judge_report,
    load_judge_class,
)

GOOD = '''
from collections.abc import Sequence
from pydantic import Field
from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.records import Pair, Task, Verdict

class {cls}(Judge):
    name = "{name}"
    tasks = frozenset({{Task.SUPPORT, Task.RELEVANCE}})
    approximate_tasks = frozenset({{Task.RELEVANCE}})
    volatile_options = frozenset({{"workers"}})

    class Options(JudgeOptions):
        level: float = Field(0.5, ge=0.0, le=1.0, description="the score every pair gets")
        workers: int = Field(1, ge=1)

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        labels = {{Task.SUPPORT: "supported", Task.RELEVANCE: "relevant"}}
        return [Verdict(score=self.options.level, label=labels[p.task]) for p in pairs]
'''

WRONG_BASE = '''
class NotAJudge:
    name = "wrongbase"
'''

# Options that are a pydantic model, but not a JudgeOptions (so unknown options would pass silently).
OPTIONS_NOT_JUDGE_OPTIONS = GOOD.format(name="badoptions", cls="PluginJudge").replace(
    "class Options(JudgeOptions):", "class Options(BaseModel):").replace(
    "from pydantic import Field", "from pydantic import BaseModel, Field")

IMPORT_ERROR = '''
import ragjudge_no_such_dependency  # the plugin's dependency is not installed
'''

Install = Callable[..., None]


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """``install(dist, module, source, {entry name: object})`` writes a distribution onto ``sys.path``."""
    monkeypatch.syspath_prepend(str(tmp_path))
    modules: list[str] = []

    def _install(dist: str, module: str, source: str, entries: dict[str, str], version: str = "1.0") -> None:
        info = tmp_path / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        lines = "\n".join(f"{name} = {module}:{obj}" for name, obj in entries.items())
        (info / "entry_points.txt").write_text(f"[ragjudge.judges]\n{lines}\n")
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        modules.append(module)
        importlib.invalidate_caches()

    yield _install
    for module in modules:
        sys.modules.pop(module, None)


def good(name: str, cls: str = "PluginJudge") -> str:
    return GOOD.format(name=name, cls=cls)


def test_a_plugin_is_listed_from_metadata_without_importing_it(install: Install) -> None:
    install("acme-judges", "acme_judges", good("acme"), {"acme": "PluginJudge"}, version="2.3")
    entry = next(e for e in available_judges() if e.name == "acme")
    assert (entry.distribution, entry.dist_version, entry.qualified) == ("acme-judges", "2.3", "acme-judges:acme")
    assert "acme_judges" not in sys.modules
    judge = create_judge("acme", {"level": 0.25})
    assert judge.judge([judge_pair()])[0].score == 0.25


def judge_pair() -> object:
    from ragjudge.records import Pair

    return Pair.support("Paris is in France.", ["Paris is the capital of France."])


@pytest.mark.parametrize("pin", ["acme-judges:acme", "acme_judges:acme", "Acme.Judges:acme"])
def test_a_pin_selects_by_distribution_whatever_its_spelling(install: Install, pin: str) -> None:
    install("acme-judges", "acme_judges", good("acme"), {"acme": "PluginJudge"})
    assert load_judge_class(pin).name == "acme"


def test_a_pin_to_a_distribution_that_has_no_such_judge_is_unknown(install: Install) -> None:
    install("acme-judges", "acme_judges", good("acme"), {"acme": "PluginJudge"})
    with pytest.raises(UnknownJudgeError, match="'ragjudge:acme'.*acme-judges:acme"):
        create_judge("ragjudge:acme")


@pytest.fixture
def twins(install: Install) -> None:
    """Two distributions that both register a judge called ``twin``."""
    install("alpha-judges", "alpha_judges", good("twin", "AlphaJudge"), {"twin": "AlphaJudge"})
    install("beta-judges", "beta_judges", good("twin", "BetaJudge"), {"twin": "BetaJudge"})


@pytest.mark.usefixtures("twins")
def test_a_name_two_distributions_claim_is_a_conflict_naming_both() -> None:
    with pytest.raises(PluginError, match="alpha-judges:twin and beta-judges:twin.*pin one"):
        create_judge("twin")
    assert type(create_judge("beta-judges:twin")).__name__ == "BetaJudge"
    assert type(create_judge("alpha-judges:twin")).__name__ == "AlphaJudge"
    conflicted = [r for r in judge_report() if r.entry.name == "twin"]
    assert [r.entry.distribution for r in conflicted] == ["alpha-judges", "beta-judges"]
    assert all(r.conflict and r.judge_class is not None for r in conflicted)


@pytest.mark.usefixtures("twins")
def test_config_pins_one_of_two_conflicting_judges() -> None:
    pinned = parse_config({"judge": {"name": "beta-judges:twin"}, "metrics": ["faithfulness"]})
    assert type(build_metrics(pinned)[0].judge).__name__ == "BetaJudge"
    with pytest.raises(ConfigError, match="judge.name.*alpha-judges:twin and beta-judges:twin"):
        build_metrics(parse_config({"judge": "twin", "metrics": ["faithfulness"]}))


@pytest.mark.usefixtures("twins")
def test_listing_marks_both_sides_of_a_conflict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judges", "list"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("twin")]
    assert len(lines) == 2
    assert "CONFLICT (pin as alpha-judges:twin)" in lines[0] and "from alpha-judges 1.0" in lines[0]
    assert "CONFLICT (pin as beta-judges:twin)" in lines[1] and "from beta-judges 1.0" in lines[1]


def test_verbose_listing_shows_origin_tasks_and_options(install: Install, capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    install("acme-judges", "acme_judges", good("acme"), {"acme": "PluginJudge"}, version="2.3")
    assert main(["judges", "list", "--verbose"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("acme "))
    block = lines[at:at + 5]
    assert "tasks: relevance~, support" in out and "from acme-judges 2.3 (acme_judges:PluginJudge)" in out
    assert block[1].strip() == "judge version 1; approximate tasks: relevance"
    assert block[3].strip() == "level: float (>= 0.0, <= 1.0), default 0.5 -- the score every pair gets"
    assert block[4].strip() == "workers: int (>= 1), default 1, volatile"


BROKEN = {
    "wrongbase": (WRONG_BASE, "NotAJudge", "is not a subclass of ragjudge.judges.base.Judge"),
    "badoptions": (OPTIONS_NOT_JUDGE_OPTIONS, "PluginJudge", "PluginJudge.Options is not a JudgeOptions model"),
    "importerror": (IMPORT_ERROR, "PluginJudge",
                    "failed to import: ModuleNotFoundError: No module named 'ragjudge_no_such_dependency'"),
}


@pytest.fixture
def broken(install: Install) -> None:
    """One distribution with three broken judges (and one good one)."""
    for name, (source, obj, _) in BROKEN.items():
        install(f"broken-{name}", f"broken_{name}", source, {name: obj})
    install("fine-judges", "fine_judges", good("fine"), {"fine": "PluginJudge"})


@pytest.mark.usefixtures("broken")
@pytest.mark.parametrize("name", list(BROKEN))
def test_each_broken_plugin_has_its_own_error_naming_its_entry_point(name: str) -> None:
    source, obj, message = BROKEN[name]
    with pytest.raises(PluginError) as caught:
        create_judge(name)
    text = str(caught.value)
    assert f"entry point ragjudge.judges:{name} = broken_{name}:{obj} (broken-{name})" in text
    assert message in text
    others = [m for n, (_, _, m) in BROKEN.items() if n != name]
    assert not any(m in text for m in others)


def test_options_that_do_not_validate_name_the_entry_point(install: Install) -> None:
    install("strict-judges", "strict_judges", good("strict").replace(
        'level: float = Field(0.5, ge=0.0, le=1.0,', 'level: float = Field(ge=0.0, le=1.0,'), {"strict": "PluginJudge"})
    with pytest.raises(JudgeOptionsError, match=r"ragjudge.judges:strict \(strict-judges\).*level: Field required"):
        create_judge("strict")
    with pytest.raises(JudgeOptionsError, match=r"ragjudge.judges:strict .*level: Input should be less than"):
        create_judge("strict", {"level": 7})
    assert create_judge("strict", {"level": 0.1}).options.model_dump()["level"] == 0.1


@pytest.mark.usefixtures("broken")
def test_listing_shows_broken_plugins_with_their_errors_and_loads_the_rest(capsys: pytest.CaptureFixture[str]
                                                                           ) -> None:
    assert main(["judges", "list", "--verbose"]) == 1
    lines = capsys.readouterr().out.splitlines()
    for name, (_, _, message) in BROKEN.items():
        at = next(i for i, line in enumerate(lines) if line.startswith(name))
        assert "BROKEN" in lines[at] and f"from broken-{name} 1.0" in lines[at]
        assert lines[at + 1].strip().startswith(f"error: entry point ragjudge.judges:{name} ")
        assert message in lines[at + 1]
    for name in ("fine", "overlap", "tfidf"):
        assert any(line.startswith(name) and " ok " in line for line in lines), name
    assert len(judge_report()) == len(available_judges())
