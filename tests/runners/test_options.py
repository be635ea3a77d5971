"""The options ``medqade answer`` and ``medqade judge`` share (:mod:`medqade.runners.options`):
their defaults, their types, and what a runner's ``--out`` may never overwrite."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from medqade.runners.options import ANSWER_MAX_TOKENS, add_run_arguments, runner_inputs


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    add_run_arguments(p, ANSWER_MAX_TOKENS, default_concurrency=3)
    return p


def _parse(*argv: str) -> argparse.Namespace:
    return _parser().parse_args(["--model", "m", "--out", "o.jsonl", *argv])


def test_defaults() -> None:
    args = _parse()
    assert (args.model, args.out, args.base_url) == ("m", Path("o.jsonl"), None)
    assert (args.temperature, args.max_tokens, args.concurrency) == (0.0, ANSWER_MAX_TOKENS, 3)
    assert (args.extra_body, args.limit, args.dry_run, args.timeout) == (None, None, False, 120.0)


def test_typed_options() -> None:
    args = _parse("--temperature", "none", "--max-tokens", "none", "--extra-body", '{"top_k": 1}')
    assert (args.temperature, args.max_tokens, args.extra_body) == (None, None, {"top_k": 1})
    assert _parse("--temperature", "0.7", "--max-tokens", "64").max_tokens == 64


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--temperature", "warm"], "expected a number or 'none' (server default), got 'warm'"),
        (["--max-tokens", "0"], "must be at least 1, got 0"),
        (["--max-tokens", "viele"], "expected a whole number or 'none' (no limit)"),
        (["--extra-body", "{x"], "not valid JSON"),
        (["--extra-body", "[1]"], "expected a JSON object"),
    ],
)
def test_bad_values_are_refused_saying_why(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        _parse(*argv)
    assert message in capsys.readouterr().err


def test_runner_inputs_name_what_the_run_reads(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("x", encoding="utf-8")
    args = _parse("--data", str(tmp_path), "--prompt-file", str(prompt))
    assert runner_inputs(args) == [
        (tmp_path, "the release it reads (--data)"),
        (prompt, "the prompt file (--prompt-file)"),
    ]
    assert runner_inputs(_parse("--data", str(tmp_path / "absent"))) == []
