"""Each row of the calibration table, recomputed from the built dataset with simple code.

The quantities are computed from the Parquet files (pandas) with scikit-learn and the
`krippendorff` package, not with medqade's own statistics, and checked against the paper's
figure with the tolerance the synthetic-release issue sets for the default seed.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

PHYSICIANS = [f"P{i:02d}" for i in range(1, 11)]
STUDENTS = ["gemini-2.5-flash", "gpt-5-nano", "gemma3:27b", "gemma3:4b", "qwen3:4b"]
CODE = {"Richtig": 1.0, "Falsch": 0.0}
DIFF = {"Einfach": 0.0, "Mittel": 1.0, "Schwer": 2.0}


def _read(build: Path, config: str) -> pd.DataFrame:
    parts = []
    for split in ("core", "extension"):
        frame = pd.read_parquet(build / "data" / config / f"{split}-00000-of-00001.parquet")
        parts.append(frame.assign(split=split))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def tables(synthetic_build: Path) -> dict[str, pd.DataFrame]:
    return {c: _read(synthetic_build, c) for c in ("questions", "answers", "ratings", "judgments")}


def _core_matrix(ratings: pd.DataFrame, model: str) -> pd.DataFrame:
    """Physicians x core questions, values 1/0, NaN for abstained or missing."""
    r = ratings[(ratings["split"] == "core") & (ratings["model"] == model)]
    r = r.assign(v=r["label"].map(CODE))
    return r.pivot(index="rater", columns="question_id", values="v").reindex(PHYSICIANS)


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    m = ~(np.isnan(a) | np.isnan(b))
    return float(cohen_kappa_score(a[m], b[m], replace_undefined_by=np.nan))


def _majority(votes: np.ndarray) -> np.ndarray:
    r = np.nansum(votes == 1, axis=0)
    f = np.nansum(votes == 0, axis=0)
    return np.where(r > f, 1.0, np.where(f > r, 0.0, np.nan))


def test_physician_kappa_and_alpha_core(tables: dict[str, pd.DataFrame]) -> None:
    kappas, alphas = [], []
    for model in STUDENTS:
        x = _core_matrix(tables["ratings"], model).to_numpy()
        pair = [_kappa(x[i], x[j]) for i, j in itertools.combinations(range(10), 2)]
        kappas.append(np.nanmean(pair))
        alphas.append(krippendorff.alpha(reliability_data=x, level_of_measurement="nominal"))
    assert abs(np.mean(kappas) - 0.612) <= 0.04
    assert abs(np.mean(alphas) - 0.598) <= 0.04


def test_difficulty_alpha_core(tables: dict[str, pd.DataFrame]) -> None:
    q = tables["questions"]
    rows = [
        {"question_id": qid, "rater": d["rater"], "v": DIFF[d["difficulty"]]}
        for qid, ds in zip(
            q.loc[q["split"] == "core", "question_id"],
            q.loc[q["split"] == "core", "difficulty_ratings"],
            strict=True,
        )
        for d in ds
    ]
    x = pd.DataFrame(rows).pivot(index="rater", columns="question_id", values="v").to_numpy()
    alpha = krippendorff.alpha(reliability_data=x, level_of_measurement="interval")
    assert abs(alpha - 0.208) <= 0.05


def test_student_accuracy_lowest_and_highest(tables: dict[str, pd.DataFrame]) -> None:
    a = tables["answers"].dropna(subset=["consensus"])
    acc = a.groupby("model")["consensus"].apply(lambda s: (s == "Richtig").mean())
    assert abs(acc.min() - 0.178) <= 0.03
    assert abs(acc.max() - 0.660) <= 0.03
    assert acc.idxmax() == "gemini-2.5-flash"


def test_unresolved_slots_after_adjudication(tables: dict[str, pd.DataFrame]) -> None:
    assert abs(int(tables["answers"]["consensus"].isna().sum()) - 374) <= 40


def test_initially_unresolved_and_resolved_by_adjudicator(tables: dict[str, pd.DataFrame]) -> None:
    r = tables["ratings"]
    prim = r[(r["split"] == "extension") & (r["round"] == "primary")]
    counts = prim.groupby(["answer_id", "label"]).size().unstack(fill_value=0)
    counts = counts.reindex(
        tables["answers"].loc[tables["answers"]["split"] == "extension", "answer_id"], fill_value=0
    )
    initial = counts.get("Richtig", 0) == counts.get("Falsch", 0)
    final = tables["answers"].set_index("answer_id")["consensus"].reindex(counts.index)
    assert abs(int(initial.sum()) - 2770) <= 150
    assert abs(int((initial & final.notna()).sum()) - 2537) <= 150


def test_loo_physician_kappa_core(tables: dict[str, pd.DataFrame]) -> None:
    per_phys = []
    mats = [_core_matrix(tables["ratings"], m).to_numpy() for m in STUDENTS]
    for p in range(10):
        slot = [_kappa(x[p], _majority(np.delete(x, p, axis=0))) for x in mats]
        per_phys.append(np.nanmean(slot))
    assert abs(np.mean(per_phys) - 0.709) <= 0.04


def _evaluator_kappa(tables: dict[str, pd.DataFrame], evaluator: str) -> float:
    j = tables["judgments"]
    j = j[(j["split"] == "core") & (j["evaluator"] == evaluator)].set_index("answer_id")["label"]
    a = tables["answers"][tables["answers"]["split"] == "core"]
    out = []
    for model in STUDENTS:
        s = a[a["model"] == model]
        ref = s["consensus"].map(CODE).to_numpy(dtype=float)
        lab = j.reindex(s["answer_id"]).map(CODE).to_numpy(dtype=float)
        out.append(_kappa(lab, ref))
    return float(np.mean(out))


@pytest.mark.parametrize(
    ("evaluator", "paper", "tolerance"),
    [
        ("gemini-3-flash-preview", 0.694, 0.04),
        ("qwen3:4b", 0.444, 0.05),
        ("gemma3:4b", 0.327, 0.05),
    ],
)
def test_evaluator_kappa_core(
    tables: dict[str, pd.DataFrame], evaluator: str, paper: float, tolerance: float
) -> None:
    assert abs(_evaluator_kappa(tables, evaluator) - paper) <= tolerance


FAMILY = {
    "gemini-3-flash-preview": "Gemini",
    "gemini-2.5-flash": "Gemini",
    "gemini-2.5-flash-lite": "Gemini",
    "gpt-5.4-mini": "GPT",
    "gpt-5.4-nano": "GPT",
    "gpt-5-nano": "GPT",
    "gemma3:27b": "Gemma",
    "gemma3:4b": "Gemma",
    "qwen3:4b": "Qwen",
}


def _bias(tables: dict[str, pd.DataFrame], evaluator: str, student: str) -> float:
    j = tables["judgments"]
    j = j[j["model"] == student].assign(s=j["label"].map(CODE)).dropna(subset=["s"])
    wide = j.pivot(index="answer_id", columns="evaluator", values="s")
    peers = [e for e in wide.columns if FAMILY[e] != FAMILY[evaluator]]
    diff = wide[evaluator] - wide[peers].mean(axis=1)
    return float(diff.mean())


def test_self_bias_sign_pattern(tables: dict[str, pd.DataFrame]) -> None:
    signs = {m: np.sign(_bias(tables, m, m)) for m in STUDENTS}
    assert signs == {
        "gemini-2.5-flash": 1,
        "gpt-5-nano": 1,
        "gemma3:27b": 1,
        "gemma3:4b": 1,
        "qwen3:4b": -1,
    }


def test_family_bias_sign_pattern(tables: dict[str, pd.DataFrame]) -> None:
    pairs = {
        ("gemini-3-flash-preview", "gemini-2.5-flash"): 1,
        ("gemini-2.5-flash-lite", "gemini-2.5-flash"): -1,
        ("gemma3:27b", "gemma3:4b"): 1,
        ("gemma3:4b", "gemma3:27b"): 1,
        ("gpt-5.4-nano", "gpt-5-nano"): 1,
        ("gpt-5.4-mini", "gpt-5-nano"): 1,
    }
    assert {p: np.sign(_bias(tables, *p)) for p in pairs} == pairs


def test_evaluator_abstention(tables: dict[str, pd.DataFrame]) -> None:
    j = tables["judgments"]
    rate = j.groupby("evaluator")["label"].apply(lambda s: (s == "Keine Angabe").mean())
    assert rate["gemini-3-flash-preview"] == 0.0
    assert rate["gpt-5.4-mini"] == 0.0
    assert abs(rate["gemma3:4b"] - 0.0641) <= 0.01
    assert abs(rate["qwen3:4b"] - 0.0423) <= 0.01


def test_physician_median_abstention_by_tier(tables: dict[str, pd.DataFrame]) -> None:
    r = tables["ratings"].merge(tables["answers"][["answer_id", "difficulty_tier"]], on="answer_id")
    medians = {}
    for tier in (1, 4):
        t = r[r["difficulty_tier"] == tier]
        medians[tier] = (
            t.groupby("rater")["label"].apply(lambda s: (s == "Keine Angabe").mean()).median()
        )
    assert abs(medians[1] - 0.0268) <= 0.015
    assert abs(medians[4] - 0.1374) <= 0.015
