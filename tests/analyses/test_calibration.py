"""Each row of the calibration table, recomputed from the built Parquet files with simple code.

The quantities are computed with pandas, scikit-learn and the `krippendorff` package, not with
medqade's statistics or analyses; each must equal the table's value, and the row must pass on
the default seed. Rows that are decided by a bootstrap interval (an overlap, an interval that
excludes 0) are recomputed as point estimates and checked to lie inside the table's interval.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade.analyses.calibration import calibration_table
from medqade.analyses.calibration_targets import Target
from medqade.dataset.release import Release

PHYSICIANS = [f"P{i:02d}" for i in range(1, 11)]
STUDENTS = ["gemini-2.5-flash", "gpt-5-nano", "gemma3:27b", "gemma3:4b", "qwen3:4b"]
EVALUATORS = [
    "gemini-3-flash-preview",
    "gemini-2.5-flash",
    "gemini-2.5-flash-lite",
    "gpt-5.4-mini",
    "gpt-5.4-nano",
    "gpt-5-nano",
    "gemma3:27b",
    "gemma3:4b",
    "qwen3:4b",
]
POOL = EVALUATORS[:7]
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
CODE = {"Richtig": 1.0, "Falsch": 0.0}
DIFF = {"Einfach": 0.0, "Mittel": 1.0, "Schwer": 2.0}
# rows whose statement rests on a bootstrap interval: checked as "point inside the interval"
INTERVAL_ROWS = {
    "GPT-5.4 Mini's kappa CI overlaps the physicians'",
    "GPT-5.4 Mini's pa CI overlaps the physicians'",
    "GPT-5.4 Mini's pabak CI overlaps the physicians'",
    "that difference's CI includes 0",
    "the T1 - T4 interval excludes 0",
    "bias CIs excluding 0 (of 11)",
}


def _read(build: Path, config: str) -> pd.DataFrame:
    parts = []
    for split in ("core", "extension"):
        frame = pd.read_parquet(build / "data" / config / f"{split}-00000-of-00001.parquet")
        parts.append(frame.assign(split=split))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def tables(synthetic_build: Path) -> dict[str, pd.DataFrame]:
    out = {c: _read(synthetic_build, c) for c in ("questions", "answers", "ratings", "judgments")}
    out["ratings"] = out["ratings"][out["ratings"]["round"] != "rerating"]  # votes only
    return out


@pytest.fixture(scope="module")
def rows(synthetic: Release) -> dict[str, Target]:
    return {r.quantity: r for r in calibration_table(synthetic)}


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    m = ~(np.isnan(a) | np.isnan(b))
    return float(cohen_kappa_score(a[m], b[m], replace_undefined_by=np.nan))


def _pa(a: np.ndarray, b: np.ndarray) -> float:
    m = ~(np.isnan(a) | np.isnan(b))
    return float(np.mean(a[m] == b[m]))


def _majority(votes: np.ndarray) -> np.ndarray:
    r = np.nansum(votes == 1, axis=0)
    f = np.nansum(votes == 0, axis=0)
    return np.where(r > f, 1.0, np.where(f > r, 0.0, np.nan))


def _core_matrix(ratings: pd.DataFrame, model: str) -> np.ndarray:
    """Physicians x core questions, values 1/0, NaN for abstained or missing."""
    r = ratings[(ratings["split"] == "core") & (ratings["model"] == model)]
    r = r.assign(v=r["label"].map(CODE))
    wide = r.pivot(index="rater", columns="question_id", values="v").reindex(PHYSICIANS)
    return wide.sort_index(axis=1).to_numpy(dtype=float)


def _core_reference(answers: pd.DataFrame, model: str) -> np.ndarray:
    a = answers[(answers["split"] == "core") & (answers["model"] == model)]
    return a.sort_values("question_id")["consensus"].map(CODE).to_numpy(dtype=float)


def _core_judge(judgments: pd.DataFrame, evaluator: str, model: str) -> np.ndarray:
    j = judgments[
        (judgments["split"] == "core")
        & (judgments["evaluator"] == evaluator)
        & (judgments["model"] == model)
    ]
    return j.sort_values("question_id")["label"].map(CODE).to_numpy(dtype=float)


def _accuracy(a: pd.DataFrame) -> pd.Series:
    r = a.dropna(subset=["consensus"])
    return r.groupby("model")["consensus"].apply(lambda s: float((s == "Richtig").mean()))


# --- oracles per section ----------------------------------------------------------------------


def _section3(t: dict[str, pd.DataFrame]) -> dict[str, float]:
    a, r = t["answers"], t["ratings"]
    ext = a[a["split"] == "extension"].set_index("answer_id")
    prim = r[(r["split"] == "extension") & (r["round"] == "primary") & (r["rater"] != "P10")]
    counts = prim.groupby(["answer_id", "label"]).size().unstack(fill_value=0)
    counts = counts.reindex(ext.index, fill_value=0)
    initial = counts.get("Richtig", 0) == counts.get("Falsch", 0)
    final = ext["consensus"].notna()
    core = int(a.loc[a["split"] == "core", "consensus"].isna().sum())
    total = int((~final).sum()) + core
    return {
        "extension slots unresolved by the primary pair": int(initial.sum()),
        "of those, resolved by the adjudicator": int((initial & final).sum()),
        "share of those resolved by the adjudicator": (initial & final).sum() / initial.sum(),
        "stayed unresolved after adjudication": int((initial & ~final).sum()),
        "newly tied by the adjudicator": int((~initial & ~final).sum()),
        "extension slots without consensus": int((~final).sum()),
        "core slots without consensus": core,
        "slots without consensus": total,
        "share of slots without consensus": total / len(a),
    }


def _section4(t: dict[str, pd.DataFrame]) -> dict[str, float]:
    q = t["questions"]
    out: dict[str, float] = {}
    for tier in (1, 2, 3, 4):
        out[f"items in T{tier}"] = int((q["difficulty_tier"] == tier).sum())
        out[f"exact-match items in T{tier}"] = int(
            ((q["difficulty_tier"] == tier) & q["lexical_match"]).sum()
        )
    return out


def _rq1(t: dict[str, pd.DataFrame]) -> dict[str, float]:
    kappa, pa, alpha = {}, {}, {}
    for m in STUDENTS:
        x = _core_matrix(t["ratings"], m)
        pairs = list(itertools.combinations(range(10), 2))
        kappa[m] = float(np.nanmean([_kappa(x[i], x[j]) for i, j in pairs]))
        pa[m] = float(np.mean([_pa(x[i], x[j]) for i, j in pairs]))
        alpha[m] = krippendorff.alpha(reliability_data=x, level_of_measurement="nominal")
    q = t["questions"][t["questions"]["split"] == "core"]
    d = pd.DataFrame(
        [
            {"question_id": qid, "rater": x["rater"], "v": DIFF[x["difficulty"]]}
            for qid, ds in zip(q["question_id"], q["difficulty_ratings"], strict=True)
            for x in ds
        ]
    ).pivot(index="rater", columns="question_id", values="v")
    core_share = _accuracy(t["answers"][t["answers"]["split"] == "core"])
    weak = {"gemma3:4b", "qwen3:4b"}
    strong = [kappa[m] for m in STUDENTS if m not in weak]
    return {
        "physician kappa per slot, lowest": min(kappa.values()),
        "physician kappa per slot, highest": max(kappa.values()),
        "physician kappa, mean of slots": float(np.mean(list(kappa.values()))),
        "physician alpha, mean of slots": float(np.mean(list(alpha.values()))),
        "physician PA per slot, lowest": min(pa.values()),
        "physician PA per slot, highest": max(pa.values()),
        "difficulty alpha (squared distance)": krippendorff.alpha(
            reliability_data=d.to_numpy(dtype=float), level_of_measurement="interval"
        ),
        "Gemma 3 4B share Correct, core": core_share["gemma3:4b"],
        "Qwen3-4B share Correct, core": core_share["qwen3:4b"],
        "Gemma 3 4B and Qwen3-4B slots have the highest PA": float(
            set(sorted(pa, key=lambda m: -pa[m])[:2]) == weak
        ),
        "yet the highest kappa is another slot's (prevalence)": float(
            max(kappa[m] for m in weak) < max(strong)
        ),
    }


def _rq2(t: dict[str, pd.DataFrame]) -> dict[str, float]:
    a = t["answers"]
    acc = _accuracy(a)
    lex = _accuracy(a[a["lexical_match"]]) - _accuracy(a[~a["lexical_match"]])
    g = a[a["model"] == "gemini-2.5-flash"].dropna(subset=["consensus"])
    t1, t4 = (g[g["difficulty_tier"] == k]["consensus"] for k in (1, 4))
    return {
        "student accuracy, lowest": acc.min(),
        "lowest accuracy is Gemma 3 4B's": float(acc.idxmin() == "gemma3:4b"),
        "student accuracy, highest": acc.max(),
        "highest accuracy is Gemini 2.5 Flash's": float(acc.idxmax() == "gemini-2.5-flash"),
        "exact-match advantage, smallest": lex.min(),
        "exact-match advantage, largest": lex.max(),
        "largest exact-match advantage is Gemini 2.5 Flash's": float(
            lex.idxmax() == "gemini-2.5-flash"
        ),
        "every exact-match advantage is positive": float(lex.min() > 0),
        "Gemini 2.5 Flash accuracy in T1": float((t1 == "Richtig").mean()),
        "Gemini 2.5 Flash accuracy in T4": float((t4 == "Richtig").mean()),
        "Gemini 2.5 Flash T1 minus T4": float((t1 == "Richtig").mean() - (t4 == "Richtig").mean()),
        "Gemini 2.5 Flash resolved answers in T1": len(t1),
        "Gemini 2.5 Flash resolved answers in T4": len(t4),
    }


def _macro(labels: dict[str, np.ndarray], refs: dict[str, np.ndarray]) -> tuple[float, float]:
    k = [_kappa(labels[m], refs[m]) for m in STUDENTS]
    p = [_pa(labels[m], refs[m]) for m in STUDENTS]
    return float(np.mean(k)), float(np.mean(p))


def _vote(members: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Majority after abstentions; a tie is Falsch; nobody left is missing."""
    out = {}
    for m in STUDENTS:
        x = np.stack([v[m] for v in members])
        r, f = np.nansum(x == 1, axis=0), np.nansum(x == 0, axis=0)
        out[m] = np.where(r + f == 0, np.nan, np.where(r > f, 1.0, 0.0))
    return out


def _rq3(t: dict[str, pd.DataFrame]) -> dict[str, float]:
    refs = {m: _core_reference(t["answers"], m) for m in STUDENTS}
    labels = {e: {m: _core_judge(t["judgments"], e, m) for m in STUDENTS} for e in EVALUATORS}
    macro = {e: _macro(labels[e], refs) for e in EVALUATORS}
    kappa = {e: v[0] for e, v in macro.items()}
    pa = {e: v[1] for e, v in macro.items()}
    mats = {m: _core_matrix(t["ratings"], m) for m in STUDENTS}
    loo = [
        np.nanmean([_kappa(mats[m][p], _majority(np.delete(mats[m], p, axis=0))) for m in STUDENTS])
        for p in range(10)
    ]
    subsets = [c for k in (1, 3, 5, 7) for c in itertools.combinations(POOL, k)]
    cand = {c: _macro(_vote([labels[e] for e in c]), refs) for c in subsets}
    best_k = max(cand, key=lambda c: cand[c][0])
    best_pa = max(cand, key=lambda c: cand[c][1])
    best_single = max(POOL, key=lambda e: kappa[e])
    g3 = "gemini-3-flash-preview"
    bottom = sorted(kappa, key=lambda e: kappa[e])[:2]
    out = {
        "LOO physician kappa": float(np.mean(loo)),
        "Gemini 3 Flash kappa": kappa[g3],
        "Gemini 3 Flash PA": pa[g3],
        "Gemini 3 Flash PABAK": 2 * pa[g3] - 1,
        "Qwen3-4B kappa": kappa["qwen3:4b"],
        "Gemma 3 4B kappa": kappa["gemma3:4b"],
        "weakest by kappa: Gemma 3 4B, then Qwen3-4B": float(bottom == ["gemma3:4b", "qwen3:4b"]),
        "every evaluator's kappa is below the LOO physicians'": float(
            max(kappa.values()) < float(np.mean(loo))
        ),
        "best kappa ensemble minus best single": cand[best_k][0] - kappa[best_single],
        "best single by kappa is Gemini 3 Flash": float(best_single == g3),
        "best kappa ensemble contains Gemini 3 Flash": float(g3 in best_k),
        "best subset for pa is Gemini 3 Flash alone": float(best_pa == (g3,)),
        "best subset for pabak is Gemini 3 Flash alone": float(best_pa == (g3,)),
    }
    for metric, values in (("kappa", kappa), ("pa", pa), ("pabak", pa)):
        out[f"strongest evaluator by {metric} is Gemini 3 Flash"] = float(
            max(values, key=lambda e: values[e]) == g3
        )
    return out


def _bias(j: pd.DataFrame, evaluator: str, student: str) -> float:
    j = j[j["model"] == student].assign(s=j["label"].map(CODE)).dropna(subset=["s"])
    wide = j.pivot(index="answer_id", columns="evaluator", values="s")
    peers = [e for e in wide.columns if FAMILY[e] != FAMILY[evaluator]]
    diff = wide[evaluator] - wide[peers].mean(axis=1)
    return float(diff.mean())


def _rq4(t: dict[str, pd.DataFrame]) -> dict[str, float]:
    j = t["judgments"]
    own = {m: _bias(j, m, m) for m in STUDENTS}
    positive = [v for m, v in own.items() if m != "qwen3:4b"]
    pairs = [
        ("gemini-3-flash-preview", "gemini-2.5-flash"),
        ("gemma3:27b", "gemma3:4b"),
        ("gemma3:4b", "gemma3:27b"),
        ("gpt-5.4-nano", "gpt-5-nano"),
        ("gpt-5.4-mini", "gpt-5-nano"),
    ]
    others = [_bias(j, *p) for p in pairs]
    lite = _bias(j, "gemini-2.5-flash-lite", "gemini-2.5-flash")
    return {
        "self bias, smallest of the four positive": min(positive),
        "self bias, largest": max(positive),
        "self bias positive for all but Qwen3-4B": float(min(positive) > 0),
        "Qwen3-4B self bias": own["qwen3:4b"],
        "Flash-Lite on Gemini 2.5 Flash (family)": lite,
        "that family bias is the only negative one": float(lite < 0 < min(others)),
        "family bias, smallest positive": min(others),
        "family bias, largest": max(others),
    }


def _rq5(t: dict[str, pd.DataFrame]) -> dict[str, float]:
    r = t["ratings"].merge(t["answers"][["answer_id", "difficulty_tier"]], on="answer_id")
    med = []
    for tier in (1, 2, 3, 4):
        x = r[r["difficulty_tier"] == tier]
        med.append(
            float(
                x.groupby("rater")["label"].apply(lambda s: (s == "Keine Angabe").mean()).median()
            )
        )
    j = t["judgments"].merge(t["answers"][["answer_id", "difficulty_tier"]], on="answer_id")
    slots = t["answers"].groupby("difficulty_tier").size()
    abst = j[j["label"] == "Keine Angabe"]
    nano = abst[abst["evaluator"] == "gpt-5-nano"].groupby("difficulty_tier").size()
    nano_rate = [nano.get(k, 0) / slots[k] for k in (1, 2, 3, 4)]
    rate = abst.groupby("evaluator").size().reindex(EVALUATORS, fill_value=0) / len(t["answers"])
    out = {
        "physician median abstention T1": med[0],
        "physician median abstention T4": med[3],
        "physician median rises from T1 to T4": float(all(np.diff(med) > 0)),
        "GPT-5 Nano abstains most in T4": float(int(np.argmax(nano_rate)) == 3),
        "Gemini 3 Flash abstentions": int(rate["gemini-3-flash-preview"] * len(t["answers"])),
        "GPT-5.4 Mini abstentions": int(rate["gpt-5.4-mini"] * len(t["answers"])),
        "Gemma 3 4B abstention": rate["gemma3:4b"],
        "Qwen3-4B abstention": rate["qwen3:4b"],
        "highest abstention of the other seven": rate.drop(["gemma3:4b", "qwen3:4b"]).max(),
    }
    for k in range(4):
        out[f"GPT-5 Nano abstention T{k + 1}"] = nano_rate[k]
    return out


ORACLES: tuple[Callable[[dict[str, pd.DataFrame]], dict[str, float]], ...] = (
    _section3,
    _section4,
    _rq1,
    _rq2,
    _rq3,
    _rq4,
    _rq5,
)


@pytest.fixture(scope="module")
def oracle(tables: dict[str, pd.DataFrame]) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in ORACLES:
        out.update(part(tables))
    return out


def test_calibration_table_has_an_oracle_for_every_row(
    rows: dict[str, Target], oracle: dict[str, float]
) -> None:
    assert set(rows) - INTERVAL_ROWS == set(oracle)


def test_calibration_table_values_equal_the_oracles(
    rows: dict[str, Target], oracle: dict[str, float]
) -> None:
    wrong = {q: (rows[q].value, v) for q, v in oracle.items() if not np.isclose(rows[q].value, v)}
    assert wrong == {}


def test_calibration_table_every_row_passes_on_the_default_seed(rows: dict[str, Target]) -> None:
    assert [q for q, r in rows.items() if not r.ok] == []


def test_calibration_interval_rows_rest_on_their_point_estimates(
    rows: dict[str, Target], oracle: dict[str, float], synthetic: Release
) -> None:
    from medqade.analyses.report import reproduce

    report = reproduce(synthetic)
    diff = report.rq3.ensembles["kappa"].diff
    assert diff.low <= oracle["best kappa ensemble minus best single"] <= diff.high
    tier = report.rq2.tier_diff["gemini-2.5-flash"].diff
    assert tier.low <= oracle["Gemini 2.5 Flash T1 minus T4"] <= tier.high
    assert rows["the T1 - T4 interval excludes 0"].value == float(tier.low > 0 or tier.high < 0)
    mini = report.rq3.evaluators["gpt-5.4-mini"].kappa
    assert mini.low <= mini.value <= mini.high
