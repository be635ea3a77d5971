"""``medqade pool-estimate`` end to end: on the synthetic pool and on the sample with a pool."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from medqade.cli import main
from medqade.dataset.build import build
from medqade.dataset.pool_data import load_pool_labels
from medqade.dataset.sources import SYNTHETIC_SEED
from medqade.synthetic.pool import latent_consensus
from medqade.vocab import DEFAULT_ROSTER

STUDENTS = list(DEFAULT_ROSTER.student_ids)


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["pool-estimate", *args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, dict)
    return out


def test_pool_estimate_done_when_shape(
    synthetic_build: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _json(["gemini-3-flash-preview", "--data", str(synthetic_build)], capsys)
    assert out["judge"] == "gemini-3-flash-preview"
    students = out["students"]
    assert isinstance(students, dict) and list(students) == STUDENTS
    pool = latent_consensus(SYNTHETIC_SEED)
    for s, model in enumerate(STUDENTS):
        row = students[model]
        assert row.keys() == {"physician_only", "judge_only", "ppi", "ess_gain"}
        for key in ("physician_only", "judge_only", "ppi"):
            assert row[key].keys() == {"estimate", "ci"}
            low, high = row[key]["ci"]
            assert 0 <= low < row[key]["estimate"] < high <= 1
        # the strong judge narrows the physicians' interval
        width = {k: row[k]["ci"][1] - row[k]["ci"][0] for k in ("physician_only", "ppi")}
        assert width["ppi"] < width["physician_only"] and row["ess_gain"] > 1
        c = pool.consensus[:, s]
        truth = (c == 1).sum() / (c >= 0).sum()
        half = (row["ppi"]["ci"][1] - row["ppi"]["ci"][0]) / 2
        assert abs(row["ppi"]["estimate"] - truth) < 2.5 * half  # (~4.9 standard errors)


def test_load_pool_labels_judgments_file_equals_published(
    synthetic_build: Path, synthetic_raw: Path, tmp_path: Path
) -> None:
    """A runner-style judgments file of a judge gives the same arrays as its published labels."""
    import pandas as pd

    wide = pd.read_parquet(synthetic_raw / "pool_judgments.parquet")
    rows = wide[wide["evaluator"] == "qwen3:4b"]
    path = tmp_path / "qwen.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for rec in rows.to_dict("records"):
            rec["order"] = json.loads(rec["order"])
            for k in range(1, 6):
                rec[f"resp_{k}"] = rec[f"resp_{k}"] or None
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    from_file = load_pool_labels(synthetic_build, str(path))
    published = load_pool_labels(synthetic_build, "qwen3:4b")
    assert from_file.judge == "qwen3:4b"
    assert np.array_equal(from_file.judge_pool, published.judge_pool)
    assert from_file.n_missing == 0


def test_pool_estimate_table_names_judge(
    pool_sample: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "built"
    build(pool_sample(), out)
    assert main(["pool-estimate", "gemini-3-flash-preview", "--data", str(out)]) == 0
    text = capsys.readouterr().out
    assert "judge gemini-3-flash-preview: 8 pool items, 6 labelled" in text
    assert "| qwen3:4b |" in text


def test_pool_estimate_unknown_judge_is_one_line(
    pool_sample: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "built"
    build(pool_sample(), out)
    assert main(["pool-estimate", "gpt-4o", "--data", str(out)]) == 2
    err = capsys.readouterr().err
    assert "'gpt-4o' is neither a judgments file nor a judge" in err
    assert "gemini-3-flash-preview" in err and "Traceback" not in err


def test_pool_estimate_without_pool_says_so(
    built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pool-estimate", "gemini-3-flash-preview", "--data", str(built_sample)]) == 2
    assert "has no 'pool' config" in capsys.readouterr().err


def test_pool_estimate_bad_judgments_file_names_line(
    pool_sample: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "built"
    build(pool_sample(), out)
    path = tmp_path / "mine.jsonl"
    good = {"evaluator": "mine", "question_id": "P-0", "order": STUDENTS}
    bad = {"evaluator": "mine", "question_id": "P-9", "order": STUDENTS}
    labels = {f"resp_{k}": "Richtig" for k in range(1, 6)}
    path.write_text(
        json.dumps(good | labels) + "\n" + json.dumps(bad | labels) + "\n", encoding="utf-8"
    )
    assert main(["pool-estimate", str(path), "--data", str(out)]) == 2
    err = capsys.readouterr().err
    assert "mine.jsonl" in err and "line 2" in err and "P-9" in err
