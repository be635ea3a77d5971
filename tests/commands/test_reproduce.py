"""``medqade reproduce`` end to end on a full synthetic release (built once per session)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from medqade.analyses.figures import FIGURES
from medqade.analyses.report import SYNTHETIC_BANNER
from medqade.cli import main
from medqade.dataset.release import load_release

ANALYSES = Path(__file__).resolve().parents[1] / "analyses"
FAST = ["--resamples", "40", "--contrast-resamples", "60", "--seed", "11"]


def _load(name: str) -> ModuleType:
    """A helper module of tests/analyses, by path (works under any pytest import mode)."""
    spec = importlib.util.spec_from_file_location(f"_reproduce_cli_{name}", ANALYSES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def data_dir(synthetic_build: Path) -> Path:
    """The shared synthetic build (built once per session)."""
    return synthetic_build


def _run(data: Path, out: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    rc = main(["reproduce", "--data", str(data), "--out", str(out), "--format", fmt, *FAST])
    assert rc == 0
    return capsys.readouterr().out


def _figures_exist(out: Path) -> None:
    for stem in FIGURES:
        for ext in ("png", "svg"):
            path = out / f"{stem}.{ext}"
            assert path.is_file() and path.stat().st_size > 0, path


def test_reproduce_json_writes_report_and_figures(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stdout = _run(data_dir, tmp_path / "a", "json", capsys)
    assert stdout.splitlines()[0] == SYNTHETIC_BANNER
    for n in (1, 2, 3, 4):
        assert f"### Table {n}." in stdout
    _figures_exist(tmp_path / "a")
    data = json.loads((tmp_path / "a" / "report.json").read_text(encoding="utf-8"))
    _load("helpers").check_report_shape(data, load_release(data_dir))
    assert data["meta"]["resamples"] == 40
    assert data["meta"]["seed"] == 11


def test_reproduce_json_is_byte_identical_across_runs(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(data_dir, tmp_path / "a", "json", capsys)
    _run(data_dir, tmp_path / "b", "json", capsys)
    first = (tmp_path / "a" / "report.json").read_bytes()
    assert first == (tmp_path / "b" / "report.json").read_bytes()
    assert (tmp_path / "a" / "figure3_bias_forest.svg").read_bytes() == (
        tmp_path / "b" / "figure3_bias_forest.svg"
    ).read_bytes()


def test_reproduce_csv_writes_one_file_per_table(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(data_dir, tmp_path, "csv", capsys)
    names = sorted(p.name for p in tmp_path.glob("*.csv"))
    assert names[:4] == [
        "table1_physician_reliability.csv",
        "table2_student_accuracy.csv",
        "table3_evaluator_alignment.csv",
        "table4_abstention.csv",
    ]
    assert (
        len(names) == 13
    )  # tables 1-4, S1-S4, S5 and S9 (the synthetic release has a pool), S6-S8
    assert "table_s4_physicians.csv" in names and "table_s5_pool.csv" in names
    assert names[-1] == "table_s9_pool_fidelity.csv"
    assert "table_s7_position.csv" in names and "table_s8_fidelity.csv" in names
    fidelity = (tmp_path / "table_s8_fidelity.csv").read_text().splitlines()
    assert fidelity[0].startswith("evaluator,kendall_tau_b,kendall_tau_b_low,kendall_tau_b_high")
    assert len(fidelity) == 1 + 9  # the nine paper judges
    on_pool = (tmp_path / "table_s9_pool_fidelity.csv").read_text().splitlines()
    assert len(on_pool) == 1 + 9  # the synthetic pool has the nine judges' labels
    header = (tmp_path / "table1_physician_reliability.csv").read_text().splitlines()[0]
    assert header.startswith("student,kappa,kappa_low,kappa_high")
    _figures_exist(tmp_path)


def test_reproduce_md_writes_report_md(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stdout = _run(data_dir, tmp_path, "md", capsys)
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == stdout
    assert not (tmp_path / "report.json").exists()


def test_reproduce_without_cost_writes_no_cost_figure_and_says_why(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["reproduce", "--data", str(data_dir), "--out", str(tmp_path), "--format", "md"]
    rc = main([*args, *FAST])
    assert rc == 0
    err = capsys.readouterr().err
    assert "no cost figure" in err and "no token counts" in err
    assert not list(tmp_path.glob("figure_cost_frontier.*"))


def test_reproduce_rejects_zero_resamples(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "--data", str(data_dir), "--out", str(tmp_path), "--resamples", "0"])
    assert exc.value.code == 2
    assert "positive integer" in capsys.readouterr().err


def test_reproduce_missing_data_folder_is_a_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["reproduce", "--data", str(tmp_path / "nope"), "--out", str(tmp_path / "o")])
    assert rc == 2
    assert "medqade reproduce" in capsys.readouterr().err


def test_reproduce_on_a_public_build_with_held_out_labels_uses_the_labelled_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A held-out item is not an unresolved one: the analyses run on the labelled items and
    say so (the analyses themselves are stubbed: the sample is too small for them)."""
    import medqade.commands.reproduce as command
    from medqade.dataset.build import build
    from medqade.dataset.holdout import HoldOut

    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    build(sample, tmp_path / "pub", hold_out=HoldOut(2), private_out=tmp_path / "priv")
    seen = []

    def stub(release, **_: object) -> None:
        seen.append(release)
        raise ValueError("stopped")

    monkeypatch.setattr(command, "reproduce", stub)
    args = ["reproduce", "--data", str(tmp_path / "pub"), "--out", str(tmp_path / "o"), *FAST]
    assert main(args) == 2
    assert "holds out the labels of 2 of 6 items; the analyses use the 4" in capsys.readouterr().err
    assert seen[0].n_items == 4 and not seen[0].held_out.any()
    assert (seen[0].consensus >= 0).sum() == 4 * 5 - 1  # S-E04/gemma3:4b stays unresolved
