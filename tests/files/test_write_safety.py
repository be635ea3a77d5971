"""The output policy of every command that writes (:mod:`medqade.files.atomic`), one test per case.

Each ``test_<command>_<case>`` reproduces a data loss of issue 23 §2 (it failed before the
policy covered the command); the property tests at the end throw random ``--out`` targets at
every writer and check with hashes that nothing the command did not make changed.
"""

from __future__ import annotations

import csv
import hashlib
import importlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from medqade.cli import main
from medqade.files import atomic, file_output, folder_output

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio"
PRIMARY = FIXTURES / "primary_export.json"
ADJUDICATION = FIXTURES / "adjudication_export.json"
RATER_MAP = FIXTURES / "rater_map.json"
FAST = ["--resamples", "20", "--contrast-resamples", "20", "--seed", "11"]
ANSWERS = "question_id,answer\nS-C01,Femur\nS-C02,Aspirin\nS-E01,N. medianus\n"


def _hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (links: where they point), by relative path."""
    out = {}
    for here, dirs, files in os.walk(root, followlinks=False):
        for name in [*files, *(d for d in dirs if (Path(here) / d).is_symlink())]:
            path = Path(here) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _one_line_error(err: str, command: str, path: Path) -> None:
    """An error is one line, names the user's path (no temp file), and has no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"medqade {command}: ")
    assert str(path) in lines[0]
    assert ".tmp" not in lines[0] and "Traceback" not in err


def _import(export: Path, *argv: str) -> int:
    return main(["import-labelstudio", str(export), "--rater-map", str(RATER_MAP), *argv])


def _review_export(path: Path, user: int = 5, question: str = "S-C01") -> Path:
    task = {
        "id": 7,
        "data": {"question_id": question, "model": "qwen3:4b", "answer": "x"},
        "annotations": [
            {
                "id": 70,
                "completed_by": user,
                "was_cancelled": False,
                "result": [
                    {
                        "from_name": "bezug",
                        "to_name": "answer",
                        "type": "choices",
                        "value": {"choices": ["Zu unbestimmt"]},
                    }
                ],
            }
        ],
    }
    path.write_text(json.dumps([task]), encoding="utf-8")
    return path


@pytest.fixture
def build_copy(built_sample: Path, tmp_path: Path) -> Path:
    """A copy of the sample's build that a test may try to damage."""
    return Path(shutil.copytree(built_sample, tmp_path / "build"))


# --- import-labelstudio -------------------------------------------------------------------------


def test_import_labelstudio_refuses_another_table_of_the_raw_release(
    copy_sample: Callable[[], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    before = _hashes(raw)
    assert _import(PRIMARY, "--out", str(raw / "answers.csv"), "--raw", str(raw)) == 2
    _one_line_error(capsys.readouterr().err, "import-labelstudio", raw / "answers.csv")
    assert _import(PRIMARY, "--out", str(raw / "questions.csv"), "--replace") == 2
    _one_line_error(capsys.readouterr().err, "import-labelstudio", raw / "questions.csv")
    assert _import(PRIMARY, "--out", str(raw / "extra.csv")) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "import-labelstudio", raw / "extra.csv")
    assert f"may only import into {raw / 'ratings.csv'}" in err
    assert _hashes(raw) == before


def test_import_labelstudio_refuses_an_unrelated_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "patients.csv"
    other.write_text("id,name\n1,A\n", encoding="utf-8")
    for flags in ([], ["--replace"], ["--append"]):
        assert _import(PRIMARY, "--out", str(other), *flags) == 2
        _one_line_error(capsys.readouterr().err, "import-labelstudio", other)
        out = ["--out", str(tmp_path / "r.csv"), "--difficulty-out", str(other), *flags]
        assert _import(PRIMARY, *out) == 2
        _one_line_error(capsys.readouterr().err, "import-labelstudio", other)
    assert other.read_text(encoding="utf-8") == "id,name\n1,A\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["patients.csv"]


def test_import_labelstudio_refuses_the_export_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "export.csv"  # a JSON export with an unlucky name
    shutil.copy(PRIMARY, export)
    before = export.read_bytes()
    assert _import(export, "--out", str(export), "--replace") == 2
    err = capsys.readouterr().err
    _one_line_error(err, "import-labelstudio", export)
    assert "is the Label Studio export" in err
    assert export.read_bytes() == before


def test_import_labelstudio_refuses_an_existing_table_without_append_or_replace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ratings, difficulty = tmp_path / "ratings.csv", tmp_path / "difficulty.csv"
    out = ["--out", str(ratings), "--difficulty-out", str(difficulty)]
    assert _import(PRIMARY, *out) == 0
    capsys.readouterr()
    before = _hashes(tmp_path)
    assert _import(ADJUDICATION, *out) == 2  # forgot --append: nothing is cut
    err = capsys.readouterr().err
    _one_line_error(err, "import-labelstudio", ratings)
    assert "--append" in err and "--replace" in err
    assert _hashes(tmp_path) == before
    assert _import(ADJUDICATION, *out, "--append", "--round", "adjudication") == 0
    assert len(_rows(ratings)) == 25


def test_import_labelstudio_append_keeps_every_column_and_row(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    ratings.write_text(
        "question_id,rater,model,label,round,rated_at,comment\n"
        "S-X01,P01,qwen3:4b,Richtig,primary,2025-01-02,erste\n",
        encoding="utf-8",
    )
    assert _import(PRIMARY, "--out", str(ratings), "--append") == 0
    rows = _rows(ratings)
    header = ["question_id", "rater", "model", "label", "round", "rated_at", "comment"]
    assert list(rows[0]) == header
    assert len(rows) == 21
    old = [r for r in rows if r["question_id"] == "S-X01"]
    assert old == [
        {
            "question_id": "S-X01",
            "rater": "P01",
            "model": "qwen3:4b",
            "label": "Richtig",
            "round": "primary",
            "rated_at": "2025-01-02",
            "comment": "erste",
        }
    ]
    assert all(r["rated_at"] == "" and r["comment"] == "" for r in rows if r not in old)


def test_import_labelstudio_append_onto_a_table_of_another_kind_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "ratings.csv"
    other.write_text("question_id,rater,difficulty\nS-C01,P01,Mittel\n", encoding="utf-8")
    before = other.read_bytes()
    assert _import(PRIMARY, "--out", str(other), "--append") == 2  # was a KeyError
    err = capsys.readouterr().err
    _one_line_error(err, "import-labelstudio", other)
    assert "is not a ratings table (no column 'model')" in err
    assert other.read_bytes() == before


def test_import_labelstudio_refuses_out_equal_to_difficulty_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    both = tmp_path / "both.csv"
    assert _import(PRIMARY, "--out", str(both), "--difficulty-out", str(both)) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "import-labelstudio", both)
    assert "same file as --out" in err
    assert not both.exists()


def test_import_labelstudio_unwritable_difficulty_out_changes_neither_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ratings = tmp_path / "ratings.csv"
    assert _import(PRIMARY, "--out", str(ratings)) == 0
    capsys.readouterr()
    before = ratings.read_bytes()
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    difficulty = blocker / "difficulty.csv"  # its folder is a file: cannot be written
    argv = ["--out", str(ratings), "--difficulty-out", str(difficulty), "--append"]
    assert _import(ADJUDICATION, *argv, "--round", "adjudication") == 2
    _one_line_error(capsys.readouterr().err, "import-labelstudio", difficulty)
    assert ratings.read_bytes() == before  # not half done: the rerun is not stuck
    difficulty = tmp_path / "difficulty.csv"
    argv = ["--out", str(ratings), "--difficulty-out", str(difficulty), "--append"]
    assert _import(ADJUDICATION, *argv, "--round", "adjudication") == 0
    assert len(_rows(ratings)) == 25


def test_import_labelstudio_error_names_the_users_path_not_the_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ratings = tmp_path / "ratings.csv"

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(tmp_path / ".ratings.csv.x1.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert _import(PRIMARY, "--out", str(ratings)) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "import-labelstudio", ratings)
    assert "Permission denied" in err
    assert not ratings.exists()


def test_import_labelstudio_refuses_a_symlink_and_a_build_file(
    tmp_path: Path, build_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real.csv"
    real.write_text("question_id,rater,model,label,round\n", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    before = _hashes(build_copy)
    assert _import(PRIMARY, "--out", str(link), "--replace") == 2
    _one_line_error(capsys.readouterr().err, "import-labelstudio", link)
    assert link.is_symlink() and real.read_text(encoding="utf-8").count("\n") == 1
    assert _import(PRIMARY, "--out", str(build_copy / "ratings.csv")) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "import-labelstudio", build_copy / "ratings.csv")
    assert "lies inside a MedQADE build" in err
    assert _hashes(build_copy) == before


def test_import_labelstudio_rerating_keeps_created_at_as_rated_at(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    assert _import(PRIMARY, "--out", str(ratings)) == 0
    assert _import(PRIMARY, "--out", str(ratings), "--append", "--round", "rerating") == 0
    rows = _rows(ratings)
    again = [r for r in rows if r["round"] == "rerating"]
    first = [r for r in rows if r["round"] != "rerating"]
    assert len(again) == len(first) == 20
    created = {
        (t["data"]["question_id"], a["created_at"])
        for t in json.loads(PRIMARY.read_text(encoding="utf-8"))
        for a in t["annotations"]
        if not a.get("was_cancelled")
    }
    assert {(r["question_id"], r["rated_at"]) for r in again} <= created
    assert len({(r["question_id"], r["rater"], r["rated_at"]) for r in again}) == 4
    assert all(r["rated_at"] == "" for r in first)


# --- import-reviews -----------------------------------------------------------------------------


def test_import_reviews_refuses_an_existing_table_without_append(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviews = tmp_path / "reviews.csv"
    first = _review_export(tmp_path / "first.json")
    second = _review_export(tmp_path / "second.json", user=6, question="S-C02")
    assert main(["import-reviews", str(first), "--out", str(reviews)]) == 0
    capsys.readouterr()
    before = reviews.read_bytes()
    assert main(["import-reviews", str(second), "--out", str(reviews)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "import-reviews", reviews)
    assert reviews.read_bytes() == before
    assert main(["import-reviews", str(second), "--out", str(reviews), "--append"]) == 0
    rows = _rows(reviews)
    assert [(r["question_id"], r["reviewer"]) for r in rows] == [
        ("S-C01", "user 5"),
        ("S-C02", "user 6"),
    ]
    assert main(["import-reviews", str(second), "--out", str(reviews), "--append"]) == 2
    assert "already holds this row" in capsys.readouterr().err
    assert len(_rows(reviews)) == 2


def test_import_reviews_exclude_user(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reviews = tmp_path / "reviews.csv"
    export = _review_export(tmp_path / "export.json", user=1)
    argv = ["import-reviews", str(export), "--out", str(reviews), "--exclude-user", "1"]
    assert main(argv) == 0
    assert "1 of excluded users left out" in capsys.readouterr().err
    assert _rows(reviews) == []


def test_import_reviews_refuses_another_table_of_the_raw_release(
    copy_sample: Callable[[], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    before = _hashes(raw)
    export = _review_export(tmp_path / "export.json")
    for name in ("ratings.csv", "notes.csv"):  # another raw table, or a new file in RAW
        assert main(["import-reviews", str(export), "--out", str(raw / name)]) == 2
        _one_line_error(capsys.readouterr().err, "import-reviews", raw / name)
    assert _hashes(raw) == before
    assert main(["import-reviews", str(export), "--out", str(raw / "reviews.csv")]) == 0


# --- score --------------------------------------------------------------------------------------


def test_score_refuses_the_submission_as_out(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = tmp_path / "sub.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    assert main(["score", str(sub), "--data", str(built_sample), "--out", str(sub)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "score", sub)
    assert "is the submission" in err
    assert sub.read_text(encoding="utf-8") == ANSWERS


def test_score_refuses_a_file_of_the_build(
    tmp_path: Path, build_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = tmp_path / "sub.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    other = tmp_path / "other-build"
    shutil.copytree(build_copy, other)
    before = _hashes(other)
    target = other / "release.json"  # a build the command does not even read
    assert main(["score", str(sub), "--data", str(build_copy), "--out", str(target)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "score", target)
    assert "lies inside a MedQADE build" in err
    assert _hashes(other) == before


def test_score_replaces_only_its_own_record(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = tmp_path / "sub.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    record = tmp_path / "score.json"
    argv = ["score", str(sub), "--data", str(built_sample), "--out", str(record)]
    assert main(argv) == 0
    assert main(argv) == 0  # an earlier record is ours
    foreign = tmp_path / "notes.json"
    foreign.write_text('{"mine": 1}\n', encoding="utf-8")
    assert main([*argv[:-1], str(foreign)]) == 2
    _one_line_error(capsys.readouterr().err, "score", foreign)
    assert foreign.read_text(encoding="utf-8") == '{"mine": 1}\n'


def test_score_never_replaces_a_record_edited_since(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any file with a record's keys was replaced: notes added to an earlier record (its id
    is the hash of its content, so an edit shows) were lost on the next score --out."""
    sub = tmp_path / "sub.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    record = tmp_path / "score.json"
    argv = ["score", str(sub), "--data", str(built_sample), "--out", str(record)]
    assert main(argv) == 0
    data = json.loads(record.read_text(encoding="utf-8"))
    data["meta"]["notes"] = "my notes"
    record.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "score", record)
    assert "changed since" in err and "my notes" in record.read_text(encoding="utf-8")


def test_score_writes_out_and_eval_results_together_or_not_at_all(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = tmp_path / "sub.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    record, yaml = tmp_path / "score.json", blocker / "entry.yaml"
    argv = ["score", str(sub), "--data", str(built_sample), "--out", str(record)]
    argv += ["--eval-results", str(yaml), "--hub-dataset", "org/name"]
    assert main(argv) == 2
    _one_line_error(capsys.readouterr().err, "score", yaml)
    assert not record.exists()


# --- reproduce ----------------------------------------------------------------------------------


def _reproduce(data: Path, out: Path | str, *extra: str) -> int:
    return main(["reproduce", "--data", str(data), "--out", str(out), *FAST, *extra])


def test_reproduce_refuses_a_folder_with_other_files(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "report.md").write_text("my draft\n", encoding="utf-8")
    (paper / "figure2_accuracy_by_tier.png").write_bytes(b"mine")
    before = _hashes(paper)
    assert _reproduce(built_sample, paper) == 2
    _one_line_error(capsys.readouterr().err, "reproduce", paper)
    assert _hashes(paper) == before


def test_reproduce_refuses_the_working_folder(
    tmp_path: Path,
    built_sample: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _reproduce(built_sample, ".") == 2
    assert "working folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_reproduce_refuses_a_symlinked_folder(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert _reproduce(built_sample, link) == 2
    _one_line_error(capsys.readouterr().err, "reproduce", link)
    assert list(real.iterdir()) == [] and link.is_symlink()


def test_reproduce_never_writes_into_the_release_it_reads(
    copy_sample: Callable[[], Path], build_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    before_raw, before_build = _hashes(raw), _hashes(build_copy)
    assert _reproduce(raw, raw, "--format", "csv") == 2
    _one_line_error(capsys.readouterr().err, "reproduce", raw)
    assert _reproduce(raw, raw / "out") == 2
    assert _reproduce(build_copy, build_copy / "figures") == 2
    assert _reproduce(build_copy, build_copy) == 2
    capsys.readouterr()
    assert _hashes(raw) == before_raw and _hashes(build_copy) == before_build


def test_reproduce_replaces_its_own_output(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "repro"
    assert _reproduce(built_sample, out, "--format", "csv") == 0
    assert (out / folder_output.MARKER).exists()
    assert _reproduce(built_sample, out) == 0
    assert (out / "report.md").exists()
    assert not any(p.suffix == ".csv" for p in out.iterdir())  # replaced as a whole


# --- review-queue -------------------------------------------------------------------------------


def _queue(data: Path, out: Path) -> int:
    return main(["review-queue", "--data", str(data), "--out", str(out)])


def test_review_queue_refuses_a_foreign_marker(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / ".q.medqade.json"
    marker.write_text('{"kind": "something else"}\n', encoding="utf-8")
    assert _queue(built_sample, tmp_path / "q.csv") == 2
    _one_line_error(capsys.readouterr().err, "review-queue", marker)
    assert marker.read_text(encoding="utf-8") == '{"kind": "something else"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == [".q.medqade.json"]


def test_review_queue_refuses_the_build_it_reads(
    build_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _hashes(build_copy)
    assert _queue(build_copy, build_copy / "q.csv") == 2
    _one_line_error(capsys.readouterr().err, "review-queue", build_copy / "q.csv")
    assert _hashes(build_copy) == before


def test_review_queue_refuses_a_symlinked_out(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "elsewhere" / "real.csv"  # a link to a file not made yet
    link = tmp_path / "q.csv"
    link.symlink_to(real)
    assert _queue(built_sample, link) == 2
    _one_line_error(capsys.readouterr().err, "review-queue", link)
    assert link.is_symlink() and not real.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.csv"]


def test_review_queue_writes_all_files_or_none(
    tmp_path: Path,
    built_sample: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "q.csv"
    assert _queue(built_sample, out) == 0
    capsys.readouterr()
    before = _hashes(tmp_path)
    assert sorted(before) == [".q.medqade.json", "q.config.xml", "q.csv", "q.tasks.json"]
    real_replace = os.replace

    def fail_on_config(src: Any, dst: Any) -> None:
        if str(dst).endswith("q.config.xml"):
            raise OSError(28, "No space left on device", str(src))
        real_replace(src, dst)

    (tmp_path / "q.tasks.json").write_text("[]\n", encoding="utf-8")  # changed: ours no more
    assert _queue(built_sample, out) == 2
    _one_line_error(capsys.readouterr().err, "review-queue", tmp_path / "q.tasks.json")
    for p in tmp_path.iterdir():
        p.unlink()
    monkeypatch.setattr(os, "replace", fail_on_config)
    assert _queue(built_sample, out) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "q.config.xml" in err and "No space left on device" in err
    assert list(tmp_path.iterdir()) == []  # the CSV and tasks renamed first were undone


# --- judge and answer ---------------------------------------------------------------------------


def test_judge_refuses_a_foreign_file_and_a_raw_table(
    tmp_path: Path, copy_sample: Callable[[], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    before = _hashes(raw)
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"mine": 1}\n', encoding="utf-8")
    for out in (notes, raw / "judgments.jsonl"):
        argv = ["judge", "--model", "m", "--data", str(raw), "--out", str(out), "--dry-run"]
        assert main(argv) == 2
        _one_line_error(capsys.readouterr().err, "judge", out)
    assert notes.read_text(encoding="utf-8") == '{"mine": 1}\n'
    assert _hashes(raw) == before


def test_answer_refuses_a_foreign_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.csv"
    other.write_text("id,name\n", encoding="utf-8")
    assert main(["answer", "--model", "m", "--out", str(other), "--dry-run"]) == 2
    _one_line_error(capsys.readouterr().err, "answer", other)
    assert other.read_text(encoding="utf-8") == "id,name\n"


def _run_judge(stub: Any, data: Path, out: Path, *extra: str) -> int:
    argv = ["judge", "--model", "m", "--base-url", stub.base_url, "--data", str(data)]
    return main([*argv, "--out", str(out), "--limit", "2", "--no-progress", *extra])


def test_judge_and_answer_never_replace_a_look_alike_they_did_not_write(
    tmp_path: Path,
    copy_sample: Callable[[], Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A hand-written submission (``question_id,answer``) and a judge file made elsewhere look
    like the commands' own output by content, and were replaced; now only a file the sidecar
    marker vouches for (written by the command, unchanged since) is replaced."""
    from servers.stub_server import StubServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    raw = copy_sample()
    sub = tmp_path / "sub.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    judged = tmp_path / "judged.jsonl"
    shutil.copy(raw / "judgments.jsonl", judged)
    before = _hashes(tmp_path)
    run = ["--model", "m", "--data", str(raw), "--limit", "2", "--no-progress"]
    with StubServer() as stub:
        run += ["--base-url", stub.base_url]
        for command, out in (("answer", sub), ("judge", judged)):
            assert main([command, *run, "--out", str(out)]) == 2
            _one_line_error(capsys.readouterr().err, command, out)
        assert _hashes(tmp_path) == before
        for command, name in (("answer", "a.csv"), ("judge", "j.jsonl")):
            out = tmp_path / name
            assert main([command, *run, "--out", str(out)]) == 0
            assert file_output.sidecar(out).is_file()
            assert main([command, *run, "--out", str(out)]) == 0  # its own output again
            out.write_text(out.read_text(encoding="utf-8") + "\n", encoding="utf-8")
            assert main([command, *run, "--out", str(out)]) == 2  # edited since: not replaced
            assert capsys.readouterr().err.count("\n") == 1
        other = tmp_path / "other.jsonl"
        file_output.sidecar(other).write_text('{"mine": 1}\n', encoding="utf-8")
        assert main(["judge", *run, "--out", str(other)]) == 2  # a foreign sidecar name
        _one_line_error(capsys.readouterr().err, "judge", file_output.sidecar(other))
    assert not other.exists()


# --- atomic.write_files -------------------------------------------------------------------------


def test_write_files_restores_earlier_files_when_a_rename_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("old a\n", encoding="utf-8")
    real_replace = os.replace

    def fail_on_b(src: Any, dst: Any) -> None:
        if str(dst) == str(b):
            raise OSError(5, "Input/output error", str(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", fail_on_b)
    planned = [atomic.Planned(a, b"new a\n"), atomic.Planned(b, b"new b\n", "--difficulty-out")]
    with pytest.raises(atomic.OutputRefused, match=r"^--difficulty-out .*b\.csv: cannot write"):
        atomic.write_files(planned)
    assert a.read_text(encoding="utf-8") == "old a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


# --- property: random targets for every writer ----------------------------------------------------

NAMES = [
    ".",
    "raw",
    "raw/answers.csv",
    "raw/questions.csv",
    "raw/ratings.csv",
    "raw/difficulty.csv",
    "build",
    "build/release.json",
    "build/data",
    "export.json",
    "reviews.json",
    "map.json",
    "sub.csv",
    "judged.jsonl",
    "other.csv",
    "folder",
    "folder/notes.txt",
    "link.csv",
    "linkdir",
    "empty",
    "hard.csv",  # a hard link to raw/answers.csv (same inode)
    "rawlink",  # a link to the raw release folder
    "raw/Answers.csv",  # a case variant of a raw table
    "d/../raw",
]
CHILDREN = [
    None,
    "new.csv",
    "ratings.csv",
    "reviews.csv",
    "q.csv",
    "out",
    "report.md",
    "x.json",
    "x.jsonl",
]


@pytest.fixture(scope="module")
def _sandbox_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from conftest import SAMPLE
    from medqade.dataset.build import build

    root = tmp_path_factory.mktemp("sandbox")
    shutil.copytree(SAMPLE, root / "raw")
    build(SAMPLE, root / "build")
    shutil.copy(PRIMARY, root / "export.json")
    _review_export(root / "reviews.json")
    shutil.copy(RATER_MAP, root / "map.json")
    (root / "sub.csv").write_text(ANSWERS, encoding="utf-8")
    shutil.copy(SAMPLE / "judgments.jsonl", root / "judged.jsonl")  # a judge file not ours
    (root / "other.csv").write_text("question_id,rater,model,label,round\n", encoding="utf-8")
    (root / "folder").mkdir()
    (root / "folder" / "notes.txt").write_text("mine\n", encoding="utf-8")
    (root / "empty").mkdir()
    return root


@pytest.fixture
def sandbox(_sandbox_template: Path) -> Iterator[Callable[[], Path]]:
    made: list[Path] = []

    def make() -> Path:
        root = Path(tempfile.mkdtemp(prefix="medqade-sandbox-")) / "s"
        shutil.copytree(_sandbox_template, root, symlinks=True)
        (root / "link.csv").symlink_to(root / "other.csv")
        (root / "linkdir").symlink_to(root / "folder")
        (root / "rawlink").symlink_to(root / "raw")
        os.link(root / "raw" / "answers.csv", root / "hard.csv")
        (root / "d").mkdir()
        made.append(root.parent)
        return root

    yield make
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def stub_url() -> Iterator[str]:
    """An OpenAI-compatible stub server, so judge and answer really write."""
    from servers.stub_server import StubServer

    with StubServer() as server:
        yield server.base_url


def _writers(root: Path, target: str, url: str = "http://127.0.0.1:9/v1") -> dict[str, list[str]]:
    """Every writer, aimed at ``target`` (run from ``root``); judge and answer ask ``url``."""
    run = ["--base-url", url, "--limit", "2", "--no-progress", "--max-retries", "0"]
    return {
        "import-labelstudio": [
            "import-labelstudio",
            "export.json",
            "--rater-map",
            "map.json",
            "--out",
            target,
        ],
        "import-labelstudio-difficulty": [
            "import-labelstudio",
            "export.json",
            "--rater-map",
            "map.json",
            "--out",
            "fresh/ratings.csv",
            "--difficulty-out",
            target,
        ],
        "import-labelstudio-append": [
            "import-labelstudio",
            "export.json",
            "--rater-map",
            "map.json",
            "--out",
            target,
            "--append",
        ],
        "import-labelstudio-replace": [
            "import-labelstudio",
            "export.json",
            "--rater-map",
            "map.json",
            "--out",
            target,
            "--replace",
        ],
        "import-reviews": ["import-reviews", "reviews.json", "--out", target],
        "import-reviews-append": ["import-reviews", "reviews.json", "--out", target, "--append"],
        "import-reviews-replace": ["import-reviews", "reviews.json", "--out", target, "--replace"],
        "score": ["score", "sub.csv", "--data", "build", "--out", target],
        "score-eval-results": [
            "score",
            "sub.csv",
            "--data",
            "build",
            "--eval-results",
            target,
            "--hub-dataset",
            "org/name",
        ],
        "review-queue": ["review-queue", "--data", "build", "--out", target],
        "reproduce": ["reproduce", "--data", "build", "--out", target, *FAST],
        "judge": ["judge", "--model", "m", "--data", "build", "--out", target, *run],
        "answer": ["answer", "--model", "m", "--data", "build", "--out", target, *run],
        "build": ["build", "--raw", "raw", "--out", target],
        "build-arrow": ["build", "--raw", "raw", "--out", "fresh-build", "--arrow", target],
        # the tables are not simulated (a minute each): the target is checked and recovered
        # (the policy); a target it accepts stops at the patched simulation, writing nothing
        "synthesize": ["synthesize", "--out", target],
    }


def _no_simulation(*args: Any, **kwargs: Any) -> Any:
    raise ValueError("test: simulation skipped after the target check")


WRITERS = sorted(_writers(Path("."), "T"))
OWN_TABLE = {
    **dict.fromkeys(("import-labelstudio", "import-labelstudio-append"), "ratings.csv"),
    "import-labelstudio-replace": "ratings.csv",
    **dict.fromkeys(("import-reviews", "import-reviews-append"), "reviews.csv"),
    "import-reviews-replace": "reviews.csv",
}
CHANGE_TARGET = {w for w in OWN_TABLE if w.endswith(("-append", "-replace"))}
"""Writers the user asked to change the named table: it (and nothing else) may change."""


@pytest.mark.parametrize("writer", WRITERS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(name=st.sampled_from(NAMES), child=st.sampled_from(CHILDREN))
@example(name="sub.csv", child=None)  # look-alikes of answer's and judge's own output
@example(name="judged.jsonl", child=None)
@example(name="empty", child="x.jsonl")  # a real write of judge (and answer's refusal)
@example(name="empty", child="new.csv")
@example(name="other.csv", child=None)  # a ratings-shaped table of the user's
@example(name="raw", child="ratings.csv")
@example(name="rawlink", child="ratings.csv")
@example(name="hard.csv", child=None)
def test_every_writer_changes_nothing_it_did_not_make(
    writer: str,
    name: str,
    child: str | None,
    sandbox: Callable[[], Path],
    stub_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = sandbox()
    monkeypatch.chdir(root)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    simulate = importlib.import_module("medqade.synthetic.simulate")  # the module, not the function
    monkeypatch.setattr(simulate, "simulate", _no_simulation)
    target = name if child is None else f"{name}/{child}"
    before = _hashes(root)
    rc = main(_writers(root, target, stub_url)[writer])
    err = capsys.readouterr().err
    assert rc in (0, 2), err
    assert "Traceback" not in err
    after = _hashes(root)
    changed = sorted(k for k in before if after.get(k) != before[k])
    if writer in CHANGE_TARGET and rc == 0:  # --append / --replace: the named table only
        named = (root / target).parent.resolve() / Path(target).name
        allowed = [named.relative_to(root.resolve()).as_posix()]
        assert changed in ([], allowed), f"{writer} --out {target} changed {changed}: {err}"
        changed = []
    assert changed == [], f"{writer} --out {target} changed {changed}: {err}"
    new = [k for k in after if k not in before]
    for path in new:  # nothing new inside the build, nor in the raw release but its own table
        assert not path.startswith("build/"), (writer, target, new)
        if path.startswith("raw/"):
            assert path == f"raw/{OWN_TABLE.get(writer, '-')}", (writer, target, new)
    if rc == 2:
        assert new == [], (writer, target, new, err)


def test_write_bytes_error_names_the_target_not_the_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.md"

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(tmp_path / ".report.md.x1.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError) as info:
        atomic.write_bytes(target, b"x")
    assert info.value.filename == str(target)


def test_write_files_removes_backups_and_temp_files_a_crash_left(tmp_path: Path) -> None:
    """A crash between two renames left ``.NAME.medqade-bak-PID`` (and temporary files) beside
    the target; the next write of the same target removes those of dead processes, and only
    those: a running process's, another target's and a look-alike folder or link stay."""
    import subprocess
    import sys

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    target = tmp_path / "ratings.csv"
    target.write_text("old\n", encoding="utf-8")
    stale = [
        tmp_path / f".ratings.csv.medqade-bak-{pid}",
        tmp_path / f".ratings.csv.medqade-tmp-{pid}-x1y2.tmp",
    ]
    kept = [
        tmp_path / f".ratings.csv.medqade-bak-{os.getppid()}",  # a running process
        tmp_path / f".other.csv.medqade-bak-{pid}",  # another target's
        tmp_path / f".ratings.csv.bak-{pid}",  # not our name
        tmp_path / "notes.txt",
    ]
    for path in (*stale, *kept):
        path.write_text("x\n", encoding="utf-8")
    folder = tmp_path / f".ratings.csv.medqade-tmp-{pid}-dir.tmp"
    folder.mkdir()
    link = tmp_path / f".ratings.csv.medqade-bak-{pid}0"
    link.symlink_to(tmp_path / "notes.txt")
    atomic.write_files([atomic.Planned(target, b"new\n")])
    assert target.read_bytes() == b"new\n"
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept) and folder.is_dir() and link.is_symlink()
    (tmp_path / f".report.md.medqade-tmp-{pid}-abc.tmp").write_text("x\n", encoding="utf-8")
    atomic.write_text(tmp_path / "report.md", "r\n")
    assert not (tmp_path / f".report.md.medqade-tmp-{pid}-abc.tmp").exists()


def test_write_files_leaves_no_new_folder_when_a_later_file_is_refused(tmp_path: Path) -> None:
    """--out new/a/ratings.csv with an unwritable --difficulty-out created new/a/ and left it
    behind: all or none covers the folders made for the files too."""
    blocker = tmp_path / "file"
    blocker.write_text("mine\n", encoding="utf-8")
    first = tmp_path / "new" / "a" / "ratings.csv"
    with pytest.raises(atomic.OutputRefused, match="--difficulty-out"):
        atomic.write_files(
            [
                atomic.Planned(first, b"r\n"),
                atomic.Planned(blocker / "difficulty.csv", b"d\n", "--difficulty-out"),
            ]
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
    assert blocker.read_text(encoding="utf-8") == "mine\n"
    atomic.write_files([atomic.Planned(first, b"r\n")])
    assert first.read_bytes() == b"r\n"


def test_leaderboard_results_in_a_build_or_raw_release_writes_nothing_there(
    build_copy: Path,
    copy_sample: Callable[[], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """leaderboard / compare --results BUILD (or RAW, or a results folder whose reference/ is
    a link into one) cached its reference rows as reference/*.json inside it; and the Space
    stored submissions in such a folder."""
    from medqade.app.config import SpaceConfig

    raw = copy_sample()
    results = tmp_path / "results"
    results.mkdir()
    (results / "reference").symlink_to(raw)
    before = {**_hashes(build_copy), **_hashes(raw)}
    for folder in (build_copy, raw, results):
        argv = ["leaderboard", "--data", str(build_copy), "--results", str(folder)]
        assert main([*argv, "--resamples", "20"]) == 0, capsys.readouterr().err
    assert {**_hashes(build_copy), **_hashes(raw)} == before
    for folder in (raw, raw / "results", build_copy / "results"):
        with pytest.raises(ValueError, match="the Space never stores submissions there"):
            SpaceConfig(results_dir=folder)


def test_build_with_arrow_writes_both_folders_or_neither(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """build --out B --arrow A wrote B, then failed on A (a file where a folder belongs, or an
    export that fails) and left B behind with exit status 2."""
    from conftest import SAMPLE
    from medqade.dataset import build as build_mod

    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n", encoding="utf-8")
    out = tmp_path / "b"
    argv = ["build", "--raw", str(SAMPLE), "--out", str(out)]
    assert main([*argv, "--arrow", str(blocker / "arrow")]) == 2
    _one_line_error(capsys.readouterr().err, "build", blocker)

    def fail(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(build_mod, "export_arrow", fail)
    with pytest.raises(OSError):
        build_mod.build(SAMPLE, out, tmp_path / "arrow")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_write_files_refuses_one_file_named_twice_through_a_link(tmp_path: Path) -> None:
    """write_files compared the spelled paths: a.csv and up/a.csv (up -> .) were written one
    over the other, the first file's content lost."""
    (tmp_path / "up").symlink_to(tmp_path)
    files = [
        atomic.Planned(tmp_path / "a.csv", b"first\n"),
        atomic.Planned(tmp_path / "up" / "a.csv", b"second\n", "--difficulty-out"),
    ]
    with pytest.raises(atomic.OutputRefused, match="names the same file as --out"):
        atomic.write_files(files)
    assert not (tmp_path / "a.csv").exists()


def test_reproduce_never_replaces_a_file_edited_since(
    build_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The marker vouched for file names only: notes added to report.md of an earlier
    reproduce output were lost on the next run."""
    out = tmp_path / "paper"
    assert _reproduce(build_copy, out) == 0
    capsys.readouterr()
    report = out / "report.md"
    report.write_text(report.read_text(encoding="utf-8") + "\nmy notes\n", encoding="utf-8")
    assert _reproduce(build_copy, out) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "reproduce", out)
    assert "changed since" in err and "report.md" in err
    assert report.read_text(encoding="utf-8").endswith("my notes\n")


def _special_files(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A named pipe, a socket and a character device, each with how a message names it."""
    import socket

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    yield fifo, "a named pipe (FIFO)"
    sock_path = tmp_path / "s.json"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        yield sock_path, "a socket"
    yield Path(os.devnull), "a character device"


def test_a_fifo_socket_or_device_as_out_is_named_as_such(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO as --out said "is a folder, not a file" (issue 38): the output policy names the
    special file and asks for a regular file path (or a folder path, for folder outputs);
    nothing is opened, so a pipe without a reader never blocks the command."""
    sub = tmp_path / "sub.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    for path, what in _special_files(tmp_path):
        with pytest.raises(atomic.OutputRefused, match=r"not a regular file") as refused:
            file_output.check_file(path, file_output.FileOutput(kind="score record"))
        assert f"--out {path} is {what}, not a regular file" in str(refused.value)
        assert "choose a regular file path" in str(refused.value)
        with pytest.raises(atomic.OutputRefused, match=r"not a folder") as refused:
            folder_output.check_target(path, folder_output.Output(kind="report"))
        assert f"--out {path} is {what}, not a folder" in str(refused.value)
        capsys.readouterr()
        assert main(["score", str(sub), "--data", str(built_sample), "--out", str(path)]) == 2
        err = capsys.readouterr().err
        _one_line_error(err, "score", path)
        assert f"is {what}, not a regular file" in err and "is a folder" not in err
    assert _reproduce(built_sample, tmp_path / "pipe.json") == 2
    err = capsys.readouterr().err
    _one_line_error(err, "reproduce", tmp_path / "pipe.json")
    assert "is a named pipe (FIFO), not a folder" in err


@pytest.mark.parametrize("command", ["answer", "review-queue"])
def test_a_fifo_where_a_marker_belongs_is_refused_without_opening_it(
    tmp_path: Path, built_sample: Path, command: str
) -> None:
    """The output policy read a marker to learn whether --out was the command's own: a named
    pipe there blocked ``medqade answer --dry-run`` and ``medqade review-queue`` forever (a
    reader waiting for a writer); it is refused as a pipe, and nothing opens it."""
    import subprocess
    import sys

    if command == "answer":
        out, marker = tmp_path / "a.jsonl", tmp_path / ".a.jsonl.medqade.json"
        extra = ["--model", "m", "--dry-run"]
    else:
        out, marker = tmp_path / "q.csv", tmp_path / ".q.medqade.json"
        extra = ["--data", str(built_sample)]
    os.mkfifo(marker)
    argv = [sys.executable, "-m", "medqade", command, *extra, "--out", str(out)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"medqade {command} blocked on the FIFO beside --out")
    assert done.returncode == 2, done.stderr
    assert f"{marker} is a named pipe (FIFO), not a regular file" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
