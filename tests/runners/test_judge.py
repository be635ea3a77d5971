"""``medqade judge`` end to end against the stub server on the sample data."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from medqade.dataset.sources import open_release
from medqade.runners.judge import answer_order
from medqade.runners.prompts import JUDGE_SYSTEM_PROMPT
from medqade.vocab import DIFFICULTIES, LABELS, RICHTIG
from servers.stub_server import StubServer

from .helpers import (
    DATA,
    RESP,
    SAMPLE_IDS,
    SECRET,
    STUDENTS,
    check_judgments,
    cli,
    forge,
    read_jsonl,
    user_messages,
)


def _summary_count(text: str, name: str) -> int:
    match = re.search(rf"{name} (\d+)", text)
    assert match, text
    return int(match.group(1))


def test_judge_writes_the_contract(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out) == 0
    rows = check_judgments(out, SAMPLE_IDS)
    assert all(r["evaluator"] == "stub-model" for r in rows)
    assert all(set(r) == {"evaluator", "question_id", "order", *RESP, "difficulty"} for r in rows)
    assert stub.n_requests == 6


def test_judge_order_is_recorded_and_matches_the_prompt(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out) == 0
    release = open_release(DATA)
    answers = release.answers.set_index(["question_id", "model"])["answer"]
    questions = release.questions.set_index("question_id")
    sent = user_messages(stub)
    assert len(sent) == 6
    messages = {
        q: next(m for m in sent if str(questions.at[q, "question"]) in m) for q in SAMPLE_IDS
    }
    for row in read_jsonl(out):
        qid = row["question_id"]
        shown = re.findall(r"^Antwort (\d): (.*)$", messages[qid], re.MULTILINE)
        assert [text for _, text in shown] == [answers[(qid, m)] for m in row["order"]]
        # the stub says Richtig exactly where the answer equals the reference
        for k, model in enumerate(row["order"], start=1):
            reference = str(questions.at[qid, "reference_answer"])
            same = str(answers[(qid, model)]).casefold() == reference.casefold()
            assert (row[f"resp_{k}"] == RICHTIG) == same


def test_judge_order_is_seeded_and_independent_of_limit(stub: StubServer, tmp_path: Path) -> None:
    orders = {}
    for name, extra in {
        "a": ["--seed", "1"],
        "b": ["--seed", "1", "--concurrency", "1"],
        "c": ["--seed", "2"],
        "d": ["--seed", "1", "--split", "extension", "--limit", "2"],
    }.items():
        out = tmp_path / f"{name}.jsonl"
        assert cli("judge", stub, out, *extra) == 0
        orders[name] = {r["question_id"]: r["order"] for r in read_jsonl(out)}
    assert orders["a"] == orders["b"]
    assert orders["a"] != orders["c"]
    assert orders["d"] == {q: orders["a"][q] for q in ("S-E01", "S-E02")}
    assert orders["a"]["S-C01"] == list(answer_order("S-C01", STUDENTS, 1))


def test_judge_request_has_strict_schema_and_parameters(stub: StubServer, tmp_path: Path) -> None:
    extra = ["--reasoning-effort", "none", "--extra-body", '{"top_k": 1}', "--limit", "1"]
    assert cli("judge", stub, tmp_path / "j.jsonl", *extra) == 0
    body = stub.requests[0]
    assert body["messages"][0] == {"role": "system", "content": JUDGE_SYSTEM_PROMPT}
    assert body["temperature"] == 0 and body["reasoning_effort"] == "none"
    assert body["top_k"] == 1
    rf = body["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is True
    props = rf["json_schema"]["schema"]["properties"]
    assert [props[k]["enum"] for k in RESP] == [list(LABELS)] * 5
    assert props["difficulty"]["enum"] == list(DIFFICULTIES)


def test_judge_temperature_none_and_no_response_format(stub: StubServer, tmp_path: Path) -> None:
    extra = ["--temperature", "none", "--response-format", "none", "--limit", "1"]
    assert cli("judge", stub, tmp_path / "j.jsonl", *extra) == 0
    assert "temperature" not in stub.requests[0]
    assert "response_format" not in stub.requests[0]
    check_judgments(tmp_path / "j.jsonl", SAMPLE_IDS[:1])


@pytest.mark.parametrize("fault", ["429", "500"])
def test_judge_retries_transient_errors(stub: StubServer, tmp_path: Path, fault: str) -> None:
    """Inspect's retries (its backoff waits seconds: one retry per test)."""
    stub.add_fault(fault, match="Röhrenknochen", times=1)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--concurrency", "6") == 0
    rows = check_judgments(out, SAMPLE_IDS)
    assert all(r["resp_1"] is not None for r in rows)
    assert stub.n_requests == 6 + 1


def test_judge_retries_timeouts(stub: StubServer, tmp_path: Path) -> None:
    stub.add_fault("slow", match="Röhrenknochen")  # the stub sleeps 2 s
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--timeout", "1") == 0
    assert check_judgments(out, SAMPLE_IDS)[0]["resp_1"] is not None
    assert stub.n_requests == 6 + 1


def test_judge_retries_are_bounded(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.add_fault("500", match="Paracetamol", times=10)  # after the format probe
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--max-retries", "1", "--concurrency", "1") == 0
    row = check_judgments(out, SAMPLE_IDS)[1]
    assert row["resp_1"] is None and row["error"] == "HTTP 500: internal error"
    assert stub.n_requests == 6 + 1
    captured = capsys.readouterr()
    assert "1 missing (0 invalid output, 1 errors: 1 HTTP 500)" in captured.out
    assert "1 of 6 items are missing" in captured.err


def test_judge_bad_request_is_not_retried(stub: StubServer, tmp_path: Path) -> None:
    stub.add_fault("400", match="Paracetamol")  # the second item, after a success
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--concurrency", "1") == 0
    assert check_judgments(out, SAMPLE_IDS)[1]["error"] == "HTTP 400: bad request"
    assert stub.n_requests == 6


@pytest.mark.parametrize("fault", ["bad_json", "bad_label", "missing_key", "empty"])
def test_judge_invalid_output_becomes_null_with_raw(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    stub.add_fault(fault, match="Röhrenknochen", times=10)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out) == 0
    rows = check_judgments(out, SAMPLE_IDS)
    bad = rows[0]
    assert all(bad[k] is None for k in (*RESP, "difficulty"))
    assert bad["error"].startswith("invalid")
    assert isinstance(bad["raw"], str)
    if fault == "bad_label":
        assert "Vielleicht" in bad["raw"]
    assert all(r["resp_1"] is not None for r in rows[1:])
    assert stub.n_requests == 6  # Inspect does not re-ask: a rerun does
    assert "1 missing (1 invalid output, 0 errors)" in capsys.readouterr().out


def test_judge_reports_usage(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("judge", stub, tmp_path / "j.jsonl") == 0
    printed = capsys.readouterr().out
    assert re.search(r"tokens \d+ \(\d+ prompt \+ \d+ completion\)", printed)


def test_judge_key_never_written(stub: StubServer, tmp_path: Path) -> None:
    stub.add_fault("400", match="Paracetamol", times=10)
    stub.add_fault("bad_json", match="Röhrenknochen", times=10)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--max-retries", "0") == 0
    assert set(stub.authorizations) == {f"Bearer {SECRET}"}
    written = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert len(written) == 2  # the output and its marker; Inspect's log was temporary
    for path in written:
        assert SECRET not in path.read_text(encoding="utf-8"), path


def test_judge_auth_error_aborts(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.require_key = "another-key"
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--concurrency", "1") == 2
    err = capsys.readouterr().err
    assert f"the server refused the request at {stub.base_url} (HTTP 401" in err
    assert SECRET not in err
    assert not out.exists()
    assert stub.n_requests == 0  # refused at the model list, before any request


def test_judge_resume_after_failures_asks_only_the_missing(
    stub: StubServer, tmp_path: Path
) -> None:
    stub.add_fault("500", match="Paracetamol", times=1)  # after the format probe
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--max-retries", "0", "--concurrency", "1") == 0
    assert check_judgments(out, SAMPLE_IDS)[1]["resp_1"] is None
    first = read_jsonl(out)
    stub.reset()
    assert cli("judge", stub, out) == 0
    assert stub.n_requests == 1
    assert "Paracetamol" in user_messages(stub)[0]
    second = check_judgments(out, SAMPLE_IDS)
    assert second[1]["resp_1"] is not None
    assert second[:1] + second[2:] == first[:1] + first[2:]


def test_judge_invalid_output_is_asked_again_by_a_rerun(stub: StubServer, tmp_path: Path) -> None:
    stub.add_fault("bad_json", match="Röhrenknochen", times=1)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out) == 0
    assert check_judgments(out, SAMPLE_IDS)[0]["raw"].startswith("Hier ist")
    stub.reset()
    assert cli("judge", stub, out) == 0
    assert stub.n_requests == 1
    assert check_judgments(out, SAMPLE_IDS)[0]["resp_1"] is not None


FORGED_JUDGMENTS = [
    (b"[1, 2]\n", "line 1: expected a JSON object", "[1, 2]"),
    (b"not json\n", "line 1: malformed JSON (Expecting value at column 1)", "not json"),
    (b'{"question_id": ["S-C01"], "order": []}\n', "no text question_id", '["S-C01"]'),
    (b'{"question_id": "S-C01", "order": 5}\n', "order is not a list of model ids", '"order": 5'),
    (b'{"question_id": "S-C01", "order": ["a"], "resp_1": "ja"}\n', "resp_1 is not one", "ja"),
    (b'{"question_id": "S-C01", "order": [], "difficulty": {}}\n', "difficulty is not", "{}"),
    (b"\xff\n", "line 1: the line is not UTF-8 text", "byte 0xFF"),
]


@pytest.mark.parametrize(("data", "message", "value"), FORGED_JUDGMENTS)
def test_judge_resume_from_a_forged_output_names_the_line(
    stub: StubServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: bytes,
    message: str,
    value: str,
) -> None:
    """An earlier output whose marker vouches for lines medqade judge never writes (issue 38:
    a JSON list ended in AttributeError, other text in "Expecting value: line 1 column 1"):
    one line naming the file, the line, its text and what to do; nothing is asked or written."""
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--limit", "1") == 0
    forge(out, data)
    stub.reset()
    capsys.readouterr()
    assert cli("judge", stub, out, "--limit", "1") == 2
    err = capsys.readouterr().err
    assert f"{out}, line " in err and message in err and value in err, err
    assert "its marker .j.jsonl.medqade.json says medqade judge wrote this file" in err
    assert "move j.jsonl and .j.jsonl.medqade.json away" in err
    assert "Traceback" not in err and "Expecting value: line" not in err
    assert stub.n_requests == 0 and out.read_bytes() == data


def test_judge_changed_settings_ask_again(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out) == 0
    prompt = tmp_path / "rubric.txt"
    prompt.write_text("Bewerten Sie die Antworten.", encoding="utf-8")
    assert cli("judge", stub, out, "--prompt-file", str(prompt)) == 0
    assert cli("judge", stub, out, "--temperature", "0.5") == 0
    assert stub.n_requests == 18


def test_judge_concurrency_gives_the_same_file(stub: StubServer, tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert cli("judge", stub, a, "--concurrency", "1") == 0
    assert cli("judge", stub, b, "--concurrency", "6") == 0
    assert a.read_bytes() == b.read_bytes()


def test_judge_dry_run_sends_nothing(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--dry-run") == 0
    printed = capsys.readouterr().out
    assert stub.n_requests == 0
    assert "Antwort 5:" in printed and '"strict": true' in printed
    assert not out.exists()


def test_judge_evaluator_id(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--evaluator", "gemini-3-flash-preview", "--limit", "1") == 0
    assert read_jsonl(out)[0]["evaluator"] == "gemini-3-flash-preview"


def test_judge_out_must_be_jsonl(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("judge", stub, tmp_path / "j.csv") == 2
    assert "judgments are written as JSON lines" in capsys.readouterr().err


def test_judge_extra_body_must_be_an_object(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli("judge", stub, tmp_path / "j.jsonl", "--extra-body", "[1]")
    assert "expected a JSON object" in capsys.readouterr().err


def test_judge_interrupted_writes_nothing_and_the_rerun_asks_the_rest(
    stub: StubServer, tmp_path: Path
) -> None:
    """Ctrl-C in a real run: exit 130, the output untouched; the rerun keeps the earlier
    output's rows and asks the others."""
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--limit", "2") == 0
    stub.reset()
    stub.slow_seconds = 5.0
    stub.add_fault("slow", times=100)
    argv = [sys.executable, "-m", "medqade", "judge", "--model", "stub-model"]
    argv += ["--base-url", stub.base_url, "--data", str(DATA), "--out", str(out)]
    argv += ["--concurrency", "1", "--no-progress"]
    before = out.read_bytes()
    proc = subprocess.Popen(argv, env=os.environ.copy(), stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and stub.n_requests < 1:
            assert proc.poll() is None, "the run ended before it could be interrupted"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out.read_bytes() == before
    stub.reset()
    stub.slow_seconds = 0.0
    assert cli("judge", stub, out) == 0
    assert stub.n_requests == 4
    check_judgments(out, SAMPLE_IDS)
