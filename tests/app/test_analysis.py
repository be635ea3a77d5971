"""The Analysis tab: figures from ``reproduce`` and judge records, captions on the page."""

from __future__ import annotations

import math
from pathlib import Path

from matplotlib.figure import Figure

from medqade.app import analysis
from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.app.tab_analysis import judge_records


def test_analysis_inputs_from_report(sample_release, tmp_path: Path) -> None:
    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    state = SpaceState(sample_release, tmp_path, config, background=False)
    report = state.report.result(timeout=60)
    for key, _, caption in analysis.FIGURES:
        fig = analysis.figure(report, key)
        assert isinstance(fig, Figure) and analysis.figure(report, key) is fig
        assert caption  # titles and captions live on the page, not on the image
        for ax in fig.axes:
            assert ax.get_title() == ""
    judge = next(r for r in state.records() if r.meta and r.meta.model_id == "gpt-5.4-mini")
    name = str(judge.meta.name)
    risk = analysis.figure(report, "risk", name)
    assert risk is not analysis.figure(report, "risk")
    labels = [t.get_text() for t in risk.legends[0].get_texts()]
    assert labels == [name, "other evaluators"]
    abstention = analysis.figure(report, "abstention")
    entries = [t.get_text() for t in abstention.legends[0].get_texts()]
    assert len(entries) == 1 + len(report.rq5.evaluators)  # every rater in the legend
    fig = analysis.judge_figure(judge, name)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["kappa", "PA", "PABAK"]
    table = analysis.judge_tier_table(judge)
    assert table["tier"].tolist() == ["T1", "T2", "T3", "T4"]
    chosen = judge_records(state.records())[name]  # the Analysis tab reads them typed
    assert chosen.id == judge.id and analysis.judge_tier_table(chosen).equals(table)


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
    assert [r.id for r in second.records()] == [r.id for r in first.records()]


def test_panel_frame_shows_the_reports_panel_statistics(sample_release, tmp_path: Path) -> None:
    """The ceiling's whole-panel table formats Table 1's Fleiss, AC1, alpha and ICC."""
    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    report = SpaceState(sample_release, tmp_path, config, background=False).report.result(60)
    table = analysis.panel_frame(report)
    assert len(table) == len(report.rq1.slots) + 1
    for k, (model_id, slot) in enumerate(report.rq1.slots.items()):
        row = table.iloc[k]
        assert row["student slot"] == report.roster.name(model_id)
        for column, est in (("Fleiss kappa", slot.fleiss), ("Gwet AC1", slot.ac1)):
            if math.isnan(est.value):
                assert row[column] == ""  # undefined is shown as empty, never as 0
            else:
                assert row[column].startswith(f"{round(est.value, 3):.3f}")
    icc = report.rq1.difficulty_icc
    assert table.iloc[-1]["ICC(2,1)"].startswith(f"{round(icc.value, 3):.3f}")
    assert analysis.ci_cell(float("nan"), 0.1, 0.2) == ""
    assert analysis.ci_cell(0.5, float("nan"), 0.2) == "0.500"


def test_panel_frame_headers_match_values_icc_column(sample_release, tmp_path: Path) -> None:
    """The difficulty row's ICC(2,1) sits under an "ICC(2,1)" header, never under "Gwet AC1"
    (which the difficulty row leaves empty); every other column holds only its own measure."""
    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    report = SpaceState(sample_release, tmp_path, config, background=False).report.result(60)
    table = analysis.panel_frame(report)
    assert list(table.columns) == [
        "student slot",
        "mean pairwise kappa",
        "Fleiss kappa",
        "Gwet AC1",
        "alpha",
        "ICC(2,1)",
    ]
    last = table.iloc[-1]
    assert last["student slot"] == "difficulty (0/1/2)" and last["Gwet AC1"] == ""
    icc = report.rq1.difficulty_icc
    if not math.isnan(icc.value):
        assert last["ICC(2,1)"].startswith(f"{round(icc.value, 3):.3f}")
    assert (table.iloc[:-1]["ICC(2,1)"] == "").all()  # ICC is defined for difficulty only
    assert not table.drop(columns="student slot").stack().astype(str).str.contains("ICC").any()
