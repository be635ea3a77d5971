"""The behaviour block of a judge record: the position and run columns, several files as runs,
prices on the command line, and its numbers against medqade.measures called directly."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from medqade.cli import main
from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.measures import position as measured_position
from medqade.scoring import parse_submission

from .helpers import scored

Write = Callable[[str, str | bytes], Path]
EV = "gemma3:4b"


def _rows(full: Release) -> pd.DataFrame:
    j = full.judgments
    return j[j["evaluator"] == EV][["question_id", "model", "label", "position"]].reset_index(
        drop=True
    )


def _reshuffled(rows: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    out = rows.copy()
    order = out.groupby("question_id", sort=False).cumcount().to_numpy()
    shuffled = np.concatenate([rng.permutation(5) + 1 for _ in range(len(out) // 5)])
    assert (order < 5).all()
    out["position"] = shuffled
    flip = rng.random(len(out)) < 0.05
    out.loc[flip & (out["label"] == "Richtig"), "label"] = "Falsch"
    return out


def test_position_column_is_read_and_checked(full: Release) -> None:
    rows = _rows(full)
    sub = parse_submission(rows.to_csv(index=False).encode(), "j.csv", full)
    assert sub.positions is not None
    i, s = full.slot_index[rows.loc[7, "question_id"] + "/" + rows.loc[7, "model"]]
    assert sub.positions[i, s] == rows.loc[7, "position"]
    bad = rows.copy().astype({"position": object})
    bad.loc[3, "position"] = "7"
    with pytest.raises(InputError) as err:
        parse_submission(bad.to_csv(index=False).encode(), "j.csv", full)
    text = str(err.value)
    assert "j.csv" in text and "line 5" in text and "invalid position" in text and "'7'" in text
    twice = rows.copy()
    twice.loc[1, "position"] = twice.loc[0, "position"]
    with pytest.raises(InputError, match="same position"):
        parse_submission(twice.to_csv(index=False).encode(), "j.csv", full)


def test_record_position_equals_the_measure_and_the_report(full: Release) -> None:
    rows = _rows(full)
    sub = parse_submission(rows.to_csv(index=False).encode(), "j.csv", full)
    record = scored(full, sub, resamples=50)
    b = record["behaviour"]
    assert b["split"] == "all"
    e = full.roster.evaluator_ids.index(EV)
    direct = measured_position.position_bias(
        full.evaluator_labels[e], sub.positions, full.consensus, None, permutations=1000
    )
    assert direct is not None
    assert b["position"]["richtig"] == pytest.approx([x.value for x in direct.richtig])
    assert b["position"]["p_value"] == pytest.approx(direct.p_value)
    assert set(b["breakdowns"]) == {"specialty", "tier", "lexical"}
    assert b["caution"]["split"] == "core" and b["consistency"] is None and b["cost"] is None


def test_run_column_and_several_files_give_the_same_consistency(
    full: Release, write: Write, capsys: pytest.CaptureFixture[str], full_dir: Path
) -> None:
    first = _rows(full)
    second = _reshuffled(first, 3)
    both = pd.concat([first.assign(run=1), second.assign(run=2)])
    sub = parse_submission(both.to_csv(index=False).encode(), "runs.csv", full)
    assert [r.run for r in sub.runs] == ["1", "2"]
    record = scored(full, sub, resamples=40)
    cons = record["behaviour"]["consistency"]
    a = write("a.csv", first.to_csv(index=False))
    b = write("b.csv", second.to_csv(index=False))
    code = main(["score", str(a), str(b), "--data", str(full_dir), "--json", "--resamples", "40"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["behaviour"]["consistency"]["kappa"] == pytest.approx(cons["kappa"])
    assert out["behaviour"]["consistency"]["physicians_rerated"]["kappa"] == pytest.approx(
        cons["physicians_rerated"]["kappa"]
    )
    # agreement is scored on the first run only
    alone = scored(full, parse_submission(a.read_bytes(), "a.csv", full), resamples=40)
    assert out["core"]["kappa"] == pytest.approx(alone["core"]["kappa"])
    flips = (first["label"] != second["label"]).to_numpy()
    assert cons["flip_rate_moved"] <= 1 and flips.any()
    main(["score", str(a), str(b), "--data", str(full_dir), "--resamples", "40"])
    text = capsys.readouterr().out
    assert "self-consistency (2 runs)" in text and "vs physicians" in text


def test_bad_run_values_are_named(full: Release) -> None:
    rows = _rows(full).assign(run="1")
    rows.loc[4, "run"] = "zwei"
    with pytest.raises(InputError) as err:
        parse_submission(rows.to_csv(index=False).encode(), "r.csv", full)
    assert "invalid run" in str(err.value) and "zwei" in str(err.value)
    rows.loc[4, "run"] = "9223372036854775296"  # past int64 once read as a float: no overflow
    with pytest.raises(InputError) as err:
        parse_submission(rows.to_csv(index=False).encode(), "r.csv", full)
    assert "invalid run" in str(err.value) and "at most 1,000,000" in str(err.value)


def test_prices_and_usage_give_cost(
    full: Release, write: Write, capsys: pytest.CaptureFixture[str], full_dir: Path
) -> None:
    rows = _rows(full).drop(columns=["position"])
    meta = {"meta": {"usage": {"input_tokens": 1_900_000, "output_tokens": 19_000}}}
    lines = [json.dumps(meta)] + [json.dumps(r) for r in rows.to_dict(orient="records")]
    path = write("j.jsonl", "\n".join(lines) + "\n")
    code = main(
        [
            "score",
            str(path),
            "--data",
            str(full_dir),
            "--json",
            "--resamples",
            "0",
            "--price-in",
            "0.5",
            "--price-out",
            "2",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    cost = out["behaviour"]["cost"]
    n = len(rows)
    assert cost["input_tokens_per_1000"] == pytest.approx(1000 * 1_900_000 / n)
    assert cost["eur_per_1000"] == pytest.approx(
        (1000 * 1_900_000 / n * 0.5 + 1000 * 19_000 / n * 2) / 1e6
    )
    assert out["behaviour"]["position"] is None
    code = main(["score", str(path), "--data", str(full_dir), "--price-in", "-1"])
    assert code != 0
