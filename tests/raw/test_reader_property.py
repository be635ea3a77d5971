"""Property test of the build over generated raw releases (issue 11).

Each example starts from ``data/sample``, writes ``questions`` as CSV, JSON Lines or Parquet
with random extra columns (random names, reserved names among them, and random cell types),
and redraws every physician label. The build must then either refuse the release with
:class:`~medqade.files.problems.InputError` (and write nothing), or publish:

- a consensus per answer equal to the majority of the non-abstaining votes in the published
  ``ratings`` config (a tie or no such vote: no consensus), in ``answers`` and in the nested
  ``questions`` config alike (the rule of the methods digest, section 3, recomputed here with a
  plain loop);
- the sample's questions, reference answers and student answers unchanged, and exactly the
  generated extra columns.
"""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from medqade import vocab
from medqade.dataset.build import build
from medqade.files.problems import InputError
from medqade.schema import published_columns

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
QUESTIONS = pd.read_csv(SAMPLE / "questions.csv", dtype=str, keep_default_na=False)
ANSWERS = pd.read_csv(SAMPLE / "answers.csv", dtype=str, keep_default_na=False)
N = len(QUESTIONS)

NAMES = st.one_of(
    st.sampled_from(["_line", "_order", "_q", "_m", "note", " note", "Größe", "1"]),
    st.sampled_from(sorted(published_columns())),
    st.sampled_from(["specialty", "", "a\x00b"]),
    st.text(min_size=0, max_size=6),
)
TEXT = st.one_of(
    st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=12),
    st.text(max_size=12),  # any code point: NUL, lone surrogates and umlauts included
)
SCALARS: dict[str, st.SearchStrategy[Any]] = {
    "text": TEXT,
    "int": st.integers(-(2**40), 2**40),
    "float": st.floats(allow_nan=True, allow_infinity=False),
    "bool": st.booleans(),
    "list": st.lists(TEXT, max_size=3),
    "object": st.fixed_dictionaries({"k": TEXT}),
}
LABELS = (vocab.RICHTIG, vocab.FALSCH, vocab.KEINE_ANGABE, "richtig", " falsch ")


@st.composite
def extra_columns(draw: st.DrawFn) -> list[tuple[str, str, list[Any]]]:
    """(name, cell kind, cells) for 0-3 extra columns; a cell may be None (missing)."""
    out = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(sorted(SCALARS)))
        cells = draw(st.lists(st.one_of(st.none(), SCALARS[kind]), min_size=N, max_size=N))
        out.append((draw(NAMES), kind, cells))
    return out


def _csv_cell(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else json.dumps(value)


def _write_csv(raw: Path, frame: pd.DataFrame, extras: list[tuple[str, str, list[Any]]]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*frame.columns, *(name for name, _, _ in extras)])
    for i, row in enumerate(frame.itertuples(index=False)):
        writer.writerow([*row, *(_csv_cell(cells[i]) for _, _, cells in extras)])
    # lone surrogates cannot be UTF-8: they reach the file as invalid bytes (a problem)
    (raw / "questions.csv").write_bytes(buffer.getvalue().encode("utf-8", "surrogatepass"))


def _write_jsonl(raw: Path, frame: pd.DataFrame, extras: list[tuple[str, str, list[Any]]]) -> None:
    lines = []
    for i, rec in enumerate(frame.to_dict("records")):
        pairs = [*rec.items(), *((name, cells[i]) for name, _, cells in extras)]
        lines.append("{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}")
    (raw / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_parquet(
    raw: Path, frame: pd.DataFrame, extras: list[tuple[str, str, list[Any]]]
) -> None:
    names = list(frame.columns)
    arrays = [pa.array(frame[c].tolist(), type=pa.string()) for c in names]
    for name, _, cells in extras:
        try:
            arrays.append(pa.array(cells))
        except (pa.ArrowException, UnicodeEncodeError):  # e.g. a lone surrogate
            arrays.append(pa.array([None if c is None else repr(c) for c in cells]))
        names.append(name)
    pq.write_table(pa.Table.from_arrays(arrays, names=names), raw / "questions.parquet")


def _rows(out: Path, config: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for split in vocab.SPLITS:
        path = out / "data" / config / f"{split}-00000-of-00001.parquet"
        rows += pq.read_table(path).to_pylist()
    return rows


def _majority(ratings: list[dict[str, Any]]) -> dict[str, str | None]:
    votes: dict[str, Counter[str]] = {}
    for r in ratings:
        votes.setdefault(r["answer_id"], Counter())[r["label"]] += 1
    out: dict[str, str | None] = {}
    for slot, c in votes.items():
        yes, no = c[vocab.RICHTIG], c[vocab.FALSCH]
        out[slot] = vocab.RICHTIG if yes > no else vocab.FALSCH if no > yes else None
    return out


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    fmt=st.sampled_from(["csv", "jsonl", "parquet"]),
    extras=extra_columns(),
    seed=st.integers(0, 2**32 - 1),
)
def test_build_refuses_or_publishes_the_majority_of_its_votes(
    fmt: str, extras: list[tuple[str, str, list[Any]]], seed: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw"
        shutil.copytree(SAMPLE, raw)
        rng = random.Random(seed)
        ratings = pd.read_csv(raw / "ratings.csv", dtype=str, keep_default_na=False)
        ratings["label"] = [rng.choice(LABELS) for _ in range(len(ratings))]
        ratings.to_csv(raw / "ratings.csv", index=False)
        (raw / "questions.csv").unlink()
        {"csv": _write_csv, "jsonl": _write_jsonl, "parquet": _write_parquet}[fmt](
            raw, QUESTIONS, extras
        )
        out = Path(tmp) / "out"
        try:
            build(raw, out)
        except InputError:
            assert not out.exists()
            event("refused")
            return
        event(f"built ({fmt})")
        published = _rows(out, "ratings")
        assert len(published) == len(ratings)
        majority = _majority(published)
        answers = _rows(out, "answers")
        assert {a["answer_id"]: a["consensus"] for a in answers} == majority
        nested = _rows(out, "questions")
        assert {s["answer_id"]: s["consensus"] for q in nested for s in q["answers"]} == majority
        for a in answers:
            c = Counter(r["label"] for r in published if r["answer_id"] == a["answer_id"])
            assert (a["votes_richtig"], a["votes_falsch"]) == (c[vocab.RICHTIG], c[vocab.FALSCH])
        by_id = {q["question_id"]: q for q in nested}
        for q in QUESTIONS.to_dict("records"):
            got = by_id[q["question_id"]]
            assert (got["question"], got["reference_answer"]) == (
                q["question"],
                q["reference_answer"],
            )
        assert sorted((a["question_id"], a["model"], a["answer"]) for a in answers) == sorted(
            ANSWERS.itertuples(index=False, name=None)
        )
        fixed = set(
            pq.read_schema(out / "data" / "questions" / "core-00000-of-00001.parquet").names
        )
        sample_extras = {"specialty"}
        generated = {name.strip() for name, _, _ in extras}
        extra_names = fixed - set(published_columns()) - {"specialty"}
        assert extra_names == generated - sample_extras
        meta = json.loads((out / "release.json").read_text(encoding="utf-8"))
        assert set(meta["extra_columns"]) == generated | sample_extras
