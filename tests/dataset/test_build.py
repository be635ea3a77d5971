"""Tests of medqade.dataset.build on the sample release, read back with the real ``datasets``
library.

Oracles are independent of the build code: consensus is recomputed from the ``ratings`` config
with a plain loop, lexical match from the answers, difficulty from ``difficulty.csv``.
Hand-derived facts about the sample (``data/sample``):

- 2 core items x 5 answers = 10 slots, 4 extension items = 20 slots;
- ratings: 2 core items x 5 x 10 physicians = 100; extension: 4 x 5 x 2 + 2 adjudicated x 5 = 50;
- unresolved: S-C02/qwen3:4b (4 Richtig : 4 Falsch, 2 abstain: a tie) and S-E04/gemma3:4b
  (every vote, the adjudicator's included, is ``Keine Angabe``).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import datasets
import pytest
import yaml
from datasets import DatasetDict, load_dataset, load_from_disk

from medqade import vocab
from medqade.dataset.build import build
from medqade.files.problems import InputError
from medqade.raw.reader import release_hash
from medqade.schema import CONFIGS, HUB_CONFIGS, features

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
ROWS = {
    "questions": {"core": 2, "extension": 4},
    "answers": {"core": 10, "extension": 20},
    "ratings": {"core": 100, "extension": 50},
    "judgments": {"core": 2 * 9 * 5, "extension": 4 * 9 * 5},
    "judge_hub": {"core": 10 - 1, "extension": 20 - 1},  # the resolved answers
}
BUILT = (*CONFIGS, *HUB_CONFIGS)
"""Every config a build of the sample publishes (the Hub task's besides the four)."""


def _load(folder: Path, config: str | None, cache: Path) -> DatasetDict:
    ds = load_dataset(str(folder), config, cache_dir=str(cache))
    assert isinstance(ds, DatasetDict)
    return ds


def _rows(folder: Path, config: str, cache: Path) -> list[dict[str, Any]]:
    ds = _load(folder, config, cache)
    return [row for split in vocab.SPLITS for row in ds[split]]


def _sample_csv(name: str) -> list[dict[str, str]]:
    with (SAMPLE / name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _hashes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _card_yaml(folder: Path) -> dict[str, Any]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    front, _, _ = text[4:].partition("\n---\n")
    data = yaml.safe_load(front)
    assert isinstance(data, dict)
    return data


def _consensus_oracle(ratings: list[dict[str, Any]]) -> dict[str, str | None]:
    """Majority of the non-abstaining votes per answer slot; a tie or no vote is None."""
    votes: dict[str, Counter[str]] = {}
    for r in ratings:
        votes.setdefault(r["answer_id"], Counter())[r["label"]] += 1
    out: dict[str, str | None] = {}
    for slot, c in votes.items():
        yes, no = c["Richtig"], c["Falsch"]
        out[slot] = "Richtig" if yes > no else "Falsch" if no > yes else None
    return out


# --- loading with datasets -------------------------------------------------------------------


def test_build_default_config_loads_with_datasets(built_sample: Path, hf_cache: Path) -> None:
    ds = _load(built_sample, None, hf_cache)
    assert set(ds) == {"core", "extension"}
    assert {s: ds[s].num_rows for s in ds} == ROWS["questions"]
    assert ds["core"]["question_id"] == ["S-C01", "S-C02"]
    assert ds["extension"]["question_id"] == ["S-E01", "S-E02", "S-E03", "S-E04"]


@pytest.mark.parametrize("config", BUILT)
def test_build_config_row_counts(built_sample: Path, hf_cache: Path, config: str) -> None:
    ds = _load(built_sample, config, hf_cache)
    assert {s: ds[s].num_rows for s in ds} == ROWS[config]


@pytest.mark.parametrize("config", BUILT)
def test_build_features_as_declared(built_sample: Path, hf_cache: Path, config: str) -> None:
    extras = ("specialty",) if config in ("questions", "answers") else ()
    ds = _load(built_sample, config, hf_cache)
    for split in vocab.SPLITS:
        assert ds[split].features == features(config, extras)


def test_build_feature_types(built_sample: Path, hf_cache: Path) -> None:
    q = _load(built_sample, None, hf_cache)["core"].features
    assert q["lexical_match"].dtype == "bool"
    assert q["difficulty_mean"].dtype == "float64"
    assert q["difficulty_tier"].dtype == "int8"
    assert isinstance(q["answers"], datasets.List)
    slot = q["answers"].feature
    assert slot["votes_richtig"].dtype == "int16"
    assert slot["adjudicated"].dtype == "bool"
    assert slot["consensus"].dtype == "string"
    assert isinstance(q["difficulty_ratings"], datasets.List)
    assert set(q["difficulty_ratings"].feature) == {"rater", "difficulty"}
    j = _load(built_sample, "judgments", hf_cache)["core"].features
    assert j["position"].dtype == "int8"


# --- derived columns against independent oracles ---------------------------------------------


def test_build_consensus_equals_majority_of_ratings(built_sample: Path, hf_cache: Path) -> None:
    oracle = _consensus_oracle(_rows(built_sample, "ratings", hf_cache))
    answers = _rows(built_sample, "answers", hf_cache)
    assert len(answers) == 30
    assert {a["answer_id"]: a["consensus"] for a in answers} == oracle
    nested = _rows(built_sample, "questions", hf_cache)
    assert {s["answer_id"]: s["consensus"] for q in nested for s in q["answers"]} == oracle


def test_build_unresolved_slots_are_the_tie_and_the_abstention(
    built_sample: Path, hf_cache: Path
) -> None:
    answers = _rows(built_sample, "answers", hf_cache)
    unresolved = sorted(a["answer_id"] for a in answers if a["consensus"] is None)
    assert unresolved == ["S-C02/qwen3:4b", "S-E04/gemma3:4b"]
    tie = next(a for a in answers if a["answer_id"] == "S-C02/qwen3:4b")
    assert (tie["votes_richtig"], tie["votes_falsch"], tie["votes_keine_angabe"]) == (4, 4, 2)


def test_build_votes_count_every_round(built_sample: Path, hf_cache: Path) -> None:
    ratings = _rows(built_sample, "ratings", hf_cache)
    counts = Counter((r["answer_id"], r["label"]) for r in ratings)
    for a in _rows(built_sample, "answers", hf_cache):
        assert a["votes_richtig"] == counts[(a["answer_id"], "Richtig")]
        assert a["votes_falsch"] == counts[(a["answer_id"], "Falsch")]
        assert a["votes_keine_angabe"] == counts[(a["answer_id"], "Keine Angabe")]


def test_build_adjudicated_exactly_where_adjudication_exists(
    built_sample: Path, hf_cache: Path
) -> None:
    ratings = _rows(built_sample, "ratings", hf_cache)
    expected = {r["answer_id"] for r in ratings if r["round"] == "adjudication"}
    assert expected == {
        f"{q}/{m}" for q in ("S-E02", "S-E04") for m in vocab.DEFAULT_ROSTER.student_ids
    }
    answers = _rows(built_sample, "answers", hf_cache)
    assert {a["answer_id"] for a in answers if a["adjudicated"]} == expected


def test_build_lexical_match_from_answers(built_sample: Path, hf_cache: Path) -> None:
    reference = {q["question_id"]: q["reference_answer"] for q in _sample_csv("questions.csv")}
    answers = _rows(built_sample, "answers", hf_cache)
    for a in answers:
        assert a["exact_match"] == (a["answer"] == reference[a["question_id"]]), a["answer_id"]
    matched = {a["question_id"] for a in answers if a["answer"] == reference[a["question_id"]]}
    questions = _rows(built_sample, "questions", hf_cache)
    assert {q["question_id"]: q["lexical_match"] for q in questions} == {
        qid: qid in matched for qid in reference
    }
    assert all(a["lexical_match"] == (a["question_id"] in matched) for a in answers)


def test_build_difficulty_mean_and_tier(built_sample: Path, hf_cache: Path) -> None:
    scores: dict[str, list[int]] = {}
    for d in _sample_csv("difficulty.csv"):
        scores.setdefault(d["question_id"], []).append(vocab.DIFFICULTY_SCORES[d["difficulty"]])
    questions = _rows(built_sample, "questions", hf_cache)
    for q in questions:
        s = scores[q["question_id"]]
        mean = sum(s) / len(s)
        assert q["difficulty_mean"] == pytest.approx(mean, abs=1e-12)
        tier = 1 if mean <= 0.5 else 2 if mean <= 1.0 else 3 if mean <= 1.5 else 4
        assert q["difficulty_tier"] == tier
        assert len(q["difficulty_ratings"]) == len(s)
    # S-C01: 6 x Einfach + 4 x Mittel = 0.4 -> T1; S-E02: 3 x Schwer = 2.0 -> T4
    by_id = {q["question_id"]: q for q in questions}
    assert by_id["S-C01"]["difficulty_mean"] == pytest.approx(0.4)
    assert by_id["S-E02"]["difficulty_tier"] == 4


def test_build_umlauts_round_trip(built_sample: Path, hf_cache: Path) -> None:
    source = {q["question_id"]: q for q in _sample_csv("questions.csv")}
    questions = _rows(built_sample, "questions", hf_cache)
    for q in questions:
        for field in ("question", "reference_answer", "specialty"):
            assert q[field] == source[q["question_id"]][field]
    texts = " ".join(q["question"] + q["specialty"] for q in questions)
    assert "längste Röhrenknochen" in texts
    assert "häufigste" in texts and "Säuglingsalter" in texts and "Pädiatrie" in texts
    source_answers = {
        (a["question_id"], a["model"]): a["answer"] for a in _sample_csv("answers.csv")
    }
    answers = _rows(built_sample, "answers", hf_cache)
    assert {(a["question_id"], a["model"]): a["answer"] for a in answers} == source_answers


def test_build_umlauts_and_eszett_round_trip(copy_sample: Any, tmp_path: Path) -> None:
    raw_dir = copy_sample()
    path = raw_dir / "questions.csv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Anatomie", '"Größe, Maß & Übel: ÄÖÜ äöü ß ẞ"'), encoding="utf-8")
    build(raw_dir, tmp_path / "out")
    ds = load_dataset(str(tmp_path / "out"), cache_dir=str(tmp_path / "cache"))
    assert isinstance(ds, DatasetDict)
    assert ds["core"][0]["specialty"] == "Größe, Maß & Übel: ÄÖÜ äöü ß ẞ"


def test_build_canary_in_every_row(built_sample: Path, hf_cache: Path) -> None:
    for config in BUILT:
        rows = _rows(built_sample, config, hf_cache)
        assert rows, config
        assert {r["canary"] for r in rows} == {vocab.CANARY}, config


def test_build_ratings_and_judgments_are_the_raw_rows(built_sample: Path, hf_cache: Path) -> None:
    raw = _sample_csv("ratings.csv")
    got = _rows(built_sample, "ratings", hf_cache)
    key = ("question_id", "rater", "model", "label", "round")
    assert sorted(tuple(r[k] for k in key) for r in got) == sorted(
        tuple(r[k] for k in key) for r in raw
    )
    judgments = _rows(built_sample, "judgments", hf_cache)
    first = json.loads((SAMPLE / "judgments.jsonl").read_text(encoding="utf-8").splitlines()[0])
    mine = {
        r["model"]: (r["label"], r["position"])
        for r in judgments
        if r["evaluator"] == first["evaluator"] and r["question_id"] == first["question_id"]
    }
    assert mine == {m: (first[f"resp_{k}"], k) for k, m in enumerate(first["order"], start=1)}


# --- the card and release.json ----------------------------------------------------------------


def test_build_card_yaml(built_sample: Path) -> None:
    card = _card_yaml(built_sample)
    assert card["license"] == "cc-by-nc-4.0"
    assert card["language"] == ["de"]
    assert card["extra_gated_prompt"]
    assert len(card["extra_gated_fields"]) == 2
    assert set(card["extra_gated_fields"].values()) == {"checkbox"}
    assert card["medqade_canary"] == vocab.CANARY
    configs = {c["config_name"]: c for c in card["configs"]}
    assert set(configs) == set(BUILT)
    assert configs["questions"].get("default") is True
    for name, c in configs.items():
        assert c["data_files"] == [
            {"split": s, "path": f"data/{name}/{s}-*.parquet"} for s in vocab.SPLITS
        ]
    infos = {i["config_name"]: i for i in card["dataset_info"]}
    assert set(infos) == set(BUILT)
    q_fields = {f["name"] for f in infos["questions"]["features"]}
    assert {"question_id", "answers", "difficulty_ratings", "specialty", "canary"} <= q_fields


def test_build_card_counts_match_release_json(built_sample: Path) -> None:
    meta = json.loads((built_sample / "release.json").read_text(encoding="utf-8"))
    text = (built_sample / "README.md").read_text(encoding="utf-8")
    for split in ("core", "extension", "all"):
        c = meta["counts"][split]
        row = (
            f"| {split} | {c['items']} | {c['slots']} | {c['exact_match_items']} | "
            f"{c['no_match_items']} | {c['unresolved_slots']} | {c['adjudicated_slots']} |"
        )
        assert row in text
    assert "| core | 2 | 10 | 1 | 1 | 1 | 0 |" in text
    assert "| extension | 4 | 20 | 3 | 1 | 1 | 10 |" in text
    assert vocab.CANARY in text
    assert "Each of its 6 question sets" in text
    assert "<built-in" not in text and "object at 0x" not in text


def test_build_release_json(built_sample: Path) -> None:
    meta = json.loads((built_sample / "release.json").read_text(encoding="utf-8"))
    assert meta["source_hash"] == release_hash(SAMPLE)
    assert meta["synthetic"] is False
    assert meta["warnings"] == [] and meta["n_warnings"] == 0
    assert meta["counts"]["all"]["items"] == 6
    assert meta["counts"]["all"]["unresolved_slots"] == 2
    assert meta["counts"]["all"]["ratings"] == 150
    on_disk = {k: v for k, v in _hashes(built_sample).items() if k.startswith("data/")}
    assert meta["files"] == on_disk
    assert len(on_disk) == len(BUILT) * len(vocab.SPLITS)


# --- determinism, atomicity, arrow ------------------------------------------------------------


def test_build_is_byte_identical(copy_sample: Any, tmp_path: Path, built_sample: Path) -> None:
    build(SAMPLE, tmp_path / "a")
    build(copy_sample(), tmp_path / "b")  # another folder with the same bytes
    a, b = _hashes(tmp_path / "a"), _hashes(tmp_path / "b")
    assert a == b
    assert a == _hashes(built_sample)
    assert set(a) == {"README.md", "release.json", "eval.yaml"} | {
        f"data/{c}/{s}-00000-of-00001.parquet" for c in BUILT for s in vocab.SPLITS
    }


def test_build_rebuild_replaces_out(tmp_path: Path, copy_sample: Any) -> None:
    out = tmp_path / "out"
    build(SAMPLE, out)
    raw_dir = copy_sample()
    text = (raw_dir / "difficulty.csv").read_text(encoding="utf-8")
    (raw_dir / "difficulty.csv").write_text(text.replace("P01,Einfach", "P01,Schwer"), "utf-8")
    build(raw_dir, out)
    assert json.loads((out / "release.json").read_text("utf-8"))["source_hash"] == release_hash(
        raw_dir
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", raw_dir.name])


def test_build_rebuild_refuses_a_build_with_foreign_files(tmp_path: Path) -> None:
    """A file the build did not write is never deleted with the old build."""
    out = tmp_path / "out"
    build(SAMPLE, out)
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    before = _hashes(out)
    with pytest.raises(ValueError, match=r"holds files .* did not write \(notes.txt\)"):
        build(SAMPLE, out)
    assert _hashes(out) == before


def test_build_failure_leaves_out_untouched(tmp_path: Path, copy_sample: Any) -> None:
    out = tmp_path / "out"
    build(SAMPLE, out)
    before = _hashes(out)
    broken = copy_sample()
    (broken / "ratings.csv").write_text("question_id,rater,model,label,round\nX,P01,y,z,w\n")
    with pytest.raises(InputError):
        build(broken, out)
    assert _hashes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", broken.name])


def test_build_failure_while_writing_leaves_out_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    build(SAMPLE, out)
    before = _hashes(out)

    def broken_card(*args: object, **kwargs: object) -> str:
        raise RuntimeError("card template exploded")

    monkeypatch.setattr("medqade.dataset.card.render_card", broken_card)
    with pytest.raises(RuntimeError, match="card template exploded"):
        build(SAMPLE, out)
    assert _hashes(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folder left


def test_build_failure_without_existing_out_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("medqade.dataset.card.render_card", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        build(SAMPLE, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_build_arrow_export_loads_from_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    build(SAMPLE, tmp_path / "out", tmp_path / "arrow")
    for config in BUILT:
        ds = load_from_disk(str(tmp_path / "arrow" / config))
        assert isinstance(ds, DatasetDict)
        assert {s: ds[s].num_rows for s in ds} == ROWS[config]
    q = load_from_disk(str(tmp_path / "arrow" / "questions"))
    assert q["core"][0]["question"] == "Der längste Röhrenknochen des Menschen ist der ___."


def test_datasets_range_is_the_tested_one_and_holds_the_installed_major() -> None:
    """pyproject pins ``datasets`` to the majors tested (4.8.x and 5.x, issue 36): the version
    this suite runs on is inside the range, 5.x is in it, and an untested 6 is not."""
    import tomllib

    from packaging.requirements import Requirement

    root = Path(__file__).resolve().parents[2]
    deps = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (req,) = [Requirement(d) for d in deps["dependencies"] if Requirement(d).name == "datasets"]
    assert datasets.__version__ in req.specifier
    assert "5.2.0" in req.specifier and "4.8.5" in req.specifier
    assert "6.0.0" not in req.specifier and "4.0.0" not in req.specifier
    lines = (root / "space" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    space = [Requirement(x) for x in lines if x.startswith("datasets")]
    assert [r.specifier for r in space] == [req.specifier]  # the Space installs the same range
