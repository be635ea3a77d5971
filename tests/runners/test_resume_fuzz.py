"""Property-based fuzzing of the resume readers: whatever bytes an earlier output holds under a
marker that vouches for them (a forged or hand-edited one), ``earlier_judgments`` and
``earlier_answers`` return the rows to keep or raise a clean InputError naming the file and
a line, never another exception (issue 38: a JSON list ended in AttributeError)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from medqade.files import atomic, file_output
from medqade.files.problems import InputError
from medqade.runners.judge import JUDGE_OUTPUT, JudgeItem, earlier_judgments
from medqade.runners.student import ANSWER_OUTPUT, earlier_answers

SETTINGS = {"model": "m", "seed": 1}
ORDER = ["a", "b", "c", "d", "e"]
ITEMS = [JudgeItem("S-C01", "q", "r", tuple(ORDER), ("x",) * 5)]
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(["S-C01", "richtig", "falsch", "Keine Angabe", "einfach", "a"]),
)
value = st.recursive(scalar, lambda inner: st.lists(inner, max_size=5), max_leaves=8)
keys = st.sampled_from(
    ["question_id", "order", "resp_1", "resp_2", "difficulty", "error", "answer", "x"]
)
obj = st.dictionaries(keys, st.one_of(value, st.just(ORDER)), max_size=6)
line = st.one_of(
    obj.map(json.dumps),
    value.map(json.dumps),
    st.text(max_size=20),
    st.sampled_from(["[1, 2]", "not json", "{", "null", '{"question_id": "S-C01"}']),
)
content = st.one_of(
    st.lists(line, max_size=5).map(lambda ls: "\n".join(ls).encode("utf-8")),
    st.binary(max_size=40),
)


def _forged(path: Path, kind: str, data: bytes) -> None:
    atomic.write_files(file_output.sidecar_planned(path, kind, data, settings=SETTINGS))


def _clean(exc: InputError, path: Path) -> None:
    assert exc.problems
    for problem in exc.problems:
        assert problem.file == str(path) and problem.row is not None and problem.fix
        assert "medqade.json" in problem.message


@FUZZ
@given(data=content)
def test_earlier_judgments_never_crash(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "j.jsonl"
    _forged(path, JUDGE_OUTPUT, data)
    try:
        kept = earlier_judgments(path, SETTINGS, ITEMS)
    except InputError as exc:
        _clean(exc, path)
        return
    assert set(kept) <= {"S-C01"}


@FUZZ
@given(data=content, suffix=st.sampled_from([".jsonl", ".csv", ".csv"]))
def test_earlier_answers_never_crash(tmp_path: Path, data: bytes, suffix: str) -> None:
    path = tmp_path / f"a{suffix}"
    if suffix == ".csv":
        data = b"question_id,answer\n" + data  # the header the command writes, then anything
    _forged(path, ANSWER_OUTPUT, data)
    try:
        kept = earlier_answers(path, SETTINGS)
    except InputError as exc:
        _clean(exc, path)
        return
    assert all(isinstance(k, str) and isinstance(v["answer"], str) for k, v in kept.items())
