"""The Analysis tab: figures and plot frames from ``reproduce`` and judge records."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from medqade.app import analysis
from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState


def test_analysis_inputs_from_report(sample_release, tmp_path: Path) -> None:
    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    state = SpaceState(sample_release, tmp_path, config, background=False)
    report = state.report.result(timeout=60)
    for key, _ in analysis.FIGURES:
        fig = analysis.figure(report, key)
        assert isinstance(fig, Figure) and analysis.figure(report, key) is fig
    frame = analysis.abstention_frame(report)
    assert set(frame["tier"]) == {"T1", "T2", "T3", "T4"}
    assert "Physicians (median)" in set(frame["rater"])
    judge = next(r for r in state.records() if r["meta"].get("model_id") == "gpt-5.4-mini")
    long, table = analysis.judge_tier_frames(judge)
    assert set(long["metric"]) == {"kappa", "PA", "PABAK"}
    assert table["tier"].tolist() == ["T1", "T2", "T3", "T4"]


def test_state_without_analyses_reports_why(sample_release, tmp_path: Path) -> None:
    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    state = SpaceState(sample_release, tmp_path, config, background=False, analyses=False)
    assert "switched off" in str(state.report.exception())


def test_reference_records_cached_on_disk(sample_release, tmp_path: Path, monkeypatch) -> None:
    from medqade import scoring

    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    first = SpaceState(sample_release, tmp_path, config, background=False, analyses=False)
    assert list((tmp_path / "reference").glob("*.json"))

    def no_recompute(*args: object, **kwargs: object) -> None:
        raise AssertionError("reference records must come from the cache")

    monkeypatch.setattr(scoring, "reference_records", no_recompute)
    second = SpaceState(sample_release, tmp_path, config, background=False, analyses=False)
    assert [r["id"] for r in second.records()] == [r["id"] for r in first.records()]
