"""``medqade verify`` end to end on the sample release, with the stub server as the judge (it
labels each answer by its content, whatever the order): ``judge`` -> ``score --results`` ->
``verify`` -> ``score --verified --verification``. A faithful record passes, one with a tenth of
its labels changed fails, and only the passing verification lets a record be marked verified."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from medqade.cli import main
from servers.stub_server import StubServer

DATA = Path(__file__).resolve().parents[2] / "data" / "sample"
RESP = tuple(f"resp_{k}" for k in range(1, 6))


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[StubServer]:
    monkeypatch.setenv("MEDQADE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with StubServer() as server:
        yield server


def _judged(stub: StubServer, out: Path) -> list[dict[str, Any]]:
    """The stub's labels of the sample, with one of the 30 changed: the stub labels as the
    exact-match baseline does, and a results folder refuses a copy of a reference row; one
    answer in thirty, on one question of six, is within chance for the rule."""
    argv = ["judge", "--model", "stub-model", "--base-url", stub.base_url, "--data", str(DATA)]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    rows[-1]["resp_5"] = "Keine Angabe" if rows[-1]["resp_5"] != "Keine Angabe" else "Falsch"
    return rows


def _stored(rows: list[dict[str, Any]], path: Path, results: Path) -> Path:
    """Score ``rows`` (written to ``path``) into the results folder; the record's file."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    argv = ["score", str(path), "--data", str(DATA), "--results", str(results), "--resamples", "0"]
    assert main([*argv, "--name", "Stub judge"]) == 0
    (record,) = (results / "records").glob("*.json")
    return record


def _verify(stub: StubServer, record: Path, *extra: str) -> int:
    argv = ["verify", str(record), "--model", "stub-model", "--base-url", stub.base_url]
    return main([*argv, "--data", str(DATA), "--sample", "6", "--no-progress", *extra])


def _flipped(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A tenth of the 30 labels changed: the first label of three more questions."""
    out = [dict(r) for r in rows]
    for r in out[:3]:
        r["resp_1"] = "Falsch" if r["resp_1"] == "Richtig" else "Richtig"
    return out


def test_a_faithful_record_passes_and_a_changed_one_fails(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _judged(stub, tmp_path / "run.jsonl")
    good = _stored(rows, tmp_path / "good.jsonl", tmp_path / "a")
    capsys.readouterr()
    assert _verify(stub, good, "--seed", "4") == 0
    said = capsys.readouterr().out
    assert said.startswith("verification PASSED: PA 0.967") and "seed 4" in said
    found = json.loads((tmp_path / "a" / "verifications" / f"{good.stem}-4.json").read_text())
    assert found["passed"] is True and found["questions"] == 6 and found["answers"] == 30
    assert found["seed"] == 4 and found["reference"] == {"pa": 0.98, "source": "bound"}
    assert (tmp_path / "a" / "verifications" / found["log"]).read_bytes()[:2] == b"PK"
    asked = len(stub.requests)
    assert _verify(stub, good, "--seed", "4") == 2  # never over an earlier verification
    assert "never replaced" in capsys.readouterr().err and len(stub.requests) == asked
    bad = _stored(_flipped(rows), tmp_path / "bad.jsonl", tmp_path / "b")
    capsys.readouterr()
    assert _verify(stub, bad, "--seed", "4", "--json") == 1
    failed = json.loads(capsys.readouterr().out)
    assert failed["passed"] is False and failed["pa"] == pytest.approx(26 / 30)
    assert failed["pa_ci"][1] < failed["reference"]["pa"]


def test_only_a_passing_verification_marks_a_record_verified(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _judged(stub, tmp_path / "run.jsonl")
    good = _stored(rows, tmp_path / "good.jsonl", tmp_path / "a")
    bad = _stored(_flipped(rows), tmp_path / "bad.jsonl", tmp_path / "b")
    assert _verify(stub, good, "--seed", "1") == 0
    assert _verify(stub, bad, "--seed", "1") == 1
    passed = tmp_path / "a" / "verifications" / f"{good.stem}-1.json"
    failed = tmp_path / "b" / "verifications" / f"{bad.stem}-1.json"
    capsys.readouterr()

    def score(labels: str, *extra: str) -> int:
        argv = ["score", str(tmp_path / labels), "--data", str(DATA), "--resamples", "0"]
        return main([*argv, "--verified", *extra])

    assert score("bad.jsonl", "--verification", str(failed)) == 2  # fail -> refused
    assert "were not reproduced" in capsys.readouterr().err
    assert score("bad.jsonl", "--verification", str(passed)) == 2  # another file's pass
    assert "made from other labels" in capsys.readouterr().err
    assert score("good.jsonl") == 2
    assert "only when its labels were reproduced" in capsys.readouterr().err
    out = tmp_path / "verified.json"
    assert score("good.jsonl", "--verification", str(passed), "--out", str(out)) == 0  # pass
    assert json.loads(out.read_text())["meta"]["verified"] is True


def test_a_record_outside_a_results_folder_needs_its_labels_and_an_out(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _judged(stub, tmp_path / "run.jsonl")
    record = _stored(rows, tmp_path / "good.jsonl", tmp_path / "a")
    loose = tmp_path / "record.json"
    loose.write_bytes(record.read_bytes())
    assert _verify(stub, loose) == 2
    assert "give --out DIR" in capsys.readouterr().err
    out = tmp_path / "checks"
    labels = str(tmp_path / "good.jsonl")
    assert _verify(stub, loose, "--labels", labels, "--out", str(out), "--seed", "2") == 0
    assert (out / "verifications" / f"{record.stem}-2.json").is_file()
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(r) + "\n" for r in _flipped(rows)), encoding="utf-8")
    assert _verify(stub, loose, "--labels", str(other), "--out", str(out)) == 2
    assert "does not hold the labels record" in capsys.readouterr().err
