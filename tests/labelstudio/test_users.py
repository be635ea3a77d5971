"""Tests of medqade.labelstudio.users: the rater and user maps, the shapes of completed_by, and
the lookup of an annotation's user."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.labelstudio.export import Where
from medqade.labelstudio.users import (
    ID_ONLY,
    Users,
    check_user_map,
    is_user,
    load_rater_map,
    user_keys,
)


def test_load_rater_map_unknown_physician(tmp_path: Path) -> None:
    path = tmp_path / "raters.json"
    path.write_text('{"3": "P01", "4": "Dr. Weber"}', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_rater_map(path)
    assert "raters.json: user 4 maps to an unknown physician (value 'Dr. Weber')" in str(info.value)


def test_load_rater_map_keys_equal_after_normalising(tmp_path: Path) -> None:
    path = tmp_path / "raters.json"
    path.write_text('{"3": "P01", " 3": "P02", "5": "P03"}', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_rater_map(path)
    text = str(info.value)
    assert text.startswith("raters.json: 1 problem found\n")
    assert 'the keys "3" and " 3" name the same user but map to P01 and P02' in text
    path.write_text('{"A@b.example": "P01", "a@b.example ": "P01"}', encoding="utf-8")
    assert load_rater_map(path) == {"a@b.example": "P01"}


def test_is_user_accepts_the_shapes_label_studio_writes() -> None:
    for shape in (3, "3", "a@b.example", {"id": 3, "email": "a@b.example"}, None):
        assert is_user(shape)
    for shape in (True, 3.0, [3], ("a",)):
        assert not is_user(shape)


def test_user_keys_are_the_id_and_the_email_normalised() -> None:
    assert user_keys({"id": 5, "email": " Dr.Weber@Klinik.example "}) == [
        "5",
        "dr.weber@klinik.example",
    ]
    assert user_keys(" 7 ") == ["7"]
    assert user_keys(None) == []
    assert user_keys({"id": None, "email": " "}) == []


def test_check_user_map_prefixes_the_user_and_collects_every_problem() -> None:
    def odd(value: object) -> Problem | None:
        return None if str(value).startswith("R") else Problem("m.json", None, "is not a reviewer")

    with pytest.raises(InputError) as info:
        check_user_map({"1": "R1", "2": "X", "3": "Y"}, "m.json", odd)
    assert [p.message for p in info.value.problems] == [
        "user 2 is not a reviewer",
        "user 3 is not a reviewer",
    ]
    assert check_user_map({" A@B.example": "R1"}, "m.json", odd) == {"a@b.example": "R1"}


def test_users_maps_by_id_or_email_and_counts_exclusions() -> None:
    log = ProblemLog()
    users = Users({"5": "P01", "b@c.example": "P02"}, exclude=["9"])
    at = Where(log, "e.json", 1, 10)
    assert users.rater(5, at) == "P01"
    assert users.rater({"id": 6, "email": "B@c.example"}, at) == "P02"
    assert users.is_excluded(9) and users.is_excluded({"id": "9"})
    assert not users.is_excluded(5)
    assert users.rater(42, at) is None and users.rater(42, at) is None
    users.report()
    (unknown,) = log.errors  # one problem per unknown user, not per annotation
    assert unknown.message == (
        "annotation 10: unknown Label Studio user (and 1 more annotation by this user)"
    )
    assert users.excluded_counts(log, "e.json") == (("9", 2),)


def test_users_an_email_exclusion_on_an_id_only_export_says_why() -> None:
    log = ProblemLog()
    users = Users({"5": "P01"}, exclude=["a@b.example"])
    users.rater(5, Where(log, "e.json", 1, 10))
    assert users.excluded_counts(log, "e.json") == (("a@b.example", 0),)
    (warning,) = log.warnings
    assert warning.fix == ID_ONLY
