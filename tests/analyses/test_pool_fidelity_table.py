"""Table S9 (ranking fidelity on the whole pool): every evaluator with pool labels, its tau
equal to scipy's on Table S5's estimates, its intervals from one set of stratified resamples
shared by all evaluators, and the worked example of docs/statistics.md on the sample pool."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau

from medqade.analyses.pool_fidelity_table import NAME, pool_fidelity_report, pool_fidelity_table
from medqade.analyses.report import Report
from medqade.analyses.supplement_tables import supplement_tables
from medqade.dataset.build import build
from medqade.dataset.pool_data import load_pool_labels
from medqade.measures import PoolFidelity, estimate_pool, pool_fidelity, pool_resamples
from medqade.vocab import DEFAULT_ROSTER

RESAMPLES = 40
SEED = 7


@pytest.fixture(scope="module")
def s9(synthetic_build: Path) -> dict[str, PoolFidelity]:
    found = pool_fidelity_report(synthetic_build, DEFAULT_ROSTER, RESAMPLES, SEED)
    assert found is not None
    return found


def test_s9_has_every_pool_judge_and_scipy_tau_on_s5(
    s9: dict[str, PoolFidelity], synthetic_build: Path
) -> None:
    assert list(s9) == list(DEFAULT_ROSTER.evaluator_ids)  # the synthetic pool has all nine
    for judge in (DEFAULT_ROSTER.evaluator_ids[0], DEFAULT_ROSTER.evaluator_ids[-1]):
        s5 = estimate_pool(load_pool_labels(synthetic_build, judge))
        j = [s5[s].judge_only.estimate for s in DEFAULT_ROSTER.student_ids]
        p = [s5[s].ppi.estimate for s in DEFAULT_ROSTER.student_ids]
        found = s9[judge]
        assert found.tau.value == pytest.approx(kendalltau(j, p).statistic, abs=1e-12)
        assert [r.physicians.value for r in found.students] == p
        assert found.tau.low <= found.tau.value <= found.tau.high
        assert found.largest_error.low <= found.largest_error.value <= found.largest_error.high
        for row in found.students:
            assert row.difference.low <= row.difference.value <= row.difference.high


def test_s9_every_judge_on_the_same_resamples(
    s9: dict[str, PoolFidelity], synthetic_build: Path
) -> None:
    judge = DEFAULT_ROSTER.evaluator_ids[4]
    labels = load_pool_labels(synthetic_build, judge)
    idx = pool_resamples(labels.lexical_pool[labels.labelled], RESAMPLES, SEED)
    direct = pool_fidelity(labels, idx)
    assert direct.to_json() == s9[judge].to_json()


def test_s9_bootstrap_spread_is_s5_error_without_the_finite_correction(
    synthetic_build: Path,
) -> None:
    labels = load_pool_labels(synthetic_build, DEFAULT_ROSTER.evaluator_ids[0])
    idx = pool_resamples(labels.lexical_pool[labels.labelled], 300, SEED)
    found = pool_fidelity(labels, idx)
    s5 = estimate_pool(labels)
    for row in found.students:
        assert row.physicians.replicates is not None
        ratio = float(np.std(row.physicians.replicates)) / s5[row.student].ppi.se
        assert 0.9 < ratio < 1.25  # ~1 / sqrt(1 - n_h / N_h): a little wider than S5's


def test_s9_table_rows_and_csv(s9: dict[str, PoolFidelity]) -> None:
    table = pool_fidelity_table(s9, DEFAULT_ROSTER)
    assert table.name == NAME and "26598 items; physicians labelled 3800" in table.title
    assert len(table.rows) == 9 and len(table.header) == 6 + 5
    first = s9[DEFAULT_ROSTER.evaluator_ids[0]]
    values = dict(zip(table.csv_header, table.csv_rows[0], strict=True))
    assert values["kendall_tau_b"] == first.tau.value
    assert values["largest_error_high"] == first.largest_error.high
    student = DEFAULT_ROSTER.student_ids[2]
    row = next(r for r in first.students if r.student == student)
    assert values[f"error_{student}_low"] == row.difference.low
    assert values[f"judge_{student}"] == row.judge
    assert table.rows[0][6 + 2].startswith(f"{100 * row.difference.value:+.1f} [")
    assert table.rows[0][1] == (
        f"{first.tau.value:.3f} [{first.tau.low:.3f}, {first.tau.high:.3f}]"
    )
    assert values["probability_best"] == pytest.approx(first.probability_best)


def test_s9_is_the_last_supplementary_table_when_present(
    report: Report, s9: dict[str, PoolFidelity]
) -> None:
    assert NAME not in [t.name for t in supplement_tables(report)]
    with_pool = dataclasses.replace(report, pool_fidelity=s9)
    assert supplement_tables(with_pool)[-1].name == NAME
    assert set(with_pool.to_dict()["pool_fidelity"]) == set(s9)


def test_s9_none_without_pool(built_sample: Path) -> None:
    assert pool_fidelity_report(built_sample, DEFAULT_ROSTER, 10, SEED) is None


def test_s9_worked_example_on_the_sample_pool(
    pool_sample: Callable[..., Path], tmp_path: Path
) -> None:
    """docs/statistics.md: the sample pool's one judge says Richtig to the first student only."""
    folder = tmp_path / "built"
    build(pool_sample(), folder)
    found = pool_fidelity_report(folder, DEFAULT_ROSTER, 200, SEED)
    assert found is not None and list(found) == ["gemini-3-flash-preview"]
    f = found["gemini-3-flash-preview"]
    assert (f.n_pool, f.n_labelled) == (8, 6)
    assert [r.judge for r in f.students] == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert [r.physicians.value for r in f.students] == pytest.approx(
        [7 / 8, 7 / 16, 9 / 16, 0.0, 3 / 14]
    )
    assert f.tau.value == pytest.approx(4 / math.sqrt(4 * 10))
    assert f.largest_error.value == pytest.approx(9 / 16)
    assert f.largest_error_student == "gemma3:27b"
    assert f.judge_best == f.physicians_best == ("gemini-2.5-flash",)
    table = pool_fidelity_table(found, DEFAULT_ROSTER)
    assert "8 items; physicians labelled 6" in table.title
