"""Review queue -> Label Studio export -> import -> reviews table -> build -> load -> shown.

The export is made here from the queue's tasks and labeling config, in the shape of a real
Label Studio 1.23 JSON export (``tests/fixtures/labelstudio/ls-1.23``): task ids, one
annotation per reviewer with ``completed_by``, ``choices`` results whose values are the
config's aliases, a ``textarea`` note, and a cancelled annotation that must be left out.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from datasets import load_dataset

from medqade.app.browse import BrowseIndex
from medqade.cli import main
from medqade.dataset.build import build
from medqade.dataset.release import load_release
from medqade.files.problems import InputError
from medqade.labelstudio.review_queue import JUDGE_VS_PANEL, select_queue, write_queue
from medqade.labelstudio.reviews import convert_reviews, import_reviews
from medqade.measures.rater_report import panel_report
from medqade.raw.codebook import DEFAULT_CODEBOOK

CopySample = Callable[[], Path]
JUDGE = "gemini-2.5-flash"


def _result(control: str, value: dict[str, Any], kind: str = "choices") -> dict[str, Any]:
    return {
        "id": f"r-{control}",
        "from_name": control,
        "to_name": "answer",
        "type": kind,
        "origin": "manual",
        "value": value,
    }


def _export(tasks: list[dict[str, Any]], config: str) -> list[dict[str, Any]]:
    """A Label Studio JSON export of ``tasks`` reviewed with ``config``: the k-th task gets
    the k-th alias of the exclusive group, every other task one combinable code too."""
    root = ET.fromstring(config)
    groups = {
        c.get("name"): [x.get("alias") for x in c.iter("Choice")] for c in root.iter("Choices")
    }
    exclusive = groups.pop("bezug")
    out = []
    for k, task in enumerate(tasks):
        result = [_result("bezug", {"choices": [exclusive[k % len(exclusive)]]})]
        if k % 2:
            result.append(_result("sprache", {"choices": [groups["sprache"][0]]}))
        result.append(_result("note", {"text": [f"Fall {k + 1}"]}, "textarea"))
        annotations = [
            {
                "id": 100 + k,
                "completed_by": 5,
                "was_cancelled": False,
                "result": result,
                "ground_truth": False,
                "lead_time": 12.5,
                "task": k + 1,
                "project": 3,
            },
            {
                "id": 500 + k,
                "completed_by": 6,
                "was_cancelled": True,
                "result": [],
                "ground_truth": False,
                "lead_time": 1.0,
                "task": k + 1,
                "project": 3,
            },
        ]
        out.append(
            {
                "id": k + 1,
                "annotations": annotations,
                "drafts": [],
                "predictions": [],
                "data": task["data"],
                "meta": {},
                "project": 3,
                "total_annotations": 1,
            }
        )
    return out


@pytest.fixture(scope="module")
def roundtrip(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    import shutil

    from conftest import SAMPLE

    base = tmp_path_factory.mktemp("roundtrip")
    raw = base / "raw"
    shutil.copytree(SAMPLE, raw)
    build(raw, base / "before")
    release = load_release(base / "before")
    rows = select_queue(release, JUDGE_VS_PANEL, [JUDGE])
    paths = write_queue(base / "queue" / "q.csv", release, rows, DEFAULT_CODEBOOK)
    tasks = json.loads(paths["tasks"].read_text(encoding="utf-8"))
    export = base / "export.json"
    export.write_text(
        json.dumps(_export(tasks, paths["config"].read_text(encoding="utf-8")), ensure_ascii=False),
        encoding="utf-8",
    )
    assert (
        main(
            [
                "import-reviews",
                str(export),
                "--out",
                str(raw / "reviews.csv"),
                "--reviewer-map",
                str(_map(base)),
            ]
        )
        == 0
    )
    build(raw, base / "after")
    return {"rows": rows, "raw": raw, "after": base / "after", "export": export, "base": base}


def _map(base: Path) -> Path:
    path = base / "reviewers.json"
    path.write_text('{"5": "Dr. Weber"}', encoding="utf-8")
    return path


def test_roundtrip_reviews_table_has_one_row_per_task(roundtrip: dict[str, Any]) -> None:
    lines = (roundtrip["raw"] / "reviews.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "question_id,model,reviewer,codes,note"
    assert len(lines) - 1 == len(roundtrip["rows"]) > 0
    assert all(",Dr. Weber," in line for line in lines[1:])


def test_roundtrip_build_loads_with_datasets(roundtrip: dict[str, Any], hf_cache: Path) -> None:
    ds = load_dataset(str(roundtrip["after"]), "reviews", cache_dir=str(hf_cache))
    got = [r for split in ds for r in ds[split]]
    assert sorted(r["answer_id"] for r in got) == sorted(r.answer_id for r in roundtrip["rows"])
    codes = {tuple(r["codes"]) for r in got}
    assert ("treffend",) in codes and ("unscharf", "begriff_falsch") in codes
    assert {r["note"] for r in got} == {f"Fall {k + 1}" for k in range(len(got))}


def test_roundtrip_panel_counts_the_codes_per_judge_and_physician(
    roundtrip: dict[str, Any],
) -> None:
    rel = load_release(roundtrip["after"])
    report = panel_report(rel, resamples=20)
    expected: Counter[str] = Counter()
    for codes in rel.reviews["codes"]:  # every reviewed answer is one where JUDGE dissents
        expected.update(codes)
    assert report.judge_review_codes[JUDGE] == dict(sorted(expected.items()))
    ev = rel.evaluator_labels
    for p, physician in enumerate(rel.roster.physicians):
        want: Counter[str] = Counter()
        for aid, codes in zip(rel.reviews["answer_id"], rel.reviews["codes"], strict=True):
            i, s = rel.slot_index[aid]
            r = int((ev[:, i, s] == 1).sum())
            f = int((ev[:, i, s] == 0).sum())
            judges = -1 if r + f == 0 else (1 if r > f else 0)  # the ensemble rule
            mine = int(rel.physician_labels[p, i, s])
            if mine in (0, 1) and judges >= 0 and mine != judges:
                want.update(codes)
        assert report.review_codes[physician] == dict(sorted(want.items()))
    rows = report.to_dict()["physicians"]
    assert all(r["review_codes"] is None or isinstance(r["review_codes"], dict) for r in rows)


def test_roundtrip_browse_shows_the_review(roundtrip: dict[str, Any]) -> None:
    rel = load_release(roundtrip["after"])
    first = roundtrip["rows"][0]
    view = BrowseIndex(rel).view(first.question_id)
    assert "Review Dr. Weber: Trifft die Referenz (Fall 1)" in view.html


def test_import_of_a_code_from_the_wrong_group_names_task_and_annotation(
    roundtrip: dict[str, Any],
) -> None:
    tasks = json.loads(roundtrip["export"].read_text(encoding="utf-8"))
    tasks[0]["annotations"][0]["result"][0]["value"] = {"choices": ["dosis"]}
    with pytest.raises(InputError) as info:
        convert_reviews(tasks, DEFAULT_CODEBOOK, name="export.json")
    text = str(info.value)
    assert (
        "export.json, task 1, column 'bezug': annotation 100: code 'dosis' belongs to another group"
        in text
    )


def test_import_refuses_to_overwrite_a_file_that_is_not_a_reviews_table(
    roundtrip: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "ratings.csv"
    target.write_text("question_id,rater,model,label,round\n", encoding="utf-8")
    with pytest.raises(ValueError, match="exists and holds rows this import did not make"):
        import_reviews(roundtrip["export"], target, DEFAULT_CODEBOOK)
    with pytest.raises(ValueError, match="not a reviews table"):
        import_reviews(roundtrip["export"], target, DEFAULT_CODEBOOK, replace=True)
    with pytest.raises(ValueError, match="not a reviews table"):
        import_reviews(roundtrip["export"], target, DEFAULT_CODEBOOK, append=True)
    assert target.read_text(encoding="utf-8") == "question_id,rater,model,label,round\n"


def test_roundtrip_panel_table_shows_review_codes(
    roundtrip: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["panel", "--data", str(roundtrip["after"]), "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "| Review codes |" in out.splitlines()[2]


def test_roundtrip_show_prints_the_reviews_config(
    roundtrip: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", "--data", str(roundtrip["after"])]) == 0
    out = capsys.readouterr().out
    assert "\n[reviews]\n" in out and "'reviewer', 'codes', 'note'" in out


def _judges_codes(roundtrip: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    args = ["panel", "--data", str(roundtrip["after"]), "--resamples", "20"]
    assert main([*args, "--format", "json"]) == 0
    codes: dict[str, Any] = json.loads(capsys.readouterr().out)["judges_review_codes"]
    assert codes and any(codes.values())
    return codes


def test_panel_csv_judges_review_codes(
    roundtrip: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    codes = _judges_codes(roundtrip, capsys)
    args = ["panel", "--data", str(roundtrip["after"]), "--resamples", "20"]
    assert main([*args, "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "\n\n" not in out  # one CSV table, not two blocks
    header = out.splitlines()[0]
    assert header.startswith("kind,physician,judge,") and header.endswith(",verdict,review_codes")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert all(len(r) == len(header.split(",")) and None not in r for r in rows)
    physicians = [r for r in rows if r["kind"] == "physician"]
    assert [r["physician"] for r in physicians] == [f"P{i:02d}" for i in range(1, 11)]
    assert all(r["judge"] == "" for r in physicians)
    judges = [r for r in rows if r["kind"] == "judge"]
    assert [r["kind"] for r in rows] == ["physician"] * len(physicians) + ["judge"] * len(judges)
    assert all(r["physician"] == "" and r["verdict"] == "" for r in judges)
    expected = {j: "; ".join(f"{c} {n}" for c, n in cs.items()) for j, cs in codes.items()}
    assert {r["judge"]: r["review_codes"] for r in judges} == expected


def test_panel_md_judges_review_codes(
    roundtrip: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    codes = _judges_codes(roundtrip, capsys)
    assert main(["panel", "--data", str(roundtrip["after"]), "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "### Judges' review codes" in out
    judge, counts = next((j, c) for j, c in codes.items() if c)
    row = f"| {judge} | " + ", ".join(f"{c} {n}" for c, n in counts.items()) + " |"
    assert row in out.splitlines()
