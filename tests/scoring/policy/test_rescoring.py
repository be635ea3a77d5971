"""``medqade rescore`` and :func:`medqade.scoring.policy.rescoring.rescore`: a stored submission
scored again on another release, under the rules of ``score --results``, from the stored file
only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medqade.cli import main
from medqade.dataset.release import Release
from medqade.scoring import Limits
from medqade.scoring.policy import policy
from medqade.scoring.policy.rescoring import rescore
from medqade.scoring.policy.store import RateLimit, ResultsStore
from medqade.scoring.record.score_record import ScoreRecord

from ..helpers import judge_rows

SETTINGS = policy.Settings(resamples=0)
ME = policy.Submitter("acct", scheme="test")


def _csv(release: Release, changed: int | None = None) -> bytes:
    """A paper evaluator's labels, or with the label of row ``changed`` flipped."""
    frame = judge_rows(release, "gemma3:4b")
    if changed is not None:
        label = frame.loc[changed, "label"]
        frame.loc[changed, "label"] = "Falsch" if label == "Richtig" else "Richtig"
    return frame.to_csv(index=False).encode()


def _upload(data: bytes, name: str = "mine.csv") -> policy.Upload:
    return policy.Upload(data, name, ".csv")


def _typed(record: dict[str, Any]) -> ScoreRecord:
    """A record file's JSON object (forged by a test) read as the store reads it."""
    return ScoreRecord.from_json(record)


def _move_to_another_release(store: ResultsStore, record: ScoreRecord) -> dict[str, Any]:
    """``record`` rewritten in the store as if scored on another release (same content)."""
    from medqade.scoring import record_id

    path = store.records_dir / f"{record.id}.json"
    other = json.loads(path.read_text(encoding="utf-8"))
    other["dataset"]["hash"] = "0" * 64
    space = other.pop("space")
    other.pop("id")
    other["id"] = record_id(other)
    other["space"] = space
    path.unlink()
    (store.records_dir / f"{other['id']}.json").write_text(json.dumps(other), encoding="utf-8")
    store.reload()
    return other


def test_duplicates_count_on_this_release_and_rescore_stores_the_twin(
    sample: Release, tmp_path: Path
) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    own = [_upload(_csv(sample, 0))]
    first = policy.submit(sample, own, "judge", {"name": "M"}, SETTINGS, store=store, submitter=ME)
    assert first.ok and first.record is not None
    here = rescore(sample, store, first.record, SETTINGS)
    assert not here.ok and "scored on this release already" in here.message
    other = _move_to_another_release(store, first.record)
    # the same content, stored only for another release, may be scored on this one ...
    dry = policy.submit(
        sample, own, "judge", {}, SETTINGS, store=store, submitter=ME, validate_only=True
    )
    assert dry.ok
    # ... and rescore does so from the stored upload, keeping kind, metadata and account
    again = rescore(sample, store, _typed(other), SETTINGS)
    assert again.ok and again.record is not None
    assert again.record.id == first.record.id  # the same content on the same release
    assert again.record.meta == first.record.meta
    assert again.record.space.account == "acct"
    assert len(store.records()) == 2
    twice = rescore(sample, store, _typed(other), SETTINGS)
    assert not twice.ok and "submitted before" in twice.message


# --- rescore under the rules of score --results (issue 38) ----------------------------------


def _stored_elsewhere(sample: Release, tmp_path: Path) -> tuple[ResultsStore, dict[str, Any]]:
    """A results folder with one judge record moved to another release (to be rescored)."""
    store = ResultsStore(tmp_path / "results", RateLimit(0, 1.0))
    first = policy.submit(
        sample,
        [_upload(_csv(sample, 0))],
        "judge",
        {"name": "M"},
        SETTINGS,
        store=store,
        submitter=ME,
    )
    assert first.ok and first.record is not None
    return store, _move_to_another_release(store, first.record)


def _upload_name(record: dict[str, Any]) -> str:
    (name,) = record["space"]["uploads"]
    return str(name)


def test_rescore_never_follows_a_link_out_of_uploads(sample: Release, tmp_path: Path) -> None:
    """An uploads/<hash> link to a file outside: scored under the old record's account and
    copied into uploads/ before the fix."""
    store, other = _stored_elsewhere(sample, tmp_path)
    name = _upload_name(other)
    outside = tmp_path / "outside.csv"
    outside.write_bytes(_csv(sample, 1))
    (store.uploads_dir / name).unlink()
    (store.uploads_dir / name).symlink_to(outside)
    outcome = rescore(sample, store, _typed(other), SETTINGS)
    assert not outcome.ok
    assert outcome.message.startswith(f"record {other['id'][:16]}: uploads/{name}: ")
    assert "is a link" in outcome.message and "score the original file" in outcome.message
    assert (store.uploads_dir / name).is_symlink() and len(store.records()) == 1
    assert outside.read_bytes() == _csv(sample, 1)


def test_rescore_refuses_a_stored_upload_changed_after_it_was_stored(
    sample: Release, tmp_path: Path
) -> None:
    store, other = _stored_elsewhere(sample, tmp_path)
    name = _upload_name(other)
    (store.uploads_dir / name).write_bytes(_csv(sample, 1))  # another judge's labels
    outcome = rescore(sample, store, _typed(other), SETTINGS)
    assert not outcome.ok and len(store.records()) == 1
    assert f"record {other['id'][:16]}: uploads/{name} was changed after it was stored" in (
        outcome.message
    )
    # a record stored before the bytes' hashes were kept: its content hash is checked instead
    path = store.records_dir / f"{other['id']}.json"
    old = json.loads(path.read_text(encoding="utf-8"))
    del old["space"]["upload_sha256"]
    path.write_text(json.dumps(old), encoding="utf-8")
    store.reload()
    outcome = rescore(sample, store, _typed(old), SETTINGS)
    assert not outcome.ok and "does not hold the content its name says" in outcome.message
    (store.uploads_dir / name).write_bytes(_csv(sample, 0))  # restored: scored again
    assert rescore(sample, store, _typed(old), SETTINGS).ok


def test_rescore_says_per_record_what_is_wrong_in_a_stored_file(
    sample: Release, sample_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, other = _stored_elsewhere(sample, tmp_path)
    name = _upload_name(other)
    path = store.records_dir / f"{other['id']}.json"
    old = json.loads(path.read_text(encoding="utf-8"))
    del old["space"]["upload_sha256"]  # stored before the hashes were kept
    path.write_text(json.dumps(old), encoding="utf-8")
    (store.uploads_dir / name).write_bytes(b"question_id,model,label\nS-C01,gemma3:4b,Vielleicht\n")
    argv = ["rescore", "--data", str(sample_dir), "--results", str(store.root), "--resamples", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{other['id'][:16]}: not scored again: 1 problem found in uploads/{name}" in err
    assert f"  uploads/{name}, line 2" in err  # the problem itself: file, line, value, fix
    assert "Traceback" not in err


def test_rescore_refuses_a_build_and_a_raw_release_as_results(
    sample_dir: Path, copy_sample: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``rescore --results BUILD/results`` and ``--results RAW`` wrote records there."""
    import hashlib

    def hashes(root: Path) -> dict[str, str]:
        return {
            str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }

    raw = copy_sample()
    link = tmp_path / "link"
    link.symlink_to(raw)
    for folder in (sample_dir / "results", raw, link):
        folder.mkdir(exist_ok=True)
        before = {**hashes(sample_dir), **hashes(raw)}
        argv = ["rescore", "--data", str(sample_dir), "--results", str(folder)]
        assert main(argv) == 2
        assert "medqade rescore never stores submissions there" in capsys.readouterr().err
        assert {**hashes(sample_dir), **hashes(raw)} == before
        if folder.name == "results":
            folder.rmdir()


def test_rescore_reads_no_more_of_a_stored_upload_than_an_upload_may_have(
    sample: Release, tmp_path: Path
) -> None:
    store, other = _stored_elsewhere(sample, tmp_path)
    small = policy.Settings(resamples=0, limits=Limits(max_bytes=100))
    outcome = rescore(sample, store, _typed(other), small)
    assert not outcome.ok and len(store.records()) == 1
    assert f"uploads/{_upload_name(other)}: the stored upload has more than 100 bytes" in (
        outcome.message
    )


def test_a_verified_record_stays_verified_only_with_its_stored_verification(
    sample: Release, tmp_path: Path
) -> None:
    from medqade.scoring.policy import write_verification

    from ..helpers import passing

    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    own = [_upload(_csv(sample, 1))]
    plain = policy.submit(sample, own, "judge", {}, SETTINGS)
    assert plain.submission is not None
    content = plain.submission.content_hash
    meta = {"name": "V", "verified": True}
    first = policy.submit(
        sample, own, "judge", meta, SETTINGS, store=store, submitter=ME,
        verification=passing(content),
    )  # fmt: skip
    assert first.ok and first.record is not None, first.message
    other = _typed(_move_to_another_release(store, first.record))
    refused = rescore(sample, store, other, SETTINGS)  # no verification in the folder
    assert not refused.ok and "only when its labels were reproduced" in refused.message
    write_verification(tmp_path, passing(content), b"log")
    again = rescore(sample, store, other, SETTINGS)
    assert again.ok and again.record is not None, again.message
    assert again.record.meta is not None and again.record.meta.verified is True
