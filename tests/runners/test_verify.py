"""``medqade verify`` as a library (:mod:`medqade.runners.verify`): a record's judge asked again
through Inspect on the sample release, with Inspect's ``mockllm`` playing the judge (a replay of
the stored labels, or of changed ones), and once against the real llama-cpp-python server
(``real_server``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from medqade.dataset.release import Release
from medqade.dataset.sources import open_release
from medqade.runners.judge import answer_order, judge_items
from medqade.runners.prompts import judge_user_message
from medqade.runners.run_settings import RunAborted, RunSettings
from medqade.runners.verify import labels_of_file, labels_of_store, system_prompt, verify
from medqade.scoring.intake import Limits
from medqade.scoring.policy import RateLimit, ResultsStore, Settings, Submitter, Upload, submit
from medqade.scoring.record import ScoreRecord
from medqade.vocab import LABELS

from .helpers import DATA, RESP

SETTINGS = RunSettings(model="replayed-judge", progress=False, concurrency=2)


@pytest.fixture(scope="module")
def release() -> Release:
    return open_release(str(DATA))


def _rows(release: Release) -> list[dict[str, Any]]:
    """A judge's per-question lines, each in an order of its own (not the runner's seed)."""
    rng = np.random.default_rng(8)
    students = release.roster.student_ids
    rows = []
    for qid in release.item_ids:
        row: dict[str, Any] = {
            "question_id": str(qid),
            "order": list(answer_order(qid, students, 99)),
        }
        row |= {k: str(rng.choice(LABELS)) for k in RESP} | {"difficulty": "Mittel"}
        rows.append(row)
    return rows


def _stored(release: Release, rows: Iterable[dict[str, Any]], root: Path) -> ScoreRecord:
    text = "".join(json.dumps(r) + "\n" for r in rows).encode()
    out = submit(
        release, [Upload(text, "run.jsonl", ".jsonl")], "judge", {"name": "Replayed"},
        Settings(resamples=0), store=ResultsStore(root, RateLimit(0, 1.0)),
        submitter=Submitter("cli"),
    )  # fmt: skip
    assert out.ok and out.record is not None, out.message
    return out.record


def _replay(release: Release, rows: list[dict[str, Any]], broken: str | None = None) -> Any:
    """A mockllm judge that answers each request with ``rows``' labels of that question, when
    the answers are shown in the row's order (else an unusable reply); ``broken``: this
    question gets an unparseable reply."""
    items = judge_items(release.questions, release.answers, release.roster.student_ids, 0)
    replies = {}
    for item, row in zip(items, rows, strict=True):
        texts = dict(zip(item.order, item.answers, strict=True))
        shown = [texts[s] for s in row["order"]]
        reply = {k: row[k] for k in (*RESP, "difficulty")}
        text = "kein JSON" if row["question_id"] == broken else json.dumps(reply)
        replies[judge_user_message(item.question, item.reference, shown)] = text

    def judge(messages: list[Any], *_: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", replies.get(messages[-1].text, "?"))
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)  # no tiktoken
        return out

    return get_model("mockllm/model", custom_outputs=judge)


def _flip(rows: list[dict[str, Any]], questions: int) -> list[dict[str, Any]]:
    """``rows`` with the first label of the first ``questions`` questions changed."""
    out = [dict(r) for r in rows]
    for r in out[:questions]:
        r["resp_1"] = LABELS[(LABELS.index(r["resp_1"]) + 1) % len(LABELS)]
    return out


def _run(release: Release, record: ScoreRecord, root: Path, judge: Any, **kw: Any) -> Any:
    sub = labels_of_store(record, release, root, Limits())
    return verify(record, release, sub, SETTINGS, questions=6, seed=3, model=judge, **kw)


def test_the_same_labels_in_the_stored_order_pass(release: Release, tmp_path: Path) -> None:
    rows = _rows(release)
    record = _stored(release, rows, tmp_path)
    found = _run(release, record, tmp_path, _replay(release, rows))
    v = found.verification
    assert v.passed and v.pa == 1.0 and v.kappa == 1.0 and v.pa_ci == (1.0, 1.0)
    assert v.questions == 6 and sorted(v.question_ids) == sorted(map(str, release.item_ids))
    assert v.answers == 30 and v.no_reply == 0 and v.reference_source == "bound"
    assert v.record_id == record.id and v.log == f"{record.id}-3.eval"
    assert found.log[:2] == b"PK"  # the Inspect log (.eval, a zip) of the re-run


def test_a_tenth_of_the_labels_changed_fails(release: Release, tmp_path: Path) -> None:
    rows = _rows(release)
    changed = _flip(rows, 3)  # 3 of 30 answers, in three questions
    record = _stored(release, changed, tmp_path)
    v = _run(release, record, tmp_path, _replay(release, rows)).verification
    assert v.pa == pytest.approx(0.9) and not v.passed
    assert v.pa_ci[1] is not None and v.pa_ci[1] < v.reference


def test_an_unparseable_reply_is_not_a_reproduction(release: Release, tmp_path: Path) -> None:
    rows = _rows(release)
    record = _stored(release, rows, tmp_path)
    judge = _replay(release, rows, broken=str(release.item_ids[0]))
    v = _run(release, record, tmp_path, judge).verification
    assert v.no_reply == 5 and v.pa == pytest.approx(25 / 30)  # counted as disagreements
    # one whole question of six: a third of the resamples leave it out, so the upper bound is
    # 1 and the rule cannot tell it from chance (a small K is weak; the default is 40)
    assert v.pa_ci[1] == 1.0 and v.passed


def test_a_failed_request_stops_the_verification(release: Release, tmp_path: Path) -> None:
    rows = _rows(release)
    record = _stored(release, rows, tmp_path)

    def down(*_: Any) -> ModelOutput:
        raise ConnectionError("the server went away")

    with pytest.raises(RunAborted, match="nothing was written"):
        _run(release, record, tmp_path, get_model("mockllm/model", custom_outputs=down))


def test_the_labels_must_be_the_records_own(release: Release, tmp_path: Path) -> None:
    rows = _rows(release)
    record = _stored(release, rows, tmp_path)
    other = "".join(json.dumps(r) + "\n" for r in _flip(rows, 1)).encode()
    with pytest.raises(ValueError, match="does not hold the labels record"):
        labels_of_file(record, release, other, "other.jsonl", Limits())
    same = "".join(json.dumps(r) + "\n" for r in rows).encode()
    assert labels_of_file(record, release, same, "run.jsonl", Limits()).n_rows == 6
    elsewhere = ScoreRecord.from_json({**record.to_json(), "dataset": {"hash": "0" * 64}})
    with pytest.raises(ValueError, match="give the release it was scored on"):
        labels_of_file(elsewhere, release, same, "run.jsonl", Limits())


def test_a_records_own_prompt_must_be_given_and_match() -> None:
    own = ScoreRecord.from_json({"meta": {"prompt": "own", "prompt_sha256": "a" * 64}})
    with pytest.raises(ValueError, match="its own prompt"):
        system_prompt(own, None)
    with pytest.raises(ValueError, match="not the prompt the record names"):
        system_prompt(own, b"Du bist ein Arzt.")
    import hashlib

    text = b"Du bist ein Arzt."
    mine = ScoreRecord.from_json({"meta": {"prompt_sha256": hashlib.sha256(text).hexdigest()}})
    assert system_prompt(mine, text) == "Du bist ein Arzt."
    assert "Richtig" in system_prompt(ScoreRecord.from_json({}), None)  # the official prompt


def _judged(call: Callable[..., int], server: Any, out: Path) -> None:
    argv = ["judge", "--model", "smollm2", "--base-url", server.base_url, "--data", str(DATA)]
    assert call([*argv, "--out", str(out), "--no-progress", "--concurrency", "1"]) == 0


@pytest.mark.real_server
def test_verify_against_the_real_server(release: Release, server: Any, tmp_path: Path) -> None:
    """SmolLM2 at temperature 0 decodes greedily: asked again in the stored order it repeats
    itself, and a tenth of its labels changed is caught (the CI check of issue 35)."""
    from medqade.cli import main

    run = tmp_path / "judge.jsonl"
    _judged(main, server, run)
    rows = [json.loads(line) for line in run.read_text(encoding="utf-8").splitlines()]
    settings = RunSettings(
        model="smollm2", base_url=server.base_url, progress=False, concurrency=1,
        max_tokens=256,
    )  # fmt: skip
    for labels, passes, root in (
        (rows, True, tmp_path / "a"),
        (_flip(rows, 3), False, tmp_path / "b"),
    ):
        record = _stored(release, labels, root)
        sub = labels_of_store(record, release, root, Limits())
        v = verify(record, release, sub, settings, questions=6, seed=1).verification
        assert v.passed is passes, v.line()
