"""Tests of medqade.dataset.build_pool: the published ``pool`` and ``pool_judgments`` configs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from datasets import load_dataset

from medqade.dataset.build import build
from medqade.vocab import DEFAULT_ROSTER

STUDENTS = list(DEFAULT_ROSTER.student_ids)


@pytest.fixture
def built_pool(pool_sample: Callable[..., Path], tmp_path: Path) -> Path:
    out = tmp_path / "built"
    build(pool_sample(), out)
    return out


def test_derive_pool_config_loads_with_datasets(built_pool: Path, hf_cache: Path) -> None:
    pool = load_dataset(str(built_pool), "pool", cache_dir=str(hf_cache))["pool"]
    assert pool.num_rows == 8
    rows = {r["question_id"]: r for r in pool}
    # the sample's S-C01 has a verbatim answer (Femur); the new P-0 too; lexical match follows
    assert rows["S-C01"]["lexical_match"] is True and rows["S-C01"]["in_benchmark"] is True
    assert rows["P-0"]["in_benchmark"] is False and rows["P-0"]["lexical_match"] is True
    assert [a["model"] for a in rows["P-1"]["answers"]] == STUDENTS
    assert rows["P-1"]["answers"][0]["answer_id"] == "P-1/gemini-2.5-flash"
    assert rows["P-1"]["answers"][0]["exact_match"] is True
    assert rows["P-1"]["specialty"] == "Anatomie"


def test_derive_pool_lexical_match_same_rule_as_benchmark(built_pool: Path, hf_cache: Path) -> None:
    pool = load_dataset(str(built_pool), "pool", cache_dir=str(hf_cache))["pool"].to_pandas()
    questions = load_dataset(str(built_pool), "questions", cache_dir=str(hf_cache))
    for split in questions:
        for row in questions[split]:
            stated = pool.loc[pool["question_id"] == row["question_id"], "lexical_match"]
            assert bool(stated.iloc[0]) == row["lexical_match"]


def test_derive_pool_judgments_config(built_pool: Path, hf_cache: Path) -> None:
    j = load_dataset(str(built_pool), "pool_judgments", cache_dir=str(hf_cache))["pool"]
    assert j.num_rows == 8 * 5
    first = j.to_pandas().set_index("answer_id")
    assert first.loc["P-1/gemini-2.5-flash", "label"] == "Richtig"
    assert first.loc["P-1/qwen3:4b", "label"] == "Falsch"


def test_pool_counts_in_release_json_and_card(built_pool: Path) -> None:
    meta = json.loads((built_pool / "release.json").read_text(encoding="utf-8"))
    strata = meta["pool"]["strata"]
    assert meta["pool"]["items"] == 8 and meta["pool"]["benchmark_items"] == 6
    assert strata["exact_match"]["pool_items"] + strata["no_match"]["pool_items"] == 8
    assert "pool" in meta["configs"] and "pool_judgments" in meta["configs"]
    card = (built_pool / "README.md").read_text(encoding="utf-8")
    n_exact = strata["exact_match"]["pool_items"]
    bench_exact = strata["exact_match"]["benchmark_items"]
    assert f"| exact match | {n_exact} | {bench_exact} |" in card
    assert "config_name: pool" in card


def test_build_without_pool_has_no_pool_config(built_sample: Path) -> None:
    meta = json.loads((built_sample / "release.json").read_text(encoding="utf-8"))
    assert "pool" not in meta and "pool" not in meta["configs"]
