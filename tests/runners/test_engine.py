"""What real servers do differently, against the stub that mimics them (``runners/engine``).

Format negotiation, the default token limit, early stops that name the base URL, the model
check, non-zero exits when nothing succeeded, and re-asks that are not identical requests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.runners.engine import REJECTED_ITEMS_TO_STOP, format_ladder
from medqade.runners.llama_server import free_port
from medqade.runners.options import ANSWER_MAX_TOKENS, JUDGE_MAX_TOKENS
from medqade.runners.prompts import judge_schema
from medqade.runners.stub_server import StubServer

from .helpers import DATA, SAMPLE_IDS, check_judgments, cli, read_jsonl

SCHEMA = judge_schema()["json_schema"]["schema"]


def _cache_records(out: Path) -> list[dict[str, object]]:
    return read_jsonl(Path(str(out) + ".cache") / "responses.jsonl")


def test_format_ladder_steps_from_json_schema_to_none() -> None:
    names = [name for name, _ in format_ladder(judge_schema())]
    assert names == ["json_schema", "json_object with schema", "json_object", "none"]
    rungs = dict(format_ladder(judge_schema()))
    assert rungs["json_object with schema"] == {"type": "json_object", "schema": SCHEMA}
    assert rungs["json_object"] == {"type": "json_object"} and rungs["none"] is None
    assert [n for n, _ in format_ladder({"type": "json_object"})] == ["json_object", "none"]
    assert format_ladder(None) == (("none", None),)


def test_format_refused_json_schema_steps_down_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(refuse_formats=frozenset({"json_schema"})) as stub:
        out = tmp_path / "j.jsonl"
        assert cli("judge", stub, out, "--concurrency", "1") == 0
        bodies = stub.requests
    assert all(r["resp_1"] is not None for r in check_judgments(out, SAMPLE_IDS))
    assert len(bodies) == 6 + 1  # one refused request for the whole run
    assert bodies[0]["response_format"]["type"] == "json_schema"
    assert bodies[1]["messages"] == bodies[0]["messages"]
    later = [b["response_format"] for b in bodies[1:]]
    assert later == [{"type": "json_object", "schema": SCHEMA}] * 6
    printed = capsys.readouterr().out
    assert "response format: json_object with schema\n" in printed
    assert "json_schema refused (HTTP 500" in printed
    assert {r["response_format"] for r in _cache_records(out)} == {"json_object with schema"}


def test_format_refused_concurrently_settles_for_every_worker(tmp_path: Path) -> None:
    with StubServer(refuse_formats=frozenset({"json_schema"})) as stub:
        out = tmp_path / "j.jsonl"
        assert cli("judge", stub, out, "--concurrency", "6") == 0
        kinds = [b["response_format"].get("schema") is not None for b in stub.requests]
    assert all(r["resp_1"] is not None for r in check_judgments(out, SAMPLE_IDS))
    assert sum(kinds) == 6 and 7 <= len(kinds) <= 12


def test_format_refused_everywhere_ends_at_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(refuse_formats=frozenset({"json_schema", "json_object"})) as stub:
        out = tmp_path / "j.jsonl"
        assert cli("judge", stub, out, "--concurrency", "1") == 0
        formats = [b.get("response_format", {}).get("type") for b in stub.requests]
    assert formats == ["json_schema", "json_object", "json_object", *[None] * 6]
    assert all(r["resp_1"] is not None for r in check_judgments(out, SAMPLE_IDS))
    assert "response format: none\n" in capsys.readouterr().out


def test_format_explicit_choice_starts_lower(tmp_path: Path) -> None:
    with StubServer(refuse_formats=frozenset({"json_schema"})) as stub:
        out = tmp_path / "j.jsonl"
        assert cli("judge", stub, out, "--response-format", "json_object") == 0
        assert stub.n_requests == 6
        assert {b["response_format"]["type"] for b in stub.requests} == {"json_object"}


@pytest.mark.parametrize(
    ("command", "default"), [("judge", JUDGE_MAX_TOKENS), ("answer", ANSWER_MAX_TOKENS)]
)
def test_max_tokens_default_option_and_none(
    stub: StubServer, tmp_path: Path, command: str, default: int
) -> None:
    for name, extra, expected in [
        ("a", [], default),
        ("b", ["--max-tokens", "7"], 7),
        ("c", ["--max-tokens", "none"], None),
    ]:
        stub.reset()
        assert cli(command, stub, tmp_path / f"{name}.jsonl", "--limit", "2", *extra) == 0
        assert [b.get("max_tokens") for b in stub.requests] == [expected] * 2


def test_max_tokens_renamed_when_the_server_asks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(require_max_completion_tokens=True) as stub:
        out = tmp_path / "a.jsonl"
        assert cli("answer", stub, out, "--concurrency", "1") == 0
        bodies = stub.requests
    assert len(bodies) == 6 + 1
    assert [b.get("max_completion_tokens") for b in bodies[1:]] == [ANSWER_MAX_TOKENS] * 6
    assert not any("max_tokens" in b for b in bodies[1:])
    assert "max_tokens refused (HTTP 400" in capsys.readouterr().out


def test_max_tokens_is_part_of_the_cache_key(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    assert cli("answer", stub, out) == 0
    assert cli("answer", stub, out, "--max-tokens", "8") == 0
    assert stub.n_requests == 12


@pytest.mark.parametrize("command", ["judge", "answer"])
def test_rejected_requests_stop_the_run(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    stub.add_fault("400", times=100)
    out = tmp_path / "o.jsonl"
    assert cli(command, stub, out, "--concurrency", "1") == 2
    err = capsys.readouterr().err
    assert f"the server rejected the request at {stub.base_url} (HTTP 400: bad request)" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert stub.n_requests == REJECTED_ITEMS_TO_STOP
    assert not out.exists()


@pytest.mark.parametrize("command", ["judge", "answer"])
@pytest.mark.parametrize("skip_check", [False, True])
def test_connection_refused_stops_and_names_the_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, skip_check: bool
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "o.jsonl"
    argv = [command, "--model", "m", "--base-url", url, "--data", str(DATA), "--out", str(out)]
    argv += ["--no-progress", "--backoff", "5"]  # a retry would take seconds
    argv += ["--skip-model-check"] if skip_check else []
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"cannot reach the server at {url} (connection error" in err
    assert "check --base-url" in err and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("command", ["judge", "answer"])
def test_no_item_succeeded_exits_non_zero(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    stub.add_fault("500", times=100)
    out = tmp_path / "o.jsonl"
    assert cli(command, stub, out, "--max-retries", "1") == 1
    captured = capsys.readouterr()
    assert "items 6: 0 ok, 6 missing (0 invalid output, 6 errors: 6 HTTP 500)" in captured.out
    assert f"error: no item succeeded against {stub.base_url} (6 HTTP 500)" in captured.err
    assert [r["error"] for r in read_jsonl(out)] == ["HTTP 500: internal error"] * 6
    assert stub.n_requests == 12


def test_no_item_succeeded_by_class(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.slow_seconds = 0.5
    stub.add_fault("bad_json", match="Röhrenknochen", times=10)
    stub.add_fault("slow", match="Paracetamol", times=10)
    stub.add_fault("500", times=100)
    out = tmp_path / "j.jsonl"
    argv = ["--max-retries", "0", "--max-invalid", "0", "--timeout", "0.2"]
    assert cli("judge", stub, out, *argv) == 1
    captured = capsys.readouterr()
    assert "0 ok, 6 missing (1 invalid output, 5 errors: 4 HTTP 500, 1 timeout)" in captured.out
    assert "(1 invalid output, 4 HTTP 500, 1 timeout)" in captured.err


def test_some_items_succeeded_exits_zero(stub: StubServer, tmp_path: Path) -> None:
    stub.add_fault("500", match="Röhrenknochen", times=100)
    assert cli("answer", stub, tmp_path / "a.jsonl", "--max-retries", "0") == 0


def test_model_check_refuses_an_unlisted_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(models=("smollm2", "other")) as stub:
        out = tmp_path / "a.jsonl"
        assert cli("answer", stub, out) == 2
        err = capsys.readouterr().err
        assert f"--model 'stub-model' is not served at {stub.base_url}" in err
        assert "it serves smollm2, other" in err
        assert stub.n_requests == 0 and not out.exists()
        assert cli("answer", stub, out, "--skip-model-check") == 0
        assert stub.n_requests == 6


@pytest.mark.parametrize("listed", ["stub-model", "models/stub-model"])
def test_model_check_accepts_a_listed_model(tmp_path: Path, listed: str) -> None:
    with StubServer(models=(listed,)) as stub:
        assert cli("judge", stub, tmp_path / "j.jsonl", "--limit", "1") == 0
        assert stub.n_requests == 1


def test_cache_is_keyed_by_the_model(stub: StubServer, tmp_path: Path) -> None:
    """The stub ignores the name, like llama-cpp-python; another name is still a miss."""
    out = tmp_path / "a.jsonl"
    assert cli("answer", stub, out) == 0
    argv = ["answer", "--model", "another", "--base-url", stub.base_url, "--data", str(DATA)]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    assert stub.n_requests == 12
    assert sorted({str(r["model"]) for r in _cache_records(out)}) == ["another", "stub-model"]


def test_reask_quotes_the_problem_and_differs(stub: StubServer, tmp_path: Path) -> None:
    stub.add_fault("missing_key", match="Röhrenknochen", times=1)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--limit", "1") == 0
    first, second = stub.requests
    assert second["messages"][:2] == first["messages"]
    bad = json.loads(second["messages"][2]["content"])
    assert second["messages"][2]["role"] == "assistant" and "difficulty" not in bad
    follow_up = second["messages"][3]
    assert follow_up["role"] == "user" and "missing keys: difficulty" in follow_up["content"]
    assert check_judgments(out, SAMPLE_IDS[:1])[0]["difficulty"] is not None


def test_reask_cache_key_is_the_first_request(stub: StubServer, tmp_path: Path) -> None:
    stub.add_fault("bad_json", match="Röhrenknochen", times=1)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out) == 0
    stub.reset()
    assert cli("judge", stub, out) == 0
    assert stub.n_requests == 0
