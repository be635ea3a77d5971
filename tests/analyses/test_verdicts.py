"""Table S6 (the verdict against the physicians) gives the numbers of ``medqade score``.

Issue 24's done-when: the numbers are identical across ``score``, ``leaderboard``, ``compare``,
the Space (tests/app/test_same_numbers.py) and ``reproduce`` (here). A paper evaluator's labels
are written as a judge submission and scored by the CLI with the report's resamples and seed;
its record and report.json must hold the same unrounded values, and so must S6's CSV.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from medqade.analyses.report import Report, Table, reproduce
from medqade.cli import main
from medqade.dataset.release import Release, load_release
from medqade.measures import paired

from .conftest import RESAMPLES, SEED

EVALUATORS = ("gpt-5.4-mini", "gemini-2.5-flash", "qwen3:4b")
S6 = "table_s6_verdicts"


def _judge_csv(release: Release, evaluator: str, path: Path) -> Path:
    """One paper evaluator's labels as a judge submission (question_id, model, label)."""
    j = release.judgments
    frame = j[j["evaluator"] == evaluator][["question_id", "model", "label"]]
    frame.sort_values(["question_id", "model"]).to_csv(path, index=False)
    return path


def _score(capsys: pytest.CaptureFixture[str], path: Path, *argv: str) -> Any:
    capsys.readouterr()
    assert main(["score", str(path), *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _table(report: Report) -> Table:
    return next(t for t in report.tables() if t.name == S6)


def _csv_row(table: Table, evaluator: str) -> dict[str, str]:
    rows = csv.DictReader(io.StringIO(table.to_csv()))
    return next(r for r in rows if r["evaluator"] == evaluator)


def _num(cell: str) -> float | None:
    return None if cell == "" else float(cell)


def _check_same(report: Report, evaluator: str, record: dict[str, Any]) -> None:
    row = json.loads(report.to_json())["verdicts"]["evaluators"][evaluator]
    diff = dict(record["physician_difference"])
    diff.pop("rated")  # the secondary difference with the judge's abstentions dropped
    # the named values first (clear failures), then every key of the blocks
    for m in ("kappa", "pa", "pabak"):
        assert row["physician_difference"][m] == diff[m], m
        assert row["physician_difference"][f"{m}_ci"] == diff[f"{m}_ci"], m
    assert row["verdict"] == record["verdict"]
    assert row["headline"] == record["headline"]
    ext = record["extension_difference"]
    assert ext is not None
    assert row["extension_difference"]["kappa"] == ext["kappa"]
    assert row["extension_difference"]["kappa_ci"] == ext["kappa_ci"]
    assert row["alt_test"]["winning_rate"] == record["alt_test"]["winning_rate"]
    assert row["alt_test"]["passed"] == record["alt_test"]["passed"]
    assert row["physician_difference"] == diff
    assert row["extension_difference"] == ext
    assert row["alt_test"] == record["alt_test"]
    # S6's CSV writes the same unrounded values and the one verdict word
    head = record["headline"]
    cells = _csv_row(_table(report), evaluator)
    assert cells["verdict"] == (record["verdict"] or "")
    assert _num(cells["d_kappa"]) == head["kappa"]
    assert [_num(cells["d_kappa_low"]), _num(cells["d_kappa_high"])] == head["kappa_ci"]
    assert cells["decided_on"] == head["decided_on"]
    assert _num(cells["core_d_kappa"]) == diff["kappa"]
    assert [_num(cells["core_d_kappa_low"]), _num(cells["core_d_kappa_high"])] == diff["kappa_ci"]
    assert _num(cells["ext_d_kappa"]) == ext["kappa"]
    assert [_num(cells["ext_d_kappa_low"]), _num(cells["ext_d_kappa_high"])] == ext["kappa_ci"]
    assert _num(cells["alt_omega"]) == record["alt_test"]["winning_rate"]
    assert cells["alt_passed"] == str(record["alt_test"]["passed"])
    assert head["margin"] == paired.DEFAULT_MARGIN
    assert "verdict_pa" not in cells and "ext_verdict" not in cells  # one word per judge


@pytest.mark.parametrize("evaluator", EVALUATORS[:2])
def test_s6_equals_the_score_record(
    report: Report,
    release: Release,
    release_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    evaluator: str,
) -> None:
    """The synthetic release, the report's resamples and seed passed to ``score``."""
    path = _judge_csv(release, evaluator, tmp_path / "judge.csv")
    record = _score(
        capsys, path, "--data", str(release_dir), "--resamples", str(RESAMPLES), "--seed", str(SEED)
    )
    _check_same(report, evaluator, record)


def test_s6_equals_the_score_record_with_defaults(
    built_sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both commands' defaults (1,000 resamples, the bootstrap seed) give the same numbers."""
    release = load_release(built_sample)
    report = reproduce(release)
    for evaluator in EVALUATORS:
        path = _judge_csv(release, evaluator, tmp_path / f"{evaluator.replace(':', '_')}.csv")
        _check_same(report, evaluator, _score(capsys, path, "--data", str(built_sample)))


def test_s6_has_every_evaluator_and_a_note(report: Report, release: Release) -> None:
    table = _table(report)
    assert table.title.startswith("Table S6. One verdict per judge against the physicians")
    assert [r[0] for r in table.rows] == [
        release.roster.name(e) for e in release.roster.evaluator_ids
    ]
    assert "on the answers that physician rated" in table.note
    assert "abstentions and missing labels count as disagreements" in table.note
    verdicts = report.verdicts
    assert verdicts is not None
    words = {v.headline.verdict for v in verdicts.evaluators.values()}
    assert words <= {*paired.VERDICTS, None}
    assert f"### {table.title}" in report.to_markdown()
