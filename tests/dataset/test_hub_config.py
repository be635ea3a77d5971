"""Tests of medqade.dataset.hub_config: the ``judge_hub`` config Inspect's ``hf/`` loader reads.

Oracle: the built ``answers`` and ``questions`` configs read back with ``datasets`` (the
consensus and texts the rows must carry) and Inspect's own record-to-sample step.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from datasets import load_dataset

from medqade import vocab
from medqade.dataset import hub_config
from medqade.dataset.build import build_files
from medqade.dataset.meta import ReleaseMeta
from medqade.schema import features


def _config(built: Path, config: str, split: str) -> list[dict]:
    return list(load_dataset(str(built), config, split=split))


@pytest.mark.parametrize("split", vocab.SPLITS)
def test_rows_are_the_resolved_answers_with_the_consensus_letter(
    built_sample: Path, split: str
) -> None:
    rows = _config(built_sample, hub_config.CONFIG, split)
    answers = _config(built_sample, "answers", split)
    questions = {q["question_id"]: q for q in _config(built_sample, "questions", split)}
    resolved = [a for a in answers if a["consensus"] is not None]
    assert len(resolved) < len(answers) or split != "core"  # the sample has an unresolved one
    assert [r["answer_id"] for r in rows] == [a["answer_id"] for a in resolved]
    for row, ans in zip(rows, resolved, strict=True):
        assert row["choices"] == ["Richtig", "Falsch"]
        assert row["target"] == {"Richtig": "A", "Falsch": "B"}[ans["consensus"]]
        q = questions[row["question_id"]]
        assert q["question"] in row["input"] and q["reference_answer"] in row["input"]
        shown = (ans["answer"] or "").strip() or vocab.EMPTY_ANSWER
        assert f"Antwort des Prüflings: {shown}\n" in row["input"]
        assert row["canary"] == vocab.CANARY


def test_config_is_in_the_build_and_its_features(built_sample: Path) -> None:
    meta = ReleaseMeta.from_json((built_sample / "release.json").read_bytes(), "release.json")
    assert hub_config.CONFIG in meta.configs
    files = build_files(built_sample) or set()
    assert {f"data/{hub_config.CONFIG}/{s}-00000-of-00001.parquet" for s in vocab.SPLITS} <= files
    assert tuple(features(hub_config.CONFIG)) == (*hub_config.COLUMNS, "canary")


def test_input_shows_an_empty_answer_as_the_judge_prompt_does() -> None:
    text = hub_config.judge_input(" Frage ___? ", "Femur", "  ")
    assert "Frage: Frage ___?\n" in text and f"Antwort des Prüflings: {vocab.EMPTY_ANSWER}" in text
    assert text.startswith(hub_config.INSTRUCTION)


def test_inspect_reads_a_row_as_a_two_choice_sample(built_sample: Path) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai._eval.task.hf import HFFieldSpec, _record_to_sample_hf

    row = _config(built_sample, hub_config.CONFIG, "core")[0]
    spec = HFFieldSpec(input="input", target="target", choices="choices", metadata=["answer_id"])
    sample = _record_to_sample_hf(row, spec)
    assert sample.choices == ["Richtig", "Falsch"] and sample.target == row["target"]
    assert sample.metadata == {"answer_id": row["answer_id"]}


def test_card_names_the_hub_task_metric_and_what_lives_only_in_the_space(
    built_sample: Path,
) -> None:
    card = (built_sample / "README.md").read_text(encoding="utf-8")
    hub = card.split("## Evaluation on the Hub", 1)[1].split("\n## ", 1)[0]
    assert "hf/ORG/medqade/judge-accuracy" in hub and "**accuracy**" in hub
    assert "`multiple_choice`" in hub and "`choice`" in hub
    assert "kappa" in hub and "verdict" in hub and "**not Hub tasks**" in hub
    assert "only in the MedQADE Space" in hub
    assert f'load_dataset("ORG/medqade", "{hub_config.CONFIG}")' in card
