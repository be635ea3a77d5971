"""Parsing and checking submissions: every format, and one test per kind of bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring import (
    Limits,
    attach_labels,
    csv_text,
    parse_submission,
    validate_only,
)

from ..helpers import answers_csv, jsonl, parquet_bytes, scored

HEADER = "question_id,model,label\n"


def rows_csv(sample: Release, label: str = "Richtig") -> str:
    return HEADER + "".join(
        f"{q},{m},{label}\n" for q in sample.item_ids for m in sample.roster.student_ids
    )


def problems(exc: pytest.ExceptionInfo[InputError]) -> str:
    return "\n".join(str(p) for p in exc.value.problems)


# --- formats -------------------------------------------------------------------------------------


def test_parse_submission_judge_rows_csv(sample: Release) -> None:
    text = HEADER + "S-C01,gemini-2.5-flash,Richtig\nS-C01,qwen3:4b,incorrect\n"
    text += "S-C02,Gemma 3 4B,Keine Angabe\n"
    sub = parse_submission(text.encode(), "j.csv", sample)
    assert (sub.kind, sub.format, sub.n_rows) == ("judge", "rows", 3)
    assert sub.labels is not None
    assert sub.labels[0, 0] == vocab.RICHTIG_CODE
    assert sub.labels[0, 4] == vocab.FALSCH_CODE
    assert sub.labels[1, 3] == vocab.ABSTAIN_CODE  # display name accepted
    assert int(sub.present.sum()) == 3
    assert sub.scope == "partial"
    with pytest.raises(ValueError):
        sub.labels[0, 0] = 0  # read-only


def test_parse_submission_full_coverage_is_full_scope(sample: Release) -> None:
    sub = parse_submission(rows_csv(sample).encode(), "j.csv", sample)
    assert sub.scope == "full"
    assert dict(sub.coverage) == {"core": 1.0, "extension": 1.0, "all": 1.0}
    assert not sub.warnings


def test_parse_submission_core_only_is_core_scope(sample: Release) -> None:
    text = HEADER + "".join(
        f"{q},{m},Falsch\n" for q in ("S-C01", "S-C02") for m in sample.roster.student_ids
    )
    sub = parse_submission(text.encode(), "core.csv", sample)
    assert sub.scope == "core"
    assert sub.coverage["extension"] == 0.0


def test_parse_submission_per_question_jsonl_is_an_evaluator_run(sample: Release) -> None:
    students = list(sample.roster.student_ids)
    order = students[::-1]
    records = [
        {
            "evaluator": "my-judge",
            "question_id": "S-C01",
            "order": order,
            "resp_1": "Richtig",
            "resp_2": "Falsch",
            "resp_3": None,
            "resp_4": "Keine Angabe",
            "resp_5": "Richtig",
            "difficulty": "Mittel",
        },
        {
            "evaluator": "my-judge",
            "question_id": "S-C02",
            "order": order,
            **{f"resp_{k}": None for k in range(1, 6)},
            "difficulty": None,
            "error": "timeout",
            "raw": "…",
        },
    ]
    sub = parse_submission(jsonl(records).encode(), "run.jsonl", sample)
    assert (sub.kind, sub.format) == ("judge", "per_question")
    assert sub.labels is not None
    # resp_k judges order[k-1]: order is reversed, so resp_1 is qwen3:4b (slot 4)
    assert list(sub.labels[0]) == [1, 2, -1, 0, 1]
    assert list(sub.labels[1]) == [-1] * 5
    assert sub.present[:2].all()
    assert any("null labels" in w.message for w in sub.warnings)


def test_parse_submission_per_question_csv_with_order_text(sample: Release) -> None:
    order = "|".join(sample.roster.student_ids)
    text = "question_id,order,resp_1,resp_2,resp_3,resp_4,resp_5\n"
    text += f"S-C01,{order},Richtig,Richtig,Richtig,Falsch,Falsch\n"
    text += 'S-C02,"' + json.dumps(list(sample.roster.student_ids)).replace('"', '""') + '"'
    text += ",Richtig,Richtig,Falsch,Falsch,\n"
    sub = parse_submission(text.encode(), "pq.csv", sample)
    assert sub.labels is not None
    assert list(sub.labels[0]) == [1, 1, 1, 0, 0]
    assert list(sub.labels[1]) == [1, 1, 0, 0, -1]


def test_parse_submission_parquet_and_answer_id(sample: Release) -> None:
    frame = pd.DataFrame(
        {"answer_id": ["S-C01/gemini-2.5-flash", "S-E04/qwen3:4b"], "label": [True, False]}
    )
    sub = parse_submission(parquet_bytes(frame), "j.parquet", sample)
    assert sub.labels is not None
    assert sub.labels[0, 0] == vocab.RICHTIG_CODE
    assert sub.labels[5, 4] == vocab.FALSCH_CODE


def test_parse_submission_same_labels_same_hash_in_any_format(sample: Release) -> None:
    csv = rows_csv(sample, "Falsch")
    records = [
        {"question_id": q, "model": m, "label": "incorrect"}
        for q in sample.item_ids
        for m in sample.roster.student_ids
    ]
    a = parse_submission(csv.encode(), "a.csv", sample)
    b = parse_submission(jsonl(records).encode(), "b.jsonl", sample)
    assert a.content_hash == b.content_hash


def test_parse_submission_meta_header(sample: Release) -> None:
    meta = {"name": "Mein Judge", "family": "gpt", "decoding": {"temperature": 0}}
    text = jsonl([{"question_id": "S-C01", "model": "qwen3:4b", "label": "Falsch"}], meta)
    sub = parse_submission(text.encode(), "j.jsonl", sample)
    assert sub.meta["family"] == "GPT"  # matched to the roster's spelling
    assert sub.meta["decoding"] == {"temperature": 0}


def test_parse_submission_answers_csv(sample: Release) -> None:
    text = "question_id,answer\nS-C01,Femur\nS-C02,\n"
    sub = parse_submission(text.encode(), "a.csv", sample)
    assert (sub.kind, sub.scope) == ("answers", "core")
    assert sub.answers is not None
    assert sub.answers[:2] == ("Femur", None)
    assert any("no answer" in w.message for w in sub.warnings)


def test_parse_submission_kind_given_reports_missing_columns(sample: Release) -> None:
    with pytest.raises(InputError) as exc:
        parse_submission(
            b"question_id,model,label\nS-C01,qwen3:4b,Falsch\n", "x.csv", sample, "answers"
        )
    assert "missing required column(s) answer" in problems(exc)


def test_parse_submission_rejects_unknown_kind(sample: Release) -> None:
    with pytest.raises(ValueError, match="kind must be one of"):
        parse_submission(b"question_id,answer\nS-C01,x\n", "a.csv", sample, kind="model")


# --- bad input: one test per mistake -----------------------------------------------------------


def test_parse_submission_unknown_question_id(sample: Release) -> None:
    text = HEADER + "S-C01,qwen3:4b,Falsch\nMQ-C9999,qwen3:4b,Falsch\n"
    with pytest.raises(InputError) as exc:
        parse_submission(text.encode(), "j.csv", sample)
    msg = problems(exc)
    assert "j.csv, line 3, column 'question_id': unknown question id (value 'MQ-C9999')" in msg
    assert "use the question ids of this release" in msg


def test_parse_submission_unknown_model(sample: Release) -> None:
    text = HEADER + "S-C01,gpt-4o,Falsch\n"
    with pytest.raises(InputError) as exc:
        parse_submission(text.encode(), "j.csv", sample)
    msg = problems(exc)
    assert "line 2, column 'model': unknown model" in msg
    assert "gemini-2.5-flash" in msg  # the fix lists the student ids


def test_parse_submission_duplicate_rows_with_different_labels(sample: Release) -> None:
    text = HEADER + "S-C01,qwen3:4b,Falsch\nS-C01,qwen3:4b,Richtig\n"
    with pytest.raises(InputError) as exc:
        parse_submission(text.encode(), "j.csv", sample)
    msg = problems(exc)
    assert "line 3" in msg and "different label than line 2" in msg
    assert "keep one row per question and model" in msg


def test_parse_submission_duplicate_rows_with_same_label_warn(sample: Release) -> None:
    text = HEADER + "S-C01,qwen3:4b,Falsch\nS-C01,qwen3:4b,falsch\n"
    sub = parse_submission(text.encode(), "j.csv", sample)
    assert any("repeats an earlier row" in w.message for w in sub.warnings)


def test_parse_submission_invalid_label(sample: Release) -> None:
    text = HEADER + "S-C01,qwen3:4b,vielleicht\nS-C02,qwen3:4b,Richtig\n"
    with pytest.raises(InputError) as exc:
        parse_submission(text.encode(), "j.csv", sample)
    msg = problems(exc)
    assert "line 2, column 'label': invalid label (value 'vielleicht')" in msg
    assert "Richtig, Falsch, Keine Angabe" in msg


def test_parse_submission_invalid_difficulty(sample: Release) -> None:
    text = "question_id,model,label,difficulty\nS-C01,qwen3:4b,Falsch,sehr schwer\n"
    with pytest.raises(InputError, match="invalid difficulty"):
        parse_submission(text.encode(), "j.csv", sample)


def test_parse_submission_missing_required_columns(sample: Release) -> None:
    text = "question_id,model,verdict\nS-C01,qwen3:4b,Falsch\n"
    with pytest.raises(InputError) as exc:
        parse_submission(text.encode(), "j.csv", sample, kind="judge")
    msg = problems(exc)
    assert "missing required column(s) label" in msg
    assert "question_id, model, verdict" in msg  # the columns found


def test_parse_submission_undetectable_kind_names_columns(sample: Release) -> None:
    with pytest.raises(InputError) as exc:
        parse_submission(b"id,text\n1,x\n", "x.csv", sample)
    msg = problems(exc)
    assert "cannot tell the kind" in msg and "question_id, answer" in msg


def test_parse_submission_empty_file(sample: Release) -> None:
    for data in (b"", b"   \n", b"\xef\xbb\xbf"):
        with pytest.raises(InputError, match="the file is empty"):
            parse_submission(data, "e.csv", sample)


def test_parse_submission_header_only(sample: Release) -> None:
    with pytest.raises(InputError, match="no data rows"):
        parse_submission(HEADER.encode(), "h.csv", sample)


def test_parse_submission_semicolon_delimiter(sample: Release) -> None:
    text = "question_id;model;label\nS-C01;qwen3:4b;Falsch\n"
    with pytest.raises(InputError) as exc:
        parse_submission(text.encode(), "j.csv", sample)
    msg = problems(exc)
    assert "separated by semicolons" in msg and "use commas" in msg


def test_parse_submission_tab_delimiter(sample: Release) -> None:
    text = "question_id\tanswer\nS-C01\tFemur\n"
    with pytest.raises(InputError, match="separated by tabs"):
        parse_submission(text.encode(), "a.csv", sample)


def test_parse_submission_bom_is_accepted_with_a_note(sample: Release) -> None:
    data = b"\xef\xbb\xbf" + b"question_id,answer\nS-C01,Femur\n"
    sub = parse_submission(data, "a.csv", sample)
    assert sub.kind == "answers"
    assert any("byte-order mark" in w.message for w in sub.warnings)


def test_parse_submission_latin1_bytes(sample: Release) -> None:
    data = "question_id,answer\nS-C01,Röhrenknochen\n".encode("latin-1")
    with pytest.raises(InputError) as exc:
        parse_submission(data, "a.csv", sample)
    msg = problems(exc)
    assert "a.csv, line 2: not UTF-8" in msg and "save the file as UTF-8" in msg


def test_parse_submission_utf16(sample: Release) -> None:
    data = "question_id,answer\nS-C01,Femur\n".encode("utf-16")
    with pytest.raises(InputError, match="UTF-16"):
        parse_submission(data, "a.csv", sample)


def test_parse_submission_spreadsheet_formula_is_kept_and_neutralised(sample: Release) -> None:
    text = 'question_id,answer\nS-C01,"=HYPERLINK(""http://x.example"",""Femur"")"\n'
    sub = parse_submission(text.encode(), "a.csv", sample)
    assert sub.answers is not None and sub.answers[0] is not None
    assert sub.answers[0].startswith("=HYPERLINK")
    notes = [w for w in sub.warnings if "spreadsheet formula" in w.message]
    assert notes and notes[0].row == 2
    exported = csv_text(pd.DataFrame({"answer": [sub.answers[0]], "n": [1]}))
    assert "'=HYPERLINK" in exported
    assert exported.splitlines()[1].startswith("\"'=HYPERLINK")


def test_parse_submission_formula_in_question_id_gets_a_fix(sample: Release) -> None:
    text = 'question_id,answer\n"=HYPERLINK(""S-C01"")",Femur\n'
    with pytest.raises(InputError, match="remove the spreadsheet formula"):
        parse_submission(text.encode(), "a.csv", sample)


def test_parse_submission_answer_too_long(sample: Release) -> None:
    text = "question_id,answer\nS-C01," + "Femur " * 20 + "\n"
    with pytest.raises(InputError) as exc:
        parse_submission(text.encode(), "a.csv", sample, limits=Limits(max_answer_chars=50))
    msg = problems(exc)
    assert "line 2, column 'answer': answer has" in msg and "limit of 50" in msg
    assert "only the short answer" in msg


def test_parse_submission_file_too_large(sample: Release) -> None:
    data = rows_csv(sample).encode()
    with pytest.raises(InputError) as exc:
        parse_submission(data, "j.csv", sample, limits=Limits(max_bytes=100))
    assert "more than the limit of 100" in problems(exc)


def test_parse_submission_too_many_rows(sample: Release) -> None:
    with pytest.raises(InputError, match="rows, more than the limit"):
        parse_submission(rows_csv(sample).encode(), "j.csv", sample, limits=Limits(max_rows=10))


def test_parse_submission_partial_coverage_is_scored_with_a_note(sample: Release) -> None:
    text = HEADER + "S-C01,qwen3:4b,Falsch\nS-E01,qwen3:4b,Falsch\n"
    sub = parse_submission(text.encode(), "j.csv", sample)
    assert sub.scope == "partial"
    note = [w for w in sub.warnings if "partial coverage" in w.message]
    assert note and "count as disagreements" in note[0].message
    record = scored(sample, sub, resamples=10)
    assert "partial_coverage" in record["flags"]
    assert record["submission"]["coverage"]["all"] == pytest.approx(2 / 30)
    assert any("count as disagreements" in w for w in record["warnings"])
    # the agreement when rated is computed on the one covered core slot only
    assert record["core"]["rated"]["n"] <= 1 < record["core"]["n"]


def test_parse_submission_several_evaluators(sample: Release) -> None:
    text = "evaluator,question_id,model,label\na,S-C01,qwen3:4b,Falsch\nb,S-C02,qwen3:4b,Falsch\n"
    with pytest.raises(InputError, match="labels of 2 evaluators"):
        parse_submission(text.encode(), "j.csv", sample)


def test_parse_submission_bad_order(sample: Release) -> None:
    rec = {"question_id": "S-C01", "order": ["qwen3:4b"] * 5}
    rec |= {f"resp_{k}": "Richtig" for k in range(1, 6)}
    with pytest.raises(InputError, match="appears twice in the order"):
        parse_submission(jsonl([rec]).encode(), "j.jsonl", sample)
    rec["order"] = ["qwen3:4b"]
    with pytest.raises(InputError, match="expected a list of 5 student ids"):
        parse_submission(jsonl([rec]).encode(), "j.jsonl", sample)


def test_parse_submission_mixed_formats(sample: Release) -> None:
    text = "question_id,model,label,resp_1\nS-C01,qwen3:4b,Falsch,x\n"
    with pytest.raises(InputError, match="mixes per-question columns"):
        parse_submission(text.encode(), "j.csv", sample)


def test_parse_submission_labels_without_answers(sample: Release) -> None:
    with pytest.raises(InputError, match="labels for model answers"):
        parse_submission(b"question_id,label\nS-C01,Richtig\n", "l.csv", sample)


def test_parse_submission_malformed_jsonl(sample: Release) -> None:
    text = '{"question_id": "S-C01", "answer": "Femur"}\n{"question_id": "S-C02", \n'
    with pytest.raises(InputError, match=r"line 2: malformed JSON"):
        parse_submission(text.encode(), "a.jsonl", sample)


def test_parse_submission_json_array(sample: Release) -> None:
    with pytest.raises(InputError, match="JSON array, not JSON Lines"):
        parse_submission(b'[{"question_id": "S-C01", "answer": "x"}]', "a.json", sample)


def test_parse_submission_spreadsheet_workbook(sample: Release) -> None:
    with pytest.raises(InputError, match="spreadsheet workbook"):
        parse_submission(b"PK\x03\x04rest", "a.xlsx", sample)


def test_parse_submission_broken_parquet(sample: Release) -> None:
    with pytest.raises(InputError, match="Parquet"):
        parse_submission(b"PAR1 not really", "a.parquet", sample)


def test_parse_submission_meta_header_errors(sample: Release) -> None:
    row = {"question_id": "S-C01", "answer": "Femur"}
    for meta, expected in (
        ({"verified": True}, "it is set by the project"),
        ({"nmae": "x"}, "unknown metadata key"),
        ({"link": "javascript:alert(1)"}, r"not an http\(s\) link"),
        ({"prompt": "mine"}, "unknown prompt kind"),
    ):
        with pytest.raises(InputError, match=expected):
            parse_submission(jsonl([row], meta).encode(), "a.jsonl", sample)


def test_parse_submission_meta_line_not_first(sample: Release) -> None:
    text = jsonl([{"question_id": "S-C01", "answer": "Femur"}, {"meta": {"name": "x"}}])
    with pytest.raises(InputError, match="only allowed as the first line"):
        parse_submission(text.encode(), "a.jsonl", sample)


def test_parse_submission_lists_every_problem(sample: Release) -> None:
    text = HEADER + "X1,qwen3:4b,Falsch\nS-C01,nobody,Falsch\nS-C02,qwen3:4b,??\n"
    with pytest.raises(InputError) as exc:
        parse_submission(text.encode(), "j.csv", sample)
    lines = sorted(p.row for p in exc.value.problems if p.row is not None)
    assert lines == [2, 3, 4]


def test_parse_submission_ragged_csv(sample: Release) -> None:
    text = HEADER + "S-C01,qwen3:4b,Falsch,extra\n"
    with pytest.raises(InputError, match="line 2: 4 fields, but the header has 3"):
        parse_submission(text.encode(), "j.csv", sample)


def test_parse_submission_duplicate_answers_differ(sample: Release) -> None:
    text = "question_id,answer\nS-C01,Femur\nS-C01,Tibia\n"
    with pytest.raises(InputError, match="answered twice"):
        parse_submission(text.encode(), "a.csv", sample)


# --- labels for answers, validate-only ---------------------------------------------------------


def test_attach_labels_checks_rows(sample: Release) -> None:
    sub = parse_submission(b"question_id,answer\nS-C01,Femur\nS-C02,ACC\n", "a.csv", sample)
    good = attach_labels(sub, b"question_id,label\nS-C01,Richtig\n", "l.csv", sample)
    assert good.answer_labels is not None and good.answer_labels[0] == vocab.RICHTIG_CODE
    assert good.answer_labels_hash
    for text, expected in (
        ("question_id,label\nS-E01,Richtig\n", "no answer for this question"),
        ("question_id,label,answer\nS-C01,Richtig,Tibia\n", "different answer"),
        ("question_id,label\nS-C01,jein\n", "invalid label"),
        ("question_id,label\nS-C01,Richtig\nS-C01,Falsch\n", "labelled twice"),
        ("question_id,verdict\nS-C01,Richtig\n", "missing required column"),
    ):
        with pytest.raises(InputError, match=expected):
            attach_labels(sub, text.encode(), "l.csv", sample)


def test_attach_labels_header_describes_the_judge(sample: Release) -> None:
    sub = parse_submission(b"question_id,answer\nS-C01,Femur\n", "a.csv", sample)
    text = jsonl(
        [{"question_id": "S-C01", "label": "Richtig"}],
        {"name": "Judge", "model_id": "gpt-5.4-mini", "family": "gpt"},
    )
    out = attach_labels(sub, text.encode(), "l.jsonl", sample)
    assert out.meta["judge"] == {"name": "Judge", "model_id": "gpt-5.4-mini", "family": "GPT"}


def test_attach_labels_only_for_answers(sample: Release) -> None:
    sub = parse_submission(rows_csv(sample).encode(), "j.csv", sample)
    with pytest.raises(ValueError, match="model-answer submission"):
        attach_labels(sub, b"question_id,label\nS-C01,Richtig\n", "l.csv", sample)


def test_validate_only_reports_without_raising(sample: Release) -> None:
    ok = validate_only(answers_csv(sample, ["x"] * 6).encode(), "a.csv", sample)
    assert ok["ok"] and ok["kind"] == "answers" and ok["scope"] == "full"
    bad = validate_only(b"question_id;answer\n", "a.csv", sample)
    assert not bad["ok"] and "use commas" in bad["problems"][0]


def test_submission_arrays_follow_release_order(sample: Release) -> None:
    text = HEADER + "S-E04,qwen3:4b,Richtig\nS-C01,gemini-2.5-flash,Falsch\n"
    sub = parse_submission(text.encode(), "j.csv", sample)
    assert sub.labels is not None
    expected = np.full((6, 5), -1)
    expected[5, 4], expected[0, 0] = 1, 0
    assert (sub.labels == expected).all()
