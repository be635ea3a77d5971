"""Answer-length bias against a pandas loop: quartiles from ``pandas.qcut``, the leave-one-out
majority counted vote by vote, slopes from ``numpy.polyfit``, each resample materialised as the
rows of the drawn questions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from medqade.measures.answer_length import LengthBias, length_bias, length_quartiles
from medqade.measures.seeds import question_weights


def _data(seed: int, n_items: int = 24, n_phys: int = 5) -> tuple:
    """Judge and physician codes (abstentions, a few missing), a consensus, lengths; the
    judge says Richtig more often on long answers."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(50, 2000, size=(n_items, 5)).astype(float)
    truth = rng.random((n_items, 5)) < 0.6
    phys = np.where(rng.random((n_phys, n_items, 5)) < 0.85, truth, ~truth).astype(np.int64)
    phys[rng.random(phys.shape) < 0.08] = 2
    phys[rng.random(phys.shape) < 0.03] = -1
    lenient = rng.random((n_items, 5)) < lengths / 4000
    judge = np.where(lenient, 1, np.where(rng.random((n_items, 5)) < 0.8, truth, ~truth))
    judge = judge.astype(np.int64)
    judge[rng.random(judge.shape) < 0.05] = 2
    ref = np.where(rng.random((n_items, 5)) < 0.9, truth, -1).astype(np.int64)
    return judge, phys, ref, lengths


def _majority(votes: list[int]) -> int:
    ones, zeros = votes.count(1), votes.count(0)
    return 1 if ones > zeros else 0 if zeros > ones else -1


def _frame(judge: np.ndarray, phys: np.ndarray, ref: np.ndarray, lengths: np.ndarray):
    rows = []
    n_items = judge.shape[0]
    quart = pd.qcut(lengths.ravel(), 4, labels=False).reshape(lengths.shape)
    for i in range(n_items):
        for s in range(5):
            row = {"item": i, "q": int(quart[i, s]), "judge": judge[i, s], "ref": ref[i, s]}
            for p in range(phys.shape[0]):
                others = [int(phys[o, i, s]) for o in range(phys.shape[0]) if o != p]
                row[f"p{p}"] = phys[p, i, s]
                row[f"loo{p}"] = _majority(others)
            rows.append(row)
    return pd.DataFrame(rows)


def _rates(df: pd.DataFrame, lab: str, ref: str, penalise: bool) -> tuple[list, list]:
    richtig, agree = [], []
    for q in range(4):
        part = df[df.q == q]
        sub = part[part[lab].isin([0, 1])]
        richtig.append((sub[lab] == 1).mean() if len(sub) else math.nan)
        comp = part[part[ref].isin([0, 1])]
        if not penalise:
            comp = comp[comp[lab].isin([0, 1])]
        agree.append((comp[lab] == comp[ref]).mean() if len(comp) else math.nan)
    return richtig, agree


def _slope(rates: list) -> float:
    if any(math.isnan(r) for r in rates):
        return math.nan
    return float(np.polyfit([1, 2, 3, 4], rates, 1)[0])


def _loop(df: pd.DataFrame, n_phys: int) -> dict:
    j_r, j_a = _rates(df, "judge", "ref", penalise=True)
    per = [_rates(df, f"p{p}", f"loo{p}", penalise=False) for p in range(n_phys)]
    p_r = [float(np.nanmean([pr[0][q] for pr in per])) for q in range(4)]
    p_a = [float(np.nanmean([pr[1][q] for pr in per])) for q in range(4)]
    p_rs = float(np.nanmean([_slope(pr[0]) for pr in per]))
    p_as = float(np.nanmean([_slope(pr[1]) for pr in per]))
    return {
        "judge": (j_r, j_a, _slope(j_r), _slope(j_a)),
        "phys": (p_r, p_a, p_rs, p_as),
        "effect": (_slope(j_r) - p_rs, _slope(j_a) - p_as),
    }


def test_quartiles_are_the_bins_of_pandas_qcut() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(1, 300, size=(40, 5)).astype(float)
    got, cuts = length_quartiles(x)
    assert got.tolist() == pd.qcut(x.ravel(), 4, labels=False).reshape(x.shape).tolist()
    assert cuts == pytest.approx(tuple(np.percentile(x, [25, 50, 75])))
    x[0, 0] = np.nan
    assert length_quartiles(x)[0][0, 0] == -1
    with pytest.raises(ValueError, match="no answer has a length"):
        length_quartiles(np.full((2, 5), np.nan))


@pytest.mark.parametrize("seed", [0, 1])
def test_point_values_equal_a_pandas_loop(seed: int) -> None:
    judge, phys, ref, lengths = _data(seed)
    got = length_bias(judge, phys, ref, lengths)
    want = _loop(_frame(judge, phys, ref, lengths), phys.shape[0])
    for side, rates in (("judge", got.judge), ("phys", got.physicians)):
        w_r, w_a, w_rs, w_as = want[side]
        assert [e.value for e in rates.richtig] == pytest.approx(w_r, abs=1e-12)
        assert [e.value for e in rates.agreement] == pytest.approx(w_a, abs=1e-12)
        assert rates.richtig_slope.value == pytest.approx(w_rs, abs=1e-12)
        assert rates.agreement_slope.value == pytest.approx(w_as, abs=1e-12)
    assert got.richtig_effect.value == pytest.approx(want["effect"][0], abs=1e-12)
    assert got.agreement_effect.value == pytest.approx(want["effect"][1], abs=1e-12)
    assert sum(got.answers) == judge.size and math.isnan(got.richtig_effect.low)


def test_intervals_equal_a_pandas_loop_over_resampled_questions() -> None:
    judge, phys, ref, lengths = _data(4, n_items=20, n_phys=4)
    weights = question_weights(20, 60, seed=2)
    got = length_bias(judge, phys, ref, lengths, weights)
    df = _frame(judge, phys, ref, lengths)
    reps: dict[str, list[float]] = {"effect_r": [], "effect_a": [], "j_r0": [], "p_a3": []}
    for counts in weights:
        drawn = pd.concat([df[df.item == i] for i in range(20) for _ in range(counts[i])])
        loop = _loop(drawn, phys.shape[0])
        reps["effect_r"].append(loop["effect"][0])
        reps["effect_a"].append(loop["effect"][1])
        reps["j_r0"].append(loop["judge"][0][0])
        reps["p_a3"].append(loop["phys"][1][3])
    for name, est in (
        ("effect_r", got.richtig_effect),
        ("effect_a", got.agreement_effect),
        ("j_r0", got.judge.richtig[0]),
        ("p_a3", got.physicians.agreement[3]),
    ):
        assert est.replicates is not None
        assert np.allclose(est.replicates, reps[name], atol=1e-12, rtol=0, equal_nan=True)
        x = np.array(reps[name])
        x = x[~np.isnan(x)]
        assert est.ci == pytest.approx(tuple(np.percentile(x, [2.5, 97.5])), abs=1e-12)
        assert est.low < est.high


def test_the_lenient_judge_of_the_simulation_shows_a_positive_effect() -> None:
    judge, phys, ref, lengths = _data(9, n_items=300)
    got = length_bias(judge, phys, ref, lengths, question_weights(300, 200, seed=9))
    assert isinstance(got, LengthBias)
    assert got.judge.richtig_slope.value > got.physicians.richtig_slope.value
    assert got.richtig_effect.low > 0  # the interval excludes 0
    assert abs(got.physicians.richtig_slope.value) < 0.03  # physicians: no length effect
    js = got.to_json()
    assert js["answers_by_quartile"] == list(got.answers) and len(js["judge"]["richtig"]) == 4


def test_docs_worked_example() -> None:
    """The numbers of the worked example in docs/statistics.md (length bias)."""
    lengths = np.array([[100.0, 200.0], [300.0, 400.0], [500.0, 600.0], [700.0, 800.0]])
    ref = np.array([[1, 0], [1, 0], [1, 0], [1, 0]])
    judge = np.array([[1, 0], [1, 0], [1, 1], [1, 1]])
    phys = np.array([ref, ref, ref])  # three physicians who all agree with the consensus
    got = length_bias(judge, phys, ref, lengths)
    assert got.cuts == (275.0, 450.0, 625.0) and got.answers == (2, 2, 2, 2)
    assert [e.value for e in got.judge.richtig] == [0.5, 0.5, 1.0, 1.0]
    assert [e.value for e in got.physicians.richtig] == [0.5] * 4
    assert got.judge.richtig_slope.value == pytest.approx(0.2)
    assert got.richtig_effect.value == pytest.approx(0.2)
    assert [e.value for e in got.judge.agreement] == [1.0, 1.0, 0.5, 0.5]
    assert got.agreement_effect.value == pytest.approx(-0.2)


def test_shapes_are_checked() -> None:
    judge, phys, ref, lengths = _data(0)
    with pytest.raises(ValueError, match="like each physician"):
        length_bias(judge, phys[:, :-1], ref, lengths)
