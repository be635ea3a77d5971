"""Space submissions and hygiene: copies of reference rows, dry runs under the rate limit,
real file names, bounded temporary files and keyed account hashes."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

from medqade.dataset.release import Release

from .helpers import (
    EVALUATOR,
    Running,
    judge_frame,
    make_state,
    submit_args,
    write_variant,
)

USER = "some-hf-user"


# --- copies of reference rows ----------------------------------------------------------------


def test_copy_of_a_paper_evaluator_is_refused(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    path = tmp_path / "copied.csv"
    judge_frame(sample_release).to_csv(path, index=False)
    for dry in (True, False):
        outcome = state.submit(path, "judge", {"name": "Mine"}, USER, validate_only=dry)
        assert not outcome.ok
        assert outcome.message.startswith("copied.csv: the same content as the paper evaluator")
        assert f"({EVALUATOR})" in outcome.message and "not scored again" in outcome.message
    assert state.store.records() == []


def test_copy_of_a_paper_student_is_refused(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    answers = sample_release.answers
    path = tmp_path / "answers.csv"
    answers[answers["model"] == "qwen3:4b"][["question_id", "answer"]].to_csv(path, index=False)
    outcome = state.submit(path, "answers", {"name": "Mine"}, USER)
    assert (
        not outcome.ok and "the paper student" in outcome.message and "qwen3:4b" in outcome.message
    )
    assert state.store.records() == []


def test_own_judge_is_still_accepted(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    outcome = state.submit(write_variant(sample_release, tmp_path / "v.csv", 3), "judge", {}, USER)
    assert outcome.ok, outcome.message
    assert outcome.record is not None and "duplicate_of_reference" not in outcome.record.flags


# --- dry runs and the rate limit -------------------------------------------------------------


def test_rate_limited_account_can_still_validate(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r", rate_limit=1)
    first = state.submit(write_variant(sample_release, tmp_path / "a.csv", 0), "judge", {}, USER)
    assert first.ok, first.message
    second = write_variant(sample_release, tmp_path / "b.csv", 1)
    refused = state.submit(second, "judge", {}, USER)
    assert not refused.ok and "rate limit" in refused.message
    for _ in range(3):  # dry runs are never refused and never count
        dry = state.submit(second, "judge", {}, USER, validate_only=True)
        assert dry.ok, dry.message
        assert "validate only" in dry.message and "rate limit" in dry.message
    assert len(state.store.records()) == 1
    other = state.submit(second, "judge", {}, "another-user")
    assert other.ok, other.message


def test_dry_runs_do_not_use_up_the_limit(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r", rate_limit=1)
    path = write_variant(sample_release, tmp_path / "a.csv", 0)
    for _ in range(3):
        assert state.submit(path, "judge", {}, USER, validate_only=True).ok
    outcome = state.submit(path, "judge", {}, USER)
    assert outcome.ok, outcome.message


# --- the uploaded file's own name ------------------------------------------------------------


def test_problems_name_the_uploaded_file(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    path = tmp_path / "Mein Richter (v2).csv"
    path.write_text("question_id,model,label\nNOPE,gpt-5-nano,Richtig\n", encoding="utf-8")
    outcome = state.submit(path, "judge", {}, USER)
    assert not outcome.ok and outcome.problems
    assert all(p.file == "Mein Richter (v2).csv" for p in outcome.problems)
    assert "submission.csv" not in outcome.message + str(outcome.problems)


def test_compressed_upload_is_named_and_explained(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    path = tmp_path / "judge.csv.gz"
    path.write_bytes(gzip.compress(judge_frame(sample_release).to_csv(index=False).encode()))
    outcome = state.submit(path, "judge", {}, USER)
    text = str(outcome.problems[0])
    assert text.startswith("judge.csv.gz: the file is gzip-compressed") and "decompress" in text
    assert "b'" not in text


def test_upload_gone_from_the_server_is_explained(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    outcome = state.submit(tmp_path / "vanished.csv", "judge", {}, USER)
    assert not outcome.ok and outcome.message.startswith("vanished.csv: the uploaded file is no")
    assert "upload it again" in outcome.message


# --- keyed account hashes --------------------------------------------------------------------


# --- bounded temporary files -----------------------------------------------------------------


def test_gradio_upload_is_deleted_once_read(
    launch: Callable[..., Running], sample_release: Release, tmp_path: Path
) -> None:
    import gradio

    app = launch()
    assert app.demo.delete_cache == app.state.config.delete_cache
    upload_root = Path(gradio.utils.get_upload_folder()).resolve()

    def uploads(name: str) -> list[Path]:
        return [p for p in upload_root.rglob(name) if p.is_file()]

    client = app.client()
    bad = tmp_path / "hygiene-bad-upload.csv"
    bad.write_text("question_id,model,label\nNOPE,gpt-5-nano,Richtig\n", encoding="utf-8")
    status, _, _ = client.predict(*submit_args(bad), api_name="/submit")
    assert status == "Not accepted: 1 problem found in hygiene-bad-upload.csv; nothing was scored."
    assert uploads(bad.name) == []

    good = write_variant(sample_release, tmp_path / "hygiene-good-upload.csv", 5)
    status, _, _ = client.predict(*submit_args(good, validate_only=True), api_name="/submit")
    assert status.startswith("Dry run: scored, not stored") and len(uploads(good.name)) == 1
    status, _, _ = client.predict(*submit_args(good), api_name="/submit")
    assert status.startswith("Accepted"), status
    assert uploads(good.name) == []
