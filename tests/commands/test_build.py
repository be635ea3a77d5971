"""Tests of ``medqade build`` through :func:`medqade.cli.main`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import datasets
import pytest

from medqade.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_main_build_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["build", "--raw", str(SAMPLE), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == f"built {out}: 6 items, 30 answer slots, 2 unresolved"
    assert captured.err == ""
    assert (out / "release.json").is_file() and (out / "README.md").is_file()


def test_main_build_bad_release_exits_2(
    tmp_path: Path, copy_sample: Callable[[], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    text = (raw / "ratings.csv").read_text(encoding="utf-8")
    (raw / "ratings.csv").write_text(text.replace("P09,", "P99,", 1), encoding="utf-8")
    assert main(["build", "--raw", str(raw), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"medqade build: raw release {raw.name}: 1 problem found\n")
    assert "ratings.csv, line 10, column 'rater': unknown rater (value 'P99')" in err
    assert not (tmp_path / "out").exists()


def test_main_build_warning_on_stderr(
    tmp_path: Path, copy_sample: Callable[[], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    raw = copy_sample()
    lines = (raw / "ratings.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    del lines[1]  # S-C01, P01, gemini-2.5-flash
    (raw / "ratings.csv").write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["build", "--raw", str(raw), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning: ratings.csv, column 'question_id': core answer S-C01/gemini-2.5-flash" in err
    meta = json.loads((out / "release.json").read_text(encoding="utf-8"))
    assert meta["n_warnings"] == 1
    assert "S-C01/gemini-2.5-flash has 9 of 10 physician ratings" in meta["warnings"][0]


def test_main_build_missing_raw_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "--raw", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_main_build_arrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    out, arrow = tmp_path / "out", tmp_path / "arrow"
    assert main(["build", "--raw", str(SAMPLE), "--out", str(out), "--arrow", str(arrow)]) == 0
    ds = datasets.load_from_disk(str(arrow / "ratings"))
    assert isinstance(ds, datasets.DatasetDict)
    assert ds["core"].num_rows == 100


def test_main_build_default_out_loads_by_bare_name(
    tmp_path: Path, hf_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`medqade build` writes ./medqade, so `load_dataset("medqade")` works from that folder."""
    from datasets import load_dataset

    monkeypatch.chdir(tmp_path)
    assert main(["build", "--raw", str(SAMPLE)]) == 0
    assert (tmp_path / "medqade" / "README.md").is_file()
    dd = load_dataset("medqade", cache_dir=str(hf_cache))
    assert set(dd) == {"core", "extension"}
    assert (dd["core"].num_rows, dd["extension"].num_rows) == (2, 4)


# --- held-out labels (issue 35) -------------------------------------------------------------


def _hold_out(out: Path, private: Path, *more: str) -> list[str]:
    return ["build", "--raw", str(SAMPLE), "--out", str(out), "--hold-out", "2",
            "--private-out", str(private), *more]  # fmt: skip


def _contents(*folders: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for f in folders for p in sorted(f.rglob("*")) if p.is_file()}


def test_main_build_hold_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pyarrow.parquet as pq

    out, private = tmp_path / "out", tmp_path / "private"
    assert main(_hold_out(out, private, "--hold-out-seed", "4")) == 0
    said = capsys.readouterr().out
    assert f"built {out}: 6 items, 30 answer slots" in said
    assert f"held out the labels of 2 items (10 answer slots, seed 4): written to {private}" in said
    meta = json.loads((out / "release.json").read_text(encoding="utf-8"))
    assert meta["holdout"]["seed"] == 4 and meta["counts"]["all"]["held_out_items"] == 2
    manifest = json.loads((private / "medqade-private.json").read_text(encoding="utf-8"))
    answers = pq.read_table(out / "data/answers/core-00000-of-00001.parquet").to_pandas()
    held = answers[answers["held_out"]]
    assert set(held["question_id"]) == set(manifest["item_ids"]["core"])
    assert held["consensus"].isna().all()
    # the same command again: the same bytes (and each folder may replace its own output)
    first = {
        p: p.read_bytes() for p in sorted([*out.rglob("*"), *private.rglob("*")]) if p.is_file()
    }
    assert main(_hold_out(out, private, "--hold-out-seed", "4")) == 0
    again = {
        p: p.read_bytes() for p in sorted([*out.rglob("*"), *private.rglob("*")]) if p.is_file()
    }
    assert again == first


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("inside_out", "contains the private part (--private-out)"),
        ("same_as_out", "is the private part (--private-out)"),
        ("over_raw", "is the raw release (--raw)"),
        ("inside_raw", "lies inside the raw release (--raw)"),
        ("foreign", "was not written as a MedQADE private part"),
    ],
)
def test_main_build_refuses_a_private_part_in_the_wrong_place(
    tmp_path: Path,
    copy_sample: Callable[[], Path],
    capsys: pytest.CaptureFixture[str],
    where: str,
    message: str,
) -> None:
    raw, out = copy_sample(), tmp_path / "out"
    private = {
        "inside_out": out / "private",
        "same_as_out": out,
        "over_raw": raw,
        "inside_raw": raw / "private",
        "foreign": tmp_path / "notes",
    }[where]
    if where == "foreign":
        private.mkdir()
        (private / "todo.txt").write_text("mine", encoding="utf-8")
    before = sorted(p.name for p in raw.iterdir())
    args = ["build", "--raw", str(raw), "--out", str(out), "--hold-out", "2",
            "--private-out", str(private)]  # fmt: skip
    assert main(args) != 0
    assert message in capsys.readouterr().err
    assert not out.exists() and sorted(p.name for p in raw.iterdir()) == before


def test_main_build_refuses_a_public_build_inside_an_earlier_private_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, private = tmp_path / "out", tmp_path / "private"
    assert main(_hold_out(out, private)) == 0
    capsys.readouterr()
    assert main(_hold_out(private / "pub", tmp_path / "p2")) != 0
    assert "lies inside a MedQADE private part" in capsys.readouterr().err
    assert not (private / "pub").exists()


@pytest.mark.parametrize("missing", ["--hold-out", "--private-out"])
def test_main_build_hold_out_needs_both_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], missing: str
) -> None:
    args = _hold_out(tmp_path / "out", tmp_path / "private")
    k = args.index(missing)
    del args[k : k + 2]
    assert main(args) == 2
    assert "--hold-out N and --private-out PRIVATE come together" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
