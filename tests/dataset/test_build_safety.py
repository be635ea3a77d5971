"""Issue 11, build side: nothing a user owns is deleted or silently rewritten by ``build``,
``build --arrow`` or ``synthesize``, and no bad raw release crashes them.

Each test sets up one case of the issue, runs the command (through :func:`medqade.cli.main`
where the exit status matters), and checks that the user's files are untouched and that the
message names the path or the file, line, column and value.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from medqade.cli import main
from medqade.dataset.build import BUILD_KIND, build, build_files
from medqade.files import folder_output
from medqade.files.atomic import OutputRefused
from medqade.files.problems import InputError
from medqade.raw.reader import load_raw_release, reserved_question_columns
from medqade.schema import published_columns

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
CopySample = Callable[[], Path]


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _user_folder(path: Path) -> dict[str, bytes]:
    path.mkdir(parents=True)
    (path / "thesis.txt").write_text("three years of work", encoding="utf-8")
    (path / "data").mkdir()
    (path / "data" / "notes.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    return _tree(path)


def _one_line_error(capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    for needle in needles:
        assert needle in err, err
    return err


def _questions(raw: Path) -> pd.DataFrame:
    return pd.read_csv(raw / "questions.csv", dtype=str, keep_default_na=False)


def _write_questions_jsonl(raw: Path, records: list[dict[Any, Any]]) -> None:
    (raw / "questions.csv").unlink()
    (raw / "questions.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )


def _error(raw: Path) -> str:
    with pytest.raises(InputError) as info:
        load_raw_release(raw)
    return str(info.value)


# --- data loss: what --out / --arrow / synthesize --out may replace --------------------------


def test_build_refuses_a_folder_with_unrelated_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _user_folder(tmp_path / "mine")
    assert main(["build", "--raw", str(SAMPLE), "--out", str(tmp_path / "mine")]) == 2
    _one_line_error(capsys, "--out", "thesis.txt", "refusing to replace it")
    assert _tree(tmp_path / "mine") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_build_refuses_out_equal_to_raw(
    copy_sample: CopySample, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    before = _tree(raw)
    assert main(["build", "--raw", str(raw), "--out", str(raw)]) == 2
    _one_line_error(capsys, "is the raw release (--raw)")
    assert _tree(raw) == before


def test_build_refuses_a_parent_of_the_raw_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "project" / "raw"
    shutil.copytree(SAMPLE, raw)
    before = _tree(tmp_path / "project")
    assert main(["build", "--raw", str(raw), "--out", str(tmp_path / "project")]) == 2
    _one_line_error(capsys, "contains the raw release (--raw)")
    assert _tree(tmp_path / "project") == before


def test_build_refuses_an_out_inside_the_raw_release(
    copy_sample: CopySample, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    before = _tree(raw)
    assert main(["build", "--raw", str(raw), "--out", str(raw / "build")]) == 2
    _one_line_error(capsys, "lies inside the raw release (--raw)")
    assert _tree(raw) == before and not (raw / "build").exists()


def test_build_refuses_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _user_folder(tmp_path / "work")
    monkeypatch.chdir(tmp_path / "work")
    assert main(["build", "--raw", str(SAMPLE), "--out", "."]) == 2
    _one_line_error(capsys, "--out . is the working folder")
    assert main(["build", "--raw", str(SAMPLE), "--out", ".."]) == 2
    _one_line_error(capsys, "contains the working folder")
    assert _tree(tmp_path / "work") == before


def test_build_refuses_the_working_folder_even_when_it_is_a_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(SAMPLE, tmp_path / "out")
    before = _tree(tmp_path / "out")
    monkeypatch.chdir(tmp_path / "out")
    with pytest.raises(OutputRefused, match="is the working folder"):
        build(SAMPLE, Path("."))
    assert _tree(tmp_path / "out") == before


def test_build_refuses_a_regular_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "medqade"
    target.write_text("my file", encoding="utf-8")
    assert main(["build", "--raw", str(SAMPLE), "--out", str(target)]) == 2
    _one_line_error(capsys, "is a file, not a folder")
    assert target.read_text(encoding="utf-8") == "my file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["medqade"]  # no .medqade.old-PID


def test_build_refuses_a_symbolic_link(tmp_path: Path) -> None:
    _user_folder(tmp_path / "real")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OutputRefused, match="symbolic link"):
        build(SAMPLE, tmp_path / "link")


def test_build_and_synthesize_refuse_each_others_output(tmp_path: Path) -> None:
    from medqade.synthetic.write import SYNTHETIC_KIND, synthesize

    raw = tmp_path / "synthetic"
    raw.mkdir()
    (raw / "questions.csv").write_text("x\n", encoding="utf-8")
    (raw / folder_output.MARKER).write_text(
        json.dumps({"kind": SYNTHETIC_KIND, "files": ["questions.csv"]}), encoding="utf-8"
    )
    before = _tree(raw)
    with pytest.raises(OutputRefused, match="not written as a MedQADE build"):
        build(SAMPLE, raw)
    assert _tree(raw) == before
    build(SAMPLE, tmp_path / "built")
    before = _tree(tmp_path / "built")
    with pytest.raises(OutputRefused, match="not written as a MedQADE synthetic raw release"):
        synthesize(tmp_path / "built")
    assert _tree(tmp_path / "built") == before


def test_build_replaces_an_empty_folder_and_its_own_build(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    build(SAMPLE, tmp_path / "out")
    assert build_files(tmp_path / "out") == set(_tree(tmp_path / "out"))
    build(SAMPLE, tmp_path / "out")  # a rebuild over its own build
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_arrow_refuses_unrelated_files_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _user_folder(tmp_path / "arrow")
    out = tmp_path / "out"
    assert (
        main(["build", "--raw", str(SAMPLE), "--out", str(out), "--arrow", str(tmp_path / "arrow")])
        == 2
    )
    _one_line_error(capsys, "--arrow", "thesis.txt")
    assert _tree(tmp_path / "arrow") == before
    assert not out.exists()


@pytest.mark.parametrize("where", ["raw", "out", "inside-out", "parent-of-out"])
def test_arrow_never_writes_over_an_input(
    copy_sample: CopySample, tmp_path: Path, where: str
) -> None:
    raw = copy_sample()
    out = tmp_path / "box" / "out"
    arrow = {
        "raw": raw,
        "out": out,
        "inside-out": out / "arrow",
        "parent-of-out": tmp_path / "box",
    }[where]
    before = _tree(raw)
    with pytest.raises(OutputRefused):
        build(raw, out, arrow)
    assert _tree(raw) == before
    assert not out.exists()


def test_arrow_replaces_its_own_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    build(SAMPLE, tmp_path / "out", tmp_path / "arrow")
    assert (tmp_path / "arrow" / folder_output.MARKER).is_file()
    build(SAMPLE, tmp_path / "out", tmp_path / "arrow")
    assert datasets.load_from_disk(str(tmp_path / "arrow" / "ratings"))["core"].num_rows == 100
    (tmp_path / "arrow" / "mine.txt").write_text("x", encoding="utf-8")
    with pytest.raises(OutputRefused, match=r"mine\.txt"):
        build(SAMPLE, tmp_path / "out", tmp_path / "arrow")
    assert (tmp_path / "arrow" / "mine.txt").is_file()


def test_synthesize_refuses_unrelated_files_and_replaces_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    writer = importlib.import_module("medqade.synthetic.write")
    before = _user_folder(tmp_path / "mine")
    assert main(["synthesize", "--out", str(tmp_path / "mine")]) == 2
    _one_line_error(capsys, "--out", "thesis.txt")
    assert _tree(tmp_path / "mine") == before

    # A small stand-in for the simulator keeps this fast; the writer is what is tested.
    small = {
        "questions": pd.DataFrame({"question_id": ["Q1"]}),
        "answers": pd.DataFrame({"question_id": ["Q1"]}),
        "ratings": pd.DataFrame({"question_id": ["Q1"]}),
        "difficulty": pd.DataFrame({"question_id": ["Q1"]}),
        "judgments": [{"question_id": "Q1"}],
    }
    monkeypatch.setattr(writer, "simulate", lambda facts, seed: small)
    monkeypatch.setattr(writer, "write_pool", lambda *args: None)  # no pool
    writer.synthesize(tmp_path / "synth", seed=1)
    writer.synthesize(tmp_path / "synth", seed=2)  # its own earlier release: replaced
    assert "--seed 2" in (tmp_path / "synth" / "SYNTHETIC.txt").read_text(encoding="utf-8")
    (tmp_path / "synth" / "edited.csv").write_text("x\n", encoding="utf-8")
    with pytest.raises(OutputRefused, match=r"edited\.csv"):
        writer.synthesize(tmp_path / "synth", seed=3)
    facts = tmp_path / "facts" / "facts.jsonl"
    facts.parent.mkdir()
    facts.write_text("", encoding="utf-8")
    with pytest.raises(OutputRefused, match=r"contains the facts file"):
        writer.synthesize(tmp_path / "facts", seed=1, facts_path=facts)


# --- data loss: crash safety of the swap, leftovers -------------------------------------------


def _exchange_supported(tmp_path: Path) -> bool:
    a, b = tmp_path / "probe-a", tmp_path / "probe-b"
    a.mkdir()
    b.mkdir()
    try:
        return folder_output._exchange(a, b)
    finally:
        a.rmdir()
        b.rmdir()


def test_swap_never_leaves_the_target_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not _exchange_supported(tmp_path):
        pytest.skip("no atomic exchange on this system; the recovery test covers it")
    out = tmp_path / "out"
    build(SAMPLE, out)
    real_replace = os.replace

    def replace(src: object, dst: object) -> None:
        assert Path(str(src)) != out, "the old build was renamed aside: a crash window"
        real_replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)
    build(SAMPLE, out)
    assert build_files(out) is not None


def test_crash_between_the_renames_is_finished_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no exchange exists: old renamed aside, then the process dies before the new one
    is renamed in. The next run restores a build at OUT and removes the leftovers."""
    out = tmp_path / "out"
    build(SAMPLE, out)
    monkeypatch.setattr(folder_output, "_exchange", lambda a, b: False)
    real_replace = os.replace
    calls: list[tuple[str, str]] = []

    class Killed(BaseException):
        pass

    def replace(src: object, dst: object) -> None:
        calls.append((str(src), str(dst)))
        if Path(str(dst)) == out:  # the second rename of the swap: the process "dies" here
            raise Killed
        real_replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(shutil, "rmtree", lambda *a, **k: None)  # a dead process cleans nothing
    with pytest.raises(Killed):
        build(SAMPLE, out)
    monkeypatch.undo()
    # What a killed process leaves: no OUT, the old build aside, the complete new one beside.
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "out" not in names
    assert any(n.startswith(".out.old-") for n in names)
    assert any(n.startswith(".out.") and n.endswith(".tmp") for n in names)
    folder_output.recover(out, folder_output.Output(BUILD_KIND, manifest=build_files))
    assert build_files(out) is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_old_build_renamed_aside_is_restored_when_no_new_one_is_complete(tmp_path: Path) -> None:
    build(SAMPLE, tmp_path / "out")
    before = _tree(tmp_path / "out")
    os.replace(tmp_path / "out", tmp_path / f".out.old-{os.getpid() + 1}")
    build(SAMPLE, tmp_path / "other")  # any command that writes OUT recovers first
    folder_output.recover(tmp_path / "out", folder_output.Output(BUILD_KIND, manifest=build_files))
    assert _tree(tmp_path / "out") == before


def test_killed_build_leftovers_are_removed_by_the_next_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    half = tmp_path / ".out.abcd1234.tmp"  # a build killed while writing
    (half / "data").mkdir(parents=True)
    (half / "data" / "x.parquet").write_bytes(b"half")
    dead = 2**22 + 12345  # above the usual pid_max: no such process
    (half / folder_output.PARTIAL).write_text(
        json.dumps({"kind": BUILD_KIND, "pid": dead}), "utf-8"
    )
    done = tmp_path / ".out.efgh5678.tmp"  # a complete build swapped out, never deleted
    build(SAMPLE, done)
    foreign = tmp_path / ".out.user.tmp"  # not ours: left alone
    foreign.mkdir()
    (foreign / "keep.txt").write_text("keep", encoding="utf-8")
    build(SAMPLE, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.user.tmp", "out"]
    assert (foreign / "keep.txt").read_text(encoding="utf-8") == "keep"


def test_read_only_output_parent_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tempfile

    def denied(*args: object, **kwargs: object) -> str:
        raise PermissionError(13, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "mkdtemp", denied)  # root ignores chmod; simulate it
    assert main(["build", "--raw", str(SAMPLE), "--out", str(tmp_path / "out")]) == 2
    _one_line_error(
        capsys, "cannot write in", "Permission denied", "choose a folder you can write to"
    )


def test_other_os_errors_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device", str(tmp_path / "out"))

    monkeypatch.setattr("medqade.dataset.build._write_parquet", full)
    assert main(["build", "--raw", str(SAMPLE), "--out", str(tmp_path / "out")]) == 2
    _one_line_error(capsys, "No space left on device")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# --- silent rewrites: extra columns, names, cells --------------------------------------------


def test_reserved_names_are_every_published_column() -> None:
    assert {"consensus", "answer", "answer_id", "model", "canary", "exact_match"} <= (
        reserved_question_columns()
    )
    assert (
        published_columns()
        - {
            "question_id",
            "split",
            "question",
            "reference_answer",
            "lexical_match",
        }
        == reserved_question_columns()
    )


@pytest.mark.parametrize("column", sorted(reserved_question_columns()))
def test_extra_question_column_with_a_published_name_is_refused(
    copy_sample: CopySample, column: str
) -> None:
    raw = copy_sample()
    q = _questions(raw)
    q[column] = "Richtig"
    q.to_csv(raw / "questions.csv", index=False)
    text = _error(raw)
    assert f"questions.csv, column {column!r}: an extra column may not have the name" in text
    assert f"rename it (e.g. to source_{column})" in text


def test_duplicate_header_is_refused_not_renamed(copy_sample: CopySample) -> None:
    raw = copy_sample()
    lines = (raw / "questions.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [lines[0].replace("specialty", "question"), *lines[1:]]
    (raw / "questions.csv").write_text("".join(lines), encoding="utf-8")
    text = _error(raw)
    assert "questions.csv, line 1, column 'question': the column name appears 2 times" in text


def test_duplicate_header_after_stripping_and_empty_header(copy_sample: CopySample) -> None:
    raw = copy_sample()
    lines = (raw / "answers.csv").read_text(encoding="utf-8").splitlines()
    lines = [lines[0] + ", model"] + [line + ",x" for line in lines[1:]]
    (raw / "answers.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert "answers.csv, line 1, column 'model': the column name appears 2 times" in _error(raw)
    raw2 = copy_sample()
    text = (raw2 / "difficulty.csv").read_text(encoding="utf-8")
    (raw2 / "difficulty.csv").write_text(text.replace("\n", ",\n"), encoding="utf-8")
    assert "difficulty.csv, line 1: column 4 of the header has no name" in _error(raw2)


def test_duplicate_key_in_a_jsonl_line_is_refused(copy_sample: CopySample) -> None:
    raw = copy_sample()
    path = raw / "judgments.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2][:-1] + ', "resp_1": "Falsch"}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = _error(raw)
    assert "judgments.jsonl, line 3, column 'resp_1': the key appears more than once" in text


def test_duplicate_parquet_field_is_refused(copy_sample: CopySample) -> None:
    raw = copy_sample()
    q = pa.Table.from_pandas(_questions(raw), preserve_index=False)
    q = q.append_column("question", q.column("question"))
    (raw / "questions.csv").unlink()
    pq.write_table(q, raw / "questions.parquet")
    assert "questions.parquet, column 'question': the column name appears 2 times" in _error(raw)


def test_user_column_named_line_is_published(copy_sample: CopySample, tmp_path: Path) -> None:
    raw = copy_sample()
    q = _questions(raw)
    q["_line"] = [f"L{i}" for i in range(len(q))]
    q["_order"] = "o"
    q.to_csv(raw / "questions.csv", index=False)
    build(raw, tmp_path / "out")
    got = pq.read_table(tmp_path / "out" / "data" / "questions" / "core-00000-of-00001.parquet")
    assert got.column("_line").to_pylist() == ["L0", "L1"]
    assert got.column("_order").to_pylist() == ["o", "o"]
    answers = pq.read_table(tmp_path / "out" / "data" / "answers" / "core-00000-of-00001.parquet")
    assert set(answers.column("_line").to_pylist()) == {"L0", "L1"}


def test_nul_byte_in_a_text_cell_is_refused(copy_sample: CopySample) -> None:
    raw = copy_sample()
    q = _questions(raw)
    q.loc[1, "question"] = "Das Antidot\x00 ist ___."
    q.to_csv(raw / "questions.csv", index=False)
    text = _error(raw)
    assert "questions.csv, line 3, column 'question': the text contains a NUL character" in text
    assert "(value 'Das Antidot\\\\0 ist ___.')" in text


def test_large_field_is_accepted(copy_sample: CopySample, tmp_path: Path) -> None:
    raw = copy_sample()
    q = _questions(raw)
    long = "Ein sehr langer Fall, " * 10_000  # about 220 kB
    q.loc[0, "question"] = long
    q.to_csv(raw / "questions.csv", index=False)
    build(raw, tmp_path / "out")
    got = pq.read_table(tmp_path / "out" / "data" / "questions" / "core-00000-of-00001.parquet")
    assert got.column("question").to_pylist()[0] == long


def test_unknown_judgment_key_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    path = raw / "judgments.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4][:-1] + ', "resp_6": "Richtig"}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = _error(raw)
    assert "judgments.jsonl, line 5, column 'resp_6': unknown column 'resp_6'" in text
    assert "the build would drop it" in text


def test_unknown_ratings_column_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    r = pd.read_csv(raw / "ratings.csv", dtype=str, keep_default_na=False)
    r["comment"] = ""
    r.loc[3, "comment"] = "unsicher"
    r.to_csv(raw / "ratings.csv", index=False)
    assert "ratings.csv, line 5, column 'comment': unknown column 'comment'" in _error(raw)


def test_adjudicator_primary_rating_of_an_extension_item_is_a_problem(
    copy_sample: CopySample,
) -> None:
    raw = copy_sample()
    path = raw / "ratings.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if line.startswith("S-E02,P10,gpt-5-nano"))
    lines[n] = lines[n].replace("adjudication", "primary")
    path.write_text("".join(lines), encoding="utf-8")
    text = _error(raw)
    assert (
        f"ratings.csv, line {n + 1}, column 'round': the adjudicator P10 rates extension items "
        "only in the adjudication round (extension item S-E02) (value 'primary')"
    ) in text


def test_adjudicator_rates_core_items_as_primary(copy_sample: CopySample) -> None:
    raw = load_raw_release(copy_sample())
    core = set(raw.questions.loc[raw.questions["split"] == "core", "question_id"])
    p10 = raw.ratings[(raw.ratings["rater"] == "P10") & raw.ratings["question_id"].isin(core)]
    assert len(p10) == 10 and set(p10["round"]) == {"primary"}


# --- crashes become problems -----------------------------------------------------------------


def _ratings_parquet(raw: Path, column: str, cells: list[object]) -> None:
    """Replace ratings.csv by ratings.parquet whose ``column`` holds ``cells``."""
    r = pd.read_csv(raw / "ratings.csv", dtype=str, keep_default_na=False)
    table = pa.Table.from_pandas(r.drop(columns=[column]), preserve_index=False)
    pq.write_table(table.append_column(column, pa.array(cells)), raw / "ratings.parquet")
    (raw / "ratings.csv").unlink()


def test_parquet_list_cell_in_ratings_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    r = pd.read_csv(raw / "ratings.csv", dtype=str, keep_default_na=False)
    labels = [[v] for v in r["label"]]
    table = pa.Table.from_pandas(r.drop(columns=["label"]), preserve_index=False)
    pq.write_table(table.append_column("label", pa.array(labels)), raw / "ratings.parquet")
    (raw / "ratings.csv").unlink()
    text = _error(raw)
    assert "ratings.parquet, row 1, column 'label': expected text, got a list" in text
    assert "(value '[\"Richtig\"]')" in text


def test_parquet_struct_cell_in_ratings_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    r = pd.read_csv(raw / "ratings.csv", dtype=str, keep_default_na=False)
    structs = [{"text": v} for v in r["rater"]]
    table = pa.Table.from_pandas(r.drop(columns=["rater"]), preserve_index=False)
    pq.write_table(table.append_column("rater", pa.array(structs)), raw / "ratings.parquet")
    (raw / "ratings.csv").unlink()
    assert "ratings.parquet, row 2, column 'rater': expected text, got an object" in _error(raw)


def test_jsonl_resp_that_is_an_object_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    path = raw / "judgments.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[1])
    rec["resp_1"] = {"label": "Richtig"}
    lines[1] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = _error(raw)
    assert "judgments.jsonl, line 2, column 'resp_1': expected text, got an object" in text


def test_extra_list_column_in_questions_parquet_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    q = pa.Table.from_pandas(_questions(raw), preserve_index=False)
    q = q.append_column("tags", pa.array([["a", "b"]] * q.num_rows))
    (raw / "questions.csv").unlink()
    pq.write_table(q, raw / "questions.parquet")
    assert "questions.parquet, row 1, column 'tags': expected text, got a list" in _error(raw)


def test_extra_column_arrow_cannot_convert_names_file_and_column(copy_sample: CopySample) -> None:
    raw = copy_sample()
    records = _questions(raw).to_dict("records")
    records[2]["note"] = "\ud800 kaputt"  # a lone surrogate: not storable as UTF-8
    _write_questions_jsonl(raw, records)
    text = _error(raw)
    assert "questions.jsonl, line 3, column 'note': the text is not valid Unicode" in text


def test_binary_parquet_column_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    q = pa.Table.from_pandas(_questions(raw), preserve_index=False)
    q = q.append_column("blob", pa.array([b"\x00\x01"] * q.num_rows, type=pa.binary()))
    (raw / "questions.csv").unlink()
    pq.write_table(q, raw / "questions.parquet")
    assert "questions.parquet, row 1, column 'blob': expected text, got binary data" in _error(raw)


def test_numbers_in_extra_parquet_columns_are_text(copy_sample: CopySample, tmp_path: Path) -> None:
    raw = copy_sample()
    q = pa.Table.from_pandas(_questions(raw), preserve_index=False)
    q = q.append_column("year", pa.array([2020 + i for i in range(q.num_rows)]))
    (raw / "questions.csv").unlink()
    pq.write_table(q, raw / "questions.parquet")
    build(raw, tmp_path / "out")
    got = pq.read_table(tmp_path / "out" / "data" / "questions" / "core-00000-of-00001.parquet")
    assert got.column("year").to_pylist() == ["2020", "2021"]


def test_bad_release_through_the_cli_lists_problems_without_a_traceback(
    copy_sample: CopySample, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    models = pd.read_csv(raw / "ratings.csv", dtype=str)["model"]
    _ratings_parquet(raw, "model", [[m] for m in models])
    assert main(["build", "--raw", str(raw), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "ratings.parquet, row 1, column 'model': expected text, got a list" in err
    assert not (tmp_path / "out").exists()


def test_space_without_gradio_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "gradio", None)  # import gradio -> ImportError
    assert main(["space"]) == 2
    _one_line_error(capsys, "pip install 'medqade[space]'")


def test_arrow_conversion_failure_names_config_and_column() -> None:
    """The last guard: a value Arrow cannot store is a problem naming config and column."""
    from medqade.dataset.build import _arrow
    from medqade.dataset.derive import derive_tables

    tables = derive_tables(load_raw_release(SAMPLE))
    frame = tables.questions.copy()
    frame["specialty"] = [["a"]] * len(frame)
    with pytest.raises(InputError) as info:
        _arrow(frame, "questions", ("specialty",))
    text = str(info.value)
    assert "questions table, column 'specialty': cannot be stored as string" in text
    assert "(value \"['a']\")" in text
