"""scoring.log_rows: the rows and header made from a parsed Inspect log's samples, and the
messages for a doctored sample."""

from __future__ import annotations

import json

import pytest

from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring import parse_submission
from medqade.scoring.intake.inspect_log import log_rows
from medqade.scoring.intake.log_rows import error_text, rows_of_log

from ..eval_zip import (
    edit_json,
    members_of,
    write_zip,
)


def _refusal(data: bytes, release: Release, name: str = "run.eval") -> str:
    with pytest.raises(InputError) as caught:
        parse_submission(data, name, release)
    text = "\n".join(str(p) for p in caught.value.problems)
    assert name in text and "Traceback" not in text
    return text


@pytest.mark.parametrize(
    ("labels", "shape"),
    [(["Richtig", "Falsch"], "a list of 2"), ({"resp_1": "Richtig"}, "a JSON object")],
)
def test_labels_that_do_not_fit_the_order_name_the_sample(
    judge_log: bytes, sample: Release, labels: object, shape: str
) -> None:
    members = members_of(judge_log)
    victim = next(m for m in members if m.name.startswith("samples/"))

    def damage(obj: dict) -> None:
        for score in obj["scores"].values():
            score["metadata"]["labels"] = labels

    text = _refusal(write_zip(edit_json(members, (victim.name,), damage)), sample)
    qid = json.loads(victim.data)["id"]
    assert f"sample {qid!r} (epoch 1)" in text and shape in text
    assert "not a list of 5 labels" in text and "zip()" not in text


@pytest.mark.parametrize(
    ("message", "traceback", "text"),
    [
        ("Error code: 500 - {'message': 'internal error'}", "", "HTTP 500: internal error"),
        ("Error code: 429", "", "HTTP 429: no message"),
        ("boom", "openai.APITimeoutError: Request timed out.", "timeout"),
        ("x", "httpx.ConnectError", "connection error: the server could not be reached"),
        ("\nValueError: bad reply\nmore", "", "error: ValueError: bad reply"),
        ("", "", "error: unknown"),
    ],
)
def test_error_text_says_what_failed_in_the_runners_words(
    message: str, traceback: str, text: str
) -> None:
    assert error_text(message, traceback) == text


def test_rows_of_a_log_object_are_the_rows_of_its_file(judge_log: bytes, tmp_path) -> None:
    """The runner's path (an EvalLog in memory) and the upload path (the log's bytes) make the
    same rows and the same header."""
    from inspect_ai.log import read_eval_log

    path = tmp_path / "run.eval"
    path.write_bytes(judge_log)
    from_object = rows_of_log(read_eval_log(str(path)), "run.eval")
    from_bytes = log_rows(judge_log, "run.eval")
    assert from_object.kind == from_bytes.kind == "judge"
    assert len(from_object.rows) == 6
    assert [dict(r) for r in from_object.rows] == [dict(r) for r in from_bytes.rows]
    assert from_object.meta["model_id"] == from_bytes.meta["model_id"] == "model"
