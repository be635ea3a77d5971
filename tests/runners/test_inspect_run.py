"""``medqade judge`` / ``medqade answer`` on Inspect (``runners/inspect_run``) against the stub
that mimics what real servers do differently.

Format fallback, the default token limit, one line naming the base URL when the server cannot
be reached or lists another model, exit status 1 when nothing succeeded, resume keyed by the
run's settings.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.runners import inspect_run
from medqade.runners.options import ANSWER_MAX_TOKENS, JUDGE_MAX_TOKENS
from medqade.runners.prompts import judge_schema
from servers.llama_server import free_port
from servers.stub_server import StubServer

from .helpers import DATA, SAMPLE_IDS, check_judgments, cli, read_jsonl

SCHEMA = judge_schema()["json_schema"]["schema"]


def test_format_refused_json_schema_steps_down_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(refuse_formats=frozenset({"json_schema"})) as stub:
        out = tmp_path / "j.jsonl"
        assert cli("judge", stub, out, "--concurrency", "1") == 0
        bodies = stub.requests
    assert all(r["resp_1"] is not None for r in check_judgments(out, SAMPLE_IDS))
    assert len(bodies) == 6 + 1  # one refused request for the whole run, not retried
    assert bodies[0]["response_format"]["type"] == "json_schema"
    assert bodies[1]["messages"] == bodies[0]["messages"]
    later = [b["response_format"] for b in bodies[1:]]
    assert later == [{"type": "json_object", "schema": SCHEMA}] * 6
    assert "response format: json_object with schema\n" in capsys.readouterr().out


def test_format_refused_everywhere_ends_at_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(refuse_formats=frozenset({"json_schema", "json_object"})) as stub:
        out = tmp_path / "j.jsonl"
        assert cli("judge", stub, out) == 0
        formats = [b.get("response_format", {}).get("type") for b in stub.requests]
    assert formats == ["json_schema", "json_object", "json_object", *[None] * 6]
    assert all(r["resp_1"] is not None for r in check_judgments(out, SAMPLE_IDS))
    assert "response format: none\n" in capsys.readouterr().out


def test_format_explicit_choice_starts_lower_and_keeps_extra_body(tmp_path: Path) -> None:
    with StubServer(refuse_formats=frozenset({"json_schema"})) as stub:
        out = tmp_path / "j.jsonl"
        extra = ["--response-format", "json_object", "--extra-body", '{"top_k": 1}']
        assert cli("judge", stub, out, *extra) == 0
        assert stub.n_requests == 6
        assert {b["response_format"]["type"] for b in stub.requests} == {"json_object"}
        assert {b.get("top_k") for b in stub.requests} == {1}


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


def test_changed_max_tokens_asks_again(stub: StubServer, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    assert cli("answer", stub, out) == 0
    assert cli("answer", stub, out) == 0
    assert stub.n_requests == 6  # the rerun keeps every answered row
    assert cli("answer", stub, out, "--max-tokens", "8") == 0
    assert stub.n_requests == 12


@pytest.mark.parametrize("command", ["judge", "answer"])
@pytest.mark.parametrize("skip_check", [False, True])
def test_connection_refused_stops_and_names_the_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, skip_check: bool
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "o.jsonl"
    argv = [command, "--model", "m", "--base-url", url, "--data", str(DATA), "--out", str(out)]
    argv += ["--no-progress"]
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
    stub.add_fault("400", times=100)
    out = tmp_path / "o.jsonl"
    assert cli(command, stub, out, "--max-retries", "0") == 1
    captured = capsys.readouterr()
    assert "items 6: 0 ok, 6 missing (0 invalid output, 6 errors: 6 HTTP 400)" in captured.out
    assert f"error: no item succeeded against {stub.base_url} (6 HTTP 400)" in captured.err
    assert [r["error"] for r in read_jsonl(out)] == ["HTTP 400: bad request"] * 6


def test_no_item_succeeded_by_class(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.add_fault("bad_json", match="Röhrenknochen", times=10)
    stub.add_fault("400", times=100)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out, "--max-retries", "0", "--response-format", "none") == 1
    captured = capsys.readouterr()
    assert "0 ok, 6 missing (1 invalid output, 5 errors: 5 HTTP 400)" in captured.out
    assert "(1 invalid output, 5 HTTP 400)" in captured.err


def test_some_items_succeeded_exits_zero(stub: StubServer, tmp_path: Path) -> None:
    stub.add_fault("400", match="Röhrenknochen", times=100)
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


def test_another_model_asks_again(stub: StubServer, tmp_path: Path) -> None:
    """The stub ignores the name, like llama-cpp-python; another name still asks again."""
    out = tmp_path / "a.jsonl"
    assert cli("answer", stub, out) == 0
    argv = ["answer", "--model", "another", "--base-url", stub.base_url, "--data", str(DATA)]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    assert stub.n_requests == 12


def test_sigint_seen_sets_its_event_and_keeps_the_handler_before() -> None:
    import os
    import signal

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), inspect_run.sigint_seen() as seen:
        os.kill(os.getpid(), signal.SIGINT)
    assert seen.is_set()
    assert signal.getsignal(signal.SIGINT) is before


def test_a_ctrl_c_that_inspect_turns_into_a_sample_error_still_interrupts(
    stub: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C that lands inside one sample's request can become that sample's error while
    the run goes on (a CI flake of the interrupt test): the run still ends as interrupted,
    exit 130, nothing written."""
    import os
    import signal

    import inspect_ai

    real_eval = inspect_ai.eval

    def swallowing_eval(*args: object, **kwargs: object) -> object:
        # as Inspect may: the interrupt becomes one sample's error and the run goes on
        with contextlib.suppress(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
        return real_eval(*args, **kwargs)

    monkeypatch.setattr(inspect_ai, "eval", swallowing_eval)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out) == 130
    assert not out.exists()


def test_the_commands_run_inspect_without_the_live_event_buffer(
    stub: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``log_realtime`` off (issue 36: a quarter of the CPU per request): the log is a
    temporary file nobody views live; the rows come out the same."""
    import inspect_ai

    real_eval = inspect_ai.eval
    seen: list[object] = []

    def recording_eval(*args: object, **kwargs: object) -> object:
        seen.append(kwargs.get("log_realtime"))
        return real_eval(*args, **kwargs)

    monkeypatch.setattr(inspect_ai, "eval", recording_eval)
    out = tmp_path / "j.jsonl"
    assert cli("judge", stub, out) == 0
    assert seen == [False]
    assert len(out.read_text(encoding="utf-8").splitlines()) == len(SAMPLE_IDS)
