"""``medqade answer`` end to end against the stub server on the sample data."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.runners.prompts import STUDENT_SYSTEM_PROMPT
from servers.stub_server import StubServer

from .helpers import DATA, SAMPLE_IDS, SECRET, cli, forge, read_jsonl, user_messages


def test_answer_jsonl_rows(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "answers.jsonl"
    assert cli("answer", stub, out) == 0
    rows = read_jsonl(out)
    assert rows == [{"question_id": q, "answer": stub.student_answer} for q in SAMPLE_IDS]
    assert stub.n_requests == 6
    body = stub.requests[0]
    assert body["model"] == "stub-model" and body["temperature"] == 0
    assert "response_format" not in body
    assert body["messages"][0] == {"role": "system", "content": STUDENT_SYSTEM_PROMPT}
    assert "Der längste Röhrenknochen des Menschen ist der ___." in user_messages(stub)


def test_answer_csv_utf8_with_failure_empty(stub: StubServer, tmp_path: Path) -> None:
    stub.student_answer = "Nervus medianus (ä)"
    stub.add_fault("empty", match="Paracetamol", times=3)
    out = tmp_path / "answers.csv"
    assert cli("answer", stub, out) == 0
    with open(out, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["question_id"] for r in rows] == SAMPLE_IDS
    assert rows[0]["answer"] == "Nervus medianus (ä)"
    assert rows[1]["answer"] == ""
    assert out.read_bytes()[:3] != b"\xef\xbb\xbf"  # no BOM


def test_answer_jsonl_failure_is_null_with_error_and_raw(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.add_fault("empty", match="Paracetamol", times=3)
    out = tmp_path / "answers.jsonl"
    assert cli("answer", stub, out) == 0
    row = read_jsonl(out)[1]
    assert row == {"question_id": "S-C02", "answer": None, "error": row["error"], "raw": ""}
    assert "empty answer" in row["error"]
    assert stub.n_requests == 6  # no re-ask within the run; a rerun asks it again
    assert "1 missing (1 invalid output, 0 errors)" in capsys.readouterr().out


def test_answer_split_and_limit(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    assert cli("answer", stub, out, "--split", "extension", "--limit", "3") == 0
    assert [r["question_id"] for r in read_jsonl(out)] == ["S-E01", "S-E02", "S-E03"]
    assert stub.n_requests == 3


def test_answer_prompt_file(stub: StubServer, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Eigener Systemprompt.", encoding="utf-8")
    assert cli("answer", stub, tmp_path / "a.jsonl", "--prompt-file", str(prompt)) == 0
    assert stub.requests[0]["messages"][0]["content"] == "Eigener Systemprompt."


def test_answer_dry_run_sends_nothing(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a.jsonl"
    assert cli("answer", stub, out, "--dry-run") == 0
    printed = capsys.readouterr().out
    assert stub.n_requests == 0
    assert "nothing was sent" in printed and "Röhrenknochen" in printed
    assert STUDENT_SYSTEM_PROMPT.splitlines()[0] in printed
    assert SECRET not in printed
    assert not out.exists() and not Path(str(out) + ".cache").exists()


def test_answer_out_extension(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("answer", stub, tmp_path / "a.txt") == 2
    assert "use a .jsonl or .csv file name" in capsys.readouterr().err
    assert stub.n_requests == 0


def test_answer_resume_asks_only_the_missing(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    assert cli("answer", stub, out, "--limit", "2") == 0
    assert cli("answer", stub, out) == 0
    assert stub.n_requests == 2 + 4
    assert len(read_jsonl(out)) == 6


FORGED_ANSWERS = [
    ("a.jsonl", b"[1, 2]\n", "line 1: expected a JSON object", "[1, 2]"),
    ("a.jsonl", b"not json\n", "line 1: malformed JSON", "not json"),
    ("a.jsonl", b'{"answer": "x"}\n', "line 1: a row needs a text question_id", '"answer"'),
    ("a.jsonl", b'{"question_id": "S-C01", "answer": {}}\n', "a text (or empty) answer", "{}"),
    ("a.csv", b"id,text\nS-C01,x\n", "line 1: the header is not question_id,answer", "id,text"),
    ("a.csv", b"question_id,answer\n\xfe\n", "line 2: the line is not UTF-8", "0xFE"),
]


@pytest.mark.parametrize(("name", "data", "message", "value"), FORGED_ANSWERS)
def test_answer_resume_from_a_forged_output_names_the_line(
    stub: StubServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    data: bytes,
    message: str,
    value: str,
) -> None:
    """An earlier output whose marker vouches for rows medqade answer never writes (issue 38):
    one line naming the file, the line, its text and what to do; nothing asked or written."""
    out = tmp_path / name
    assert cli("answer", stub, out, "--limit", "1") == 0
    forge(out, data)
    stub.reset()
    capsys.readouterr()
    assert cli("answer", stub, out, "--limit", "1") == 2
    err = capsys.readouterr().err
    assert f"{out}, line " in err and message in err and value in err, err
    assert f"its marker .{name}.medqade.json says medqade answer wrote this file" in err
    assert "Traceback" not in err
    assert stub.n_requests == 0 and out.read_bytes() == data


def test_answer_with_inspect_progress_display(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["answer", "--model", "m", "--base-url", stub.base_url, "--data", str(DATA)]
    assert main([*argv, "--out", str(tmp_path / "a.jsonl")]) == 0
    assert "items 6: 6 ok" in capsys.readouterr().out
    assert len(read_jsonl(tmp_path / "a.jsonl")) == 6


def test_answer_named_key_variable_unset(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("answer", stub, tmp_path / "a.jsonl", "--api-key-env", "MEDQADE_NO_SUCH_KEY") == 2
    assert "environment variable MEDQADE_NO_SUCH_KEY is not set" in capsys.readouterr().err
    assert stub.n_requests == 0
