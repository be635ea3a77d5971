"""The review queue: selection against a plain loop, the Label Studio files, safe writing."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from medqade import vocab
from medqade.cli import main
from medqade.dataset.release import Release, load_release
from medqade.files.atomic import OutputRefused
from medqade.labelstudio.review_queue import (
    JUDGE_VS_PANEL,
    PHYSICIAN_VS_JUDGES,
    labeling_config,
    queue_paths,
    select_queue,
    write_queue,
)
from medqade.raw.codebook import DEFAULT_CODEBOOK


@pytest.fixture(scope="module")
def sample(built_sample: Path) -> Release:
    return load_release(built_sample)


def _oracle(rel: Release, kind: str, judges: tuple[str, ...], min_votes: int) -> list[str]:
    """Answer ids by a plain loop over answers and labellers."""
    ids = rel.roster.evaluator_ids
    out = []
    for i, qid in enumerate(rel.item_ids):
        for s, model in enumerate(rel.roster.student_ids):
            phys = [int(c) for c in rel.physician_labels[:, i, s] if c in (0, 1)]
            jud = {j: int(rel.evaluator_labels[ids.index(j), i, s]) for j in judges}
            jud_sub = [c for c in jud.values() if c in (0, 1)]
            if kind == JUDGE_VS_PANEL:
                group, others = phys, jud_sub
            else:
                group, others = jud_sub, phys
            unanimous = len(group) >= min_votes and len(set(group)) == 1
            if unanimous and any(c != group[0] for c in others):
                out.append(f"{qid}/{model}")
    return out


def test_judge_vs_panel_equals_a_plain_loop(sample: Release) -> None:
    judges = sample.roster.evaluator_ids
    rows = select_queue(sample, JUDGE_VS_PANEL)
    assert [r.answer_id for r in rows] == _oracle(sample, JUDGE_VS_PANEL, judges, 3)
    assert rows and all(r.n_unanimous >= 3 for r in rows)


def test_one_judge_narrows_the_queue_to_its_dissent(sample: Release) -> None:
    judge = sample.roster.evaluator_ids[3]
    rows = select_queue(sample, JUDGE_VS_PANEL, [judge])
    assert [r.answer_id for r in rows] == _oracle(sample, JUDGE_VS_PANEL, (judge,), 3)
    assert all(r.dissenters == (judge,) for r in rows)


def test_physician_vs_judges_equals_a_plain_loop(synthetic: Release) -> None:
    core = synthetic.subset(synthetic.is_core)
    rows = select_queue(core, PHYSICIAN_VS_JUDGES, min_votes=5)
    assert [r.answer_id for r in rows] == _oracle(
        core, PHYSICIAN_VS_JUDGES, core.roster.evaluator_ids, 5
    )
    assert rows and all(set(r.dissenters) <= set(core.roster.physicians) for r in rows)


def test_unknown_judge_and_kind_are_refused(sample: Release) -> None:
    with pytest.raises(ValueError, match="unknown judge"):
        select_queue(sample, JUDGE_VS_PANEL, ["gpt-9"])
    with pytest.raises(ValueError, match="unknown kind"):
        select_queue(sample, "judge-vs-judge")


def test_labeling_config_has_a_control_per_group_with_code_aliases() -> None:
    root = ET.fromstring(labeling_config(DEFAULT_CODEBOOK))
    controls = {c.get("name"): c for c in root.iter("Choices")}
    assert list(controls) == [g.id for g in DEFAULT_CODEBOOK.groups]
    for g in DEFAULT_CODEBOOK.groups:
        c = controls[g.id]
        assert c.get("choice") == ("single" if g.exclusive else "multiple")
        assert (c.get("required") == "true") == g.required
        assert [x.get("alias") for x in c.iter("Choice")] == [code.id for code in g.codes]
        assert [x.get("value") for x in c.iter("Choice")] == [code.label for code in g.codes]
    assert [t.get("name") for t in root.iter("TextArea")] == ["note"]


def test_write_queue_writes_three_files_and_tasks_carry_the_answer(
    sample: Release, tmp_path: Path
) -> None:
    rows = select_queue(sample, JUDGE_VS_PANEL)
    paths = write_queue(tmp_path / "queue.csv", sample, rows, DEFAULT_CODEBOOK)
    assert {p.name for p in tmp_path.iterdir()} == {
        "queue.csv",
        "queue.tasks.json",
        "queue.config.xml",
        ".queue.medqade.json",
    }
    tasks = json.loads(paths["tasks"].read_text(encoding="utf-8"))
    assert len(tasks) == len(rows) == len(paths["csv"].read_text().splitlines()) - 1
    first = tasks[0]["data"]
    i, s = sample.slot_index[first["answer_id"]]
    assert first["answer"] == sample.answer_text[i, s]
    assert first["unanimous"] in vocab.SUBSTANTIVE


def test_write_queue_replaces_its_own_files_but_refuses_others(
    sample: Release, tmp_path: Path
) -> None:
    rows = select_queue(sample, JUDGE_VS_PANEL)
    out = tmp_path / "queue.csv"
    write_queue(out, sample, rows, DEFAULT_CODEBOOK)
    write_queue(out, sample, rows[:1], DEFAULT_CODEBOOK)  # its own: replaced
    assert len(out.read_text().splitlines()) == 2
    queue_paths(out)["config"].write_text("<View/>", encoding="utf-8")  # changed by someone
    with pytest.raises(OutputRefused, match=r"queue\.config\.xml exists and was not written"):
        write_queue(out, sample, rows, DEFAULT_CODEBOOK)
    other = tmp_path / "notes.csv"
    other.write_text("mine\n", encoding="utf-8")
    with pytest.raises(OutputRefused, match=r"notes\.csv exists"):
        write_queue(other, sample, rows, DEFAULT_CODEBOOK)
    assert other.read_text(encoding="utf-8") == "mine\n"


def test_review_queue_cli_refusal_is_one_line(
    built_sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "q.tasks.json").write_text("[]", encoding="utf-8")
    code = main(["review-queue", "--data", str(built_sample), "--out", str(tmp_path / "q.csv")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("medqade review-queue: error:") and "q.tasks.json" in err
    assert len(err.strip().splitlines()) == 1
