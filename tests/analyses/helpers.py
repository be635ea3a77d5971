"""Independent oracles for the analysis tests: scikit-learn, krippendorff, plain loops."""

from __future__ import annotations

import warnings
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score

from medqade.dataset.release import Release

TOL = 1e-9


def weights_of(indices: np.ndarray, n_units: int) -> np.ndarray:
    """Count weights (R, units) of an explicit index matrix, one bincount per row."""
    return np.stack([np.bincount(row, minlength=n_units) for row in indices])


def pairable(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The units both label vectors rated substantively (codes 0/1)."""
    ok = np.isin(a, (0, 1)) & np.isin(b, (0, 1))
    return a[ok], b[ok]


def kappa(a: np.ndarray, b: np.ndarray) -> float:
    """scikit-learn's Cohen's kappa on the pairable units; NaN when undefined or n < 2."""
    x, y = pairable(np.asarray(a), np.asarray(b))
    if x.size < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(cohen_kappa_score(x, y, labels=[0, 1], replace_undefined_by=np.nan))


def pa(a: np.ndarray, b: np.ndarray) -> float:
    x, y = pairable(np.asarray(a), np.asarray(b))
    return float(np.mean(x == y)) if x.size else float("nan")


def panel_means(x: np.ndarray) -> tuple[float, float]:
    """Mean pairwise kappa and PA over all rater pairs of x (raters, units)."""
    ks, ps = [], []
    for i, j in combinations(range(x.shape[0]), 2):
        ks.append(kappa(x[i], x[j]))
        ps.append(pa(x[i], x[j]))
    return float(np.nanmean(ks)), float(np.nanmean(ps))


def alpha(x: np.ndarray, level: str = "nominal", valid: tuple[int, ...] = (0, 1)) -> float:
    """krippendorff.alpha on x (raters, units), codes outside ``valid`` missing."""
    data = np.where(np.isin(x, valid), x, np.nan).astype(float)
    try:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except ValueError:
        return float("nan")


def majority(labels: list[int]) -> int:
    """Strict majority of Richtig (1) vs Falsch (0) votes; -1 on a tie or no vote."""
    r = sum(1 for v in labels if v == 1)
    f = sum(1 for v in labels if v == 0)
    return 1 if r > f else 0 if f > r else -1


def close(a: float, b: float, tol: float = TOL) -> bool:
    if np.isnan(a) or np.isnan(b):
        return bool(np.isnan(a) and np.isnan(b))
    return abs(a - b) <= tol


SLOT_KEYS = {"kappa", "kappa_ci", "pa", "pa_ci", "pabak", "pabak_ci", "alpha", "alpha_ci"}
AGREEMENT_KEYS = {"kappa", "kappa_ci", "pa", "pa_ci", "pabak", "pabak_ci"}
PROPORTION_KEYS = {"correct", "n", "acc", "ci"}


def check_report_shape(data: dict[str, Any], release: Release) -> None:
    """Every key the issue lists for report.json, with roster ids as keys."""
    roster = release.roster
    students, evaluators = set(roster.student_ids), set(roster.evaluator_ids)
    assert {"rq1", "rq2", "rq3", "rq4", "rq5", "meta"} <= set(data)
    rq1 = data["rq1"]
    assert set(rq1["slots"]) == students
    assert all(set(v) >= SLOT_KEYS for v in rq1["slots"].values())
    assert {"kappa", "pa", "pabak", "alpha"} <= set(rq1["mean"])
    assert "difficulty_alpha" in rq1
    rq2 = data["rq2"]
    assert set(rq2["accuracy"]) == students
    assert all(set(v) >= PROPORTION_KEYS for v in rq2["accuracy"].values())
    for v in rq2["by_lexical"].values():
        assert {"exact", "no_exact", "diff", "diff_ci"} <= set(v)
        assert set(v["exact"]) >= PROPORTION_KEYS and set(v["no_exact"]) >= PROPORTION_KEYS
    assert all(set(v) == {"1", "2", "3", "4"} for v in rq2["by_tier"].values())
    assert set(rq2["by_tier"]) == students
    rq3 = data["rq3"]
    assert set(rq3["physician_loo"]) >= AGREEMENT_KEYS
    assert set(rq3["evaluators"]) == evaluators
    assert all(AGREEMENT_KEYS | {"n"} <= set(v) for v in rq3["evaluators"].values())
    assert set(rq3["ensembles"]) == {"kappa", "pa", "pabak"}
    for v in rq3["ensembles"].values():
        assert {"members", "value", "diff_vs_best_single", "diff_ci"} <= set(v)
    rq4 = data["rq4"]
    assert set(rq4["self"]) <= evaluators
    assert all({"delta", "ci", "n"} <= set(v) for v in rq4["self"].values())
    assert all({"evaluator", "student", "delta", "ci", "n"} <= set(v) for v in rq4["family"])
    rq5 = data["rq5"]
    assert len(rq5["physicians"]["median_by_tier"]) == 4
    assert set(rq5["physicians"]["by_physician"]) == set(roster.physicians)
    assert all(len(v) == 4 for v in rq5["physicians"]["by_physician"].values())
    assert set(rq5["evaluators"]) == evaluators
    assert all({"global", "by_tier"} <= set(v) for v in rq5["evaluators"].values())
    assert {"data_hash", "resamples", "seed", "version", "synthetic"} <= set(data["meta"])


def statsmodels_fleiss(ratings: np.ndarray) -> float:
    """statsmodels' Fleiss kappa of complete ratings (raters, units)."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    table, _ = aggregate_raters(ratings.T)
    return float(fleiss_kappa(table, method="fleiss"))


def pingouin_icc2(scores: np.ndarray) -> float:
    """pingouin's ICC2 (two-way random, absolute, single rater) of scores (targets, raters)."""
    import pandas as pd
    import pingouin

    n, k = scores.shape
    frame = pd.DataFrame(
        {
            "target": np.repeat(np.arange(n), k),
            "rater": np.tile(np.arange(k), n),
            "score": scores.reshape(-1).astype(float),
        }
    )
    table = pingouin.intraclass_corr(frame, targets="target", raters="rater", ratings="score")
    by_type = dict(zip(table["Type"], table["ICC"], strict=True))
    # the row is "ICC2" or "ICC(A,1)" depending on pingouin's version
    return float(by_type["ICC2"] if "ICC2" in by_type else by_type["ICC(A,1)"])
