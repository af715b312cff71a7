"""Reading samples: formats, field aliases, and errors naming file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjudge.data import read_samples
from ragjudge.errors import DataError


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_jsonl_with_ragas_names_label_and_extra_fields(tmp_path: Path) -> None:
    path = write(tmp_path / "d.jsonl", [
        json.dumps({"user_input": "q", "retrieved_contexts": ["c"], "response": "a", "label": 1, "source": "x"}),
        "",
        json.dumps({"id": 7, "question": "q2", "contexts": ["c2"], "answer": "a2", "ground_truth": "r"}),
    ])
    first, second = read_samples(path)
    assert (first.question, first.contexts, first.answer, first.label) == ("q", ["c"], "a", 1.0)
    assert first.meta == {"source": "x"}
    assert (second.id, second.reference) == ("7", "r")


def test_malformed_jsonl_line_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "d.jsonl", [json.dumps({"question": "q"}), '{"question": "q", "answer": ', "{}"])
    with pytest.raises(DataError) as caught:
        read_samples(path)
    assert caught.value.line == 2 and str(caught.value).startswith(f"{path}:2: invalid JSON")


def test_wrong_field_type_names_the_field(tmp_path: Path) -> None:
    path = write(tmp_path / "d.jsonl", [json.dumps({"question": "q"}), json.dumps({"contexts": [1, 2]})])
    with pytest.raises(DataError) as caught:
        read_samples(path)
    assert (caught.value.line, caught.value.field) == (2, "contexts.0")


def test_duplicate_id_names_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "d.jsonl", [json.dumps({"id": "a"}), json.dumps({"id": "b"}), json.dumps({"id": "a"})])
    with pytest.raises(DataError, match=r"d.jsonl:3, field 'id': duplicate id 'a' \(first at line 1\)"):
        read_samples(path)


def test_json_list_and_csv(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps([{"question": "q", "contexts": ["c"], "answer": "a"}]))
    assert read_samples(tmp_path / "d.json")[0].answer == "a"
    csv = tmp_path / "d.csv"
    csv.write_text('id,question,contexts,answer,retrieved_ids\n1,q,"[""c1"", ""c2""]",a,d1\n2,q,plain context,b,\n')
    one, two = read_samples(csv)
    assert one.contexts == ["c1", "c2"] and one.retrieved_ids == ["d1"]
    assert two.contexts == ["plain context"] and two.retrieved_ids is None


def test_unsupported_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="unsupported file type"):
        read_samples(tmp_path / "d.parquet")
    with pytest.raises(DataError, match="no such file"):
        read_samples(tmp_path / "none.jsonl")
