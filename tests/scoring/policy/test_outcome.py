"""What a submission is answered before it is parsed: size and line refusals, the duplicate
key, a refusal's outcome and the headline of a scored record."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from medqade.files.problems import InputError, Problem
from medqade.scoring.intake.limits import Limits
from medqade.scoring.policy.outcome import (
    EVAL_LOG,
    PARQUET,
    Upload,
    duplicate_key,
    line_refusal,
    problems_message,
    refused,
    score_line,
    size_refusal,
)
from medqade.scoring.record.score_record import ScoreRecord

RECORDS = Path(__file__).resolve().parents[2] / "fixtures" / "records"


def test_size_refusal_at_the_limit_and_past_it() -> None:
    limits = Limits(max_bytes=10, max_log_bytes=20)
    assert size_refusal("x.csv", 10, limits) is None
    assert size_refusal("x.csv", 11, limits) == (
        "x.csv: the file has 11 bytes, more than the limit of 10 bytes; remove extra columns "
        "or save it as Parquet."
    )
    # an Inspect log has its own, larger limit
    assert size_refusal("run.eval", 20, limits, EVAL_LOG) is None
    refusal = size_refusal("run.eval", 21, limits, EVAL_LOG)
    assert refusal is not None and "Inspect log has 21 bytes" in refusal


@pytest.mark.parametrize(
    ("data", "lines"), [(b"h\na\nb\n", 3), (b"h\na\nb", 3), (b"h\na\nb\n\n", 4)]
)
def test_line_refusal_counts_lines_like_an_editor(data: bytes, lines: int) -> None:
    """A header and a trailing line beyond ``max_rows``; a final newline opens no line."""
    assert line_refusal(Upload(data, "f.csv", ".csv"), Limits(max_rows=lines - 2)) is None
    refusal = line_refusal(Upload(data, "f.csv", ".csv"), Limits(max_rows=lines - 3))
    assert refusal == (
        f"f.csv: the file has {lines:,} lines, more than the limit of {lines - 3:,} rows; "
        "submit one judge or one model per file."
    )


def test_line_refusal_skips_binary_files() -> None:
    many = b"\n" * 100
    for suffix in (PARQUET, EVAL_LOG):
        assert line_refusal(Upload(many, "f", suffix), Limits(max_rows=1)) is None


def test_duplicate_key_joins_both_hashes() -> None:
    alone: Any = SimpleNamespace(content_hash="abc", answer_labels_hash=None)
    both: Any = SimpleNamespace(content_hash="abc", answer_labels_hash="def")
    assert duplicate_key(alone) == "abc" and duplicate_key(both) == "abc+def"


def test_refused_keeps_the_problems_of_an_input_error() -> None:
    problems = [Problem("f.csv", 2, "bad label"), Problem("f.csv", 3, "bad label")]
    exc = InputError("f.csv", problems)
    out = refused("ignored", exc)
    assert not out.ok and out.problems == tuple(problems) and out.error is exc
    assert (
        out.message == problems_message(exc) == ("2 problems found in f.csv; nothing was scored.")
    )
    one = problems_message(InputError("g.csv", problems[:1]))
    assert one == "1 problem found in g.csv; nothing was scored."
    plain = refused("no file")
    assert not plain.ok and plain.message == "no file" and isinstance(plain.error, ValueError)
    assert str(plain.error) == "no file" and plain.problems == ()


def test_score_line_of_the_stored_records() -> None:
    """The headline as a dry run says it, read from the fixture records' own numbers."""
    for path in sorted(RECORDS.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        line = score_line(ScoreRecord.from_json(raw))
        if raw["kind"] == "judge":
            kappa, (low, high) = raw["core"]["kappa"], raw["core"]["kappa_ci"]
            assert line == (
                f"core kappa {kappa:.3f} (95% CI {low:.3f} - {high:.3f}), "
                f"verdict {raw.get('verdict') or 'n/a'}"
            )
        else:
            assert line.startswith("accuracy ") and "95% CI" in line
