"""Property-based fuzzing of the submission parser: a valid submission or a clean InputError,
never another exception, whatever the bytes."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring import Submission, parse_submission, validate_only

from .helpers import parquet_bytes

NAMES = ("s.csv", "s.jsonl", "s.parquet", "s.json", "s.txt", "s", "s.xlsx")
COLUMNS = (
    "question_id", "model", "label", "answer", "difficulty", "order", "resp_1", "resp_2",
    "resp_3", "resp_4", "resp_5", "answer_id", "evaluator", "Question ID", "extra", "run",
    "position",
)  # fmt: skip
CELLS = (
    "S-C01", "S-E04", "MQ-C0001", "qwen3:4b", "Gemma 3 4B", "gpt-4o", "Richtig", "falsch",
    "Keine Angabe", "true", "0", "", " ", "=HYPERLINK(\"x\")", "Röhrenknochen", "ß",
    '["qwen3:4b","gemma3:4b","gemma3:27b","gpt-5-nano","gemini-2.5-flash"]', "a|b", ";", "\"",
)  # fmt: skip
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(data: bytes, name: str, release: Release, kind: str | None = None) -> None:
    try:
        sub = parse_submission(data, name, release, kind)
    except InputError as exc:
        assert exc.problems, "an InputError must name at least one problem"
        assert all(str(p) for p in exc.problems)
        assert not any(" object at 0x" in str(p) for p in exc.problems), exc  # no Python repr
        return
    assert isinstance(sub, Submission)
    assert sub.kind in ("judge", "answers")
    report = validate_only(data, name, release, kind)
    assert report["ok"]


cell = st.one_of(st.sampled_from(CELLS), st.text(max_size=12))


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    columns = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=5))
    rows = draw(st.lists(st.lists(cell, min_size=0, max_size=6), max_size=8))
    delimiter = draw(st.sampled_from([",", ",", ",", ";", "\t"]))
    buf = io.StringIO()
    writer = csv.writer(
        buf, delimiter=delimiter, lineterminator=draw(st.sampled_from(["\n", "\r\n"]))
    )
    writer.writerow(columns)
    for row in rows:
        writer.writerow(row)
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "latin-1", "utf-16"]))
    return buf.getvalue().encode(encoding, errors="replace")


json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), cell),
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(cell, children, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def jsonl_files(draw: st.DrawFn) -> bytes:
    records = draw(
        st.lists(
            st.dictionaries(st.sampled_from((*COLUMNS, "meta")), json_value, max_size=7), max_size=6
        )
    )
    lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) for r in records]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.text(max_size=20)))
    return "\n".join(lines).encode("utf-8", errors="replace")


@FUZZ
@given(data=st.binary(max_size=400), name=st.sampled_from(NAMES))
def test_parse_submission_random_bytes(sample: Release, data: bytes, name: str) -> None:
    check(data, name, sample)


@FUZZ
@given(data=csv_files(), kind=st.sampled_from([None, "judge", "answers"]))
def test_parse_submission_random_csv(sample: Release, data: bytes, kind: str | None) -> None:
    check(data, "s.csv", sample, kind)


@FUZZ
@given(data=jsonl_files())
def test_parse_submission_random_jsonl(sample: Release, data: bytes) -> None:
    check(data, "s.jsonl", sample)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(CELLS),
            st.sampled_from(CELLS),
            st.one_of(st.none(), st.booleans(), cell),
        ),
        min_size=1,
        max_size=6,
    ),
    columns=st.sampled_from([("question_id", "model", "label"), ("question_id", "answer", "x")]),
)
def test_parse_submission_random_parquet(
    sample: Release, rows: list[tuple[str, str, object]], columns: tuple[str, str, str]
) -> None:
    frame = pd.DataFrame(rows, columns=list(columns)).astype({columns[2]: object})
    try:
        data = parquet_bytes(frame)
    except (pa.ArrowException, TypeError, ValueError):  # pyarrow cannot write some mixes
        return
    check(data, "s.parquet", sample)
