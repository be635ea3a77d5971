"""The ``rerating`` round and the ``rated_at`` column of the raw ratings table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from medqade import vocab
from medqade.files.problems import InputError
from medqade.raw.reader import load_raw_release

CopySample = Callable[[], Path]


def _add(raw: Path, rows: list[dict[str, str]], dated: dict[int, str] | None = None) -> Path:
    """Append ``rows`` to the sample's ratings (with a ``rated_at`` column); ``dated`` sets
    ``rated_at`` of existing rows by 0-based index."""
    path = raw / "ratings.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame["rated_at"] = ""
    for i, when in (dated or {}).items():
        frame.loc[i, "rated_at"] = when
    frame = pd.concat([frame, pd.DataFrame(rows)], ignore_index=True).fillna("")
    frame.to_csv(path, index=False, lineterminator="\n")
    return path


def _first(raw: Path) -> dict[str, str]:
    row = pd.read_csv(raw / "ratings.csv", dtype=str, keep_default_na=False).iloc[0]
    return {k: str(row[k]) for k in ("question_id", "rater", "model", "label")}


def _error(raw: Path) -> str:
    with pytest.raises(InputError) as info:
        load_raw_release(raw)
    return str(info.value)


def test_rerating_round_is_accepted_and_kept(copy_sample: CopySample) -> None:
    raw = copy_sample()
    again = {**_first(raw), "round": vocab.RERATING, "rated_at": "2025-08-01"}
    _add(raw, [again])
    release = load_raw_release(raw)
    rows = release.ratings[release.ratings["round"] == vocab.RERATING]
    assert rows[["question_id", "rater", "model", "rated_at"]].values.tolist() == [
        [again["question_id"], again["rater"], again["model"], "2025-08-01"]
    ]


def test_rerating_without_a_first_rating_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    first = _first(raw)
    other = "P10" if first["rater"] != "P10" else "P01"
    lone = {**first, "question_id": "S-E01", "rater": other, "round": vocab.RERATING}
    path = _add(raw, [lone])
    n = len(path.read_text(encoding="utf-8").splitlines())
    text = _error(raw)
    assert f"ratings.csv, line {n}, column 'round'" in text
    assert f"a re-rating of S-E01/{first['model']} by {other}, who has no first rating" in text


def test_two_reratings_of_one_answer_are_a_duplicate(copy_sample: CopySample) -> None:
    raw = copy_sample()
    again = {**_first(raw), "round": vocab.RERATING}
    path = _add(raw, [again, again])
    n = len(path.read_text(encoding="utf-8").splitlines())
    text = _error(raw)
    assert f"ratings.csv, line {n}, column 'question_id/model/rater': duplicate re-rating" in text


def test_rated_at_that_is_not_a_date_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    path = _add(raw, [{**_first(raw), "round": vocab.RERATING, "rated_at": "nächste Woche"}])
    n = len(path.read_text(encoding="utf-8").splitlines())
    text = _error(raw)
    assert f"ratings.csv, line {n}, column 'rated_at': rated_at is not a date" in text
    assert "(value 'nächste Woche')" in text and "ISO 8601" in text


def test_rerating_before_the_first_rating_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    again = {**_first(raw), "round": vocab.RERATING, "rated_at": "2025-01-01"}
    _add(raw, [again], dated={0: "2025-03-01T10:00:00Z"})
    text = _error(raw)
    assert "the re-rating is not later than the rater's first rating" in text
    assert "(value '2025-01-01')" in text


def test_rerating_does_not_count_toward_core_completeness(copy_sample: CopySample) -> None:
    raw = copy_sample()
    first = _first(raw)
    frame = pd.read_csv(raw / "ratings.csv", dtype=str, keep_default_na=False)
    same = (frame["question_id"] == first["question_id"]) & (frame["model"] == first["model"])
    victim = frame[same & (frame["rater"] != first["rater"])].iloc[0]
    frame = frame.drop(index=victim.name)
    frame.to_csv(raw / "ratings.csv", index=False, lineterminator="\n")
    _add(raw, [{**first, "round": vocab.RERATING}])
    release = load_raw_release(raw)
    short = [w for w in release.warnings if "physician ratings" in w.message]
    assert any(f"{first['question_id']}/{first['model']} has 9 of 10" in w.message for w in short)


@pytest.mark.parametrize("value", ["today", "now"])
def test_rated_at_today_or_now_is_a_problem(copy_sample: CopySample, value: str) -> None:
    raw = copy_sample()
    path = _add(raw, [{**_first(raw), "round": vocab.RERATING, "rated_at": value}])
    n = len(path.read_text(encoding="utf-8").splitlines())
    text = _error(raw)
    assert f"ratings.csv, line {n}, column 'rated_at': rated_at is not a date" in text
    assert f"(value {value.strip()!r})" in text


@pytest.mark.parametrize(
    ("value", "published"),
    [
        ("2025-W14-2", "2025-04-01"),  # the week date of issue 38, refused as "not ISO 8601"
        ("2025W142", "2025-04-01"),
        ("2025-092", "2025-04-02"),  # ordinal: the 92nd day
        ("2025092", "2025-04-02"),
        ("20250402", "2025-04-02"),
        ("2025-W14-3T14:30:00+02:00", "2025-04-02T14:30:00+02:00"),
        ("20250402T143000Z", "2025-04-02T14:30:00+00:00"),
        ("2025-04-02T14:30:00Z", "2025-04-02T14:30:00Z"),  # extended calendar: kept as written
    ],
)
def test_rated_at_in_every_iso_8601_date_form_is_accepted_as_its_calendar_date(
    copy_sample: CopySample, value: str, published: str
) -> None:
    """ISO 8601 week and ordinal dates and the basic format are dates too; the release
    publishes each as the extended calendar date (or date-time) it names."""
    raw = copy_sample()
    _add(raw, [{**_first(raw), "round": vocab.RERATING, "rated_at": value}])
    release = load_raw_release(raw)
    rows = release.ratings[release.ratings["round"] == vocab.RERATING]
    assert rows["rated_at"].tolist() == [published]


def test_a_week_date_before_the_first_rating_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    again = {**_first(raw), "round": vocab.RERATING, "rated_at": "2025-W09-6"}  # 2025-03-01
    _add(raw, [again], dated={0: "2025-03-01T10:00:00Z"})
    text = _error(raw)
    assert "the re-rating is not later than the rater's first rating" in text
    assert "(value '2025-W09-6')" in text  # as the file has it


@pytest.mark.parametrize("value", ["2025-W14", "2025-04", "2025-W14-8", "2025-366", "1.4.2025"])
def test_a_rated_at_that_is_no_day_lists_the_accepted_forms(
    copy_sample: CopySample, value: str
) -> None:
    raw = copy_sample()
    path = _add(raw, [{**_first(raw), "round": vocab.RERATING, "rated_at": value}])
    n = len(path.read_text(encoding="utf-8").splitlines())
    text = _error(raw)
    assert f"ratings.csv, line {n}, column 'rated_at': rated_at is not a date" in text
    assert f"(value {value!r})" in text
    assert "calendar 2025-04-02 (or 20250402), week 2025-W14-3 (or 2025W143) or ordinal" in text
