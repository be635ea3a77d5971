"""Label Studio users: the rater and reviewer maps (user id or e-mail -> physician), the shapes
of ``completed_by``, and the lookup that maps each annotation's user to a physician."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from medqade import vocab
from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.files.tables import decode_utf8
from medqade.labelstudio.export import EXPORT_AS_JSON, Where, plural, refuse, shown_json

WHERE_USER_IDS = (
    "an export snapshot with user details (annotations__completed_by.only_id=false) shows each "
    "user's id beside the e-mail, and GET /api/users lists them (with an access token from "
    "/api/token/refresh; see docs/labelstudio.md)"
)


ID_ONLY = (
    "the Export button's JSON names users by integer id only: map the ids "
    f'({{"5": "P01"}}; {WHERE_USER_IDS}), or export a snapshot with user details '
    "(annotations__completed_by.only_id=false), whose users carry their e-mail"
)


def load_rater_map(path: Path, roster: vocab.Roster = vocab.DEFAULT_ROSTER) -> dict[str, str]:
    """Read the rater map (Label Studio user id or e-mail -> physician id) and check it."""
    path = Path(path)
    example = '{"5": "P01", "a@b.example": "P02"}'
    return check_rater_map(
        read_user_map(path, f"map user ids and/or e-mails to physician ids: {example}"),
        roster,
        path.name,
    )


def read_user_map(path: Path, fix: str) -> dict[object, object]:
    """The JSON object of a user map file (rater map, reviewer map); ``fix`` says what it holds."""
    path = Path(path)
    name = path.name
    text = decode_utf8(path.read_bytes(), name)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            name, [Problem(name, exc.lineno, f"malformed JSON ({exc.msg} at column {exc.colno})")]
        ) from None
    if not isinstance(data, dict):
        raise refuse(name, "expected a JSON object", fix)
    return data


def check_rater_map(
    data: Mapping[object, object],
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
    name: str = "rater map",
) -> dict[str, str]:
    """Normalise the keys (e-mails case-insensitive) and check every value is a physician."""

    def physician(value: object) -> Problem | None:
        if str(value) in roster.physicians:
            return None
        return Problem(
            name,
            None,
            "maps to an unknown physician",
            value=str(value),
            fix=f"use one of {', '.join(roster.physicians)}",
        )

    return check_user_map(data, name, physician)


def check_user_map(
    data: Mapping[object, object],
    name: str,
    check: Callable[[object], Problem | None],
) -> dict[str, str]:
    """Normalise a user map's keys (ids and e-mails, without surrounding spaces and case) and
    check each value with ``check`` (a problem, or ``None``: fine; its message is prefixed with
    ``user KEY``). Keys that name the same user but map to different values are a problem
    naming both keys; the rater and the reviewer map both go through here."""
    problems = []
    out: dict[str, str] = {}
    given: dict[str, object] = {}
    for key, value in data.items():
        normal = user_key(key)
        if normal in out and out[normal] != str(value):
            problems.append(
                Problem(
                    name,
                    None,
                    f"the keys {json.dumps(str(given[normal]))} and {json.dumps(str(key))} name "
                    f"the same user but map to {out[normal]} and {value}",
                    value=str(value),
                    fix="keep one key per user (keys are compared without surrounding spaces "
                    "and case)",
                )
            )
            continue
        problem = check(value)
        if problem is not None:
            problems.append(dataclasses.replace(problem, message=f"user {key!s} {problem.message}"))
            continue
        out[normal] = str(value)
        given.setdefault(normal, key)
    if problems:
        raise InputError(name, problems)
    return out


BAD_USER = (
    "completed_by must be a user id or a user object ({id, email, ...})",
    "completed_by",
)
"""Message and column for a ``completed_by`` of another type (a list, a number with a point)."""


def is_user(completed_by: object) -> bool:
    """Whether ``completed_by`` has a shape Label Studio writes: an integer id, a text id or
    e-mail, a user object, or nothing (a deleted user)."""
    if completed_by is None or isinstance(completed_by, (str, dict)):
        return True
    return isinstance(completed_by, int) and not isinstance(completed_by, bool)


def user_key(key: object) -> str:
    return str(key).strip().casefold()


def user_keys(completed_by: object) -> list[str]:
    """The keys a rater map or exclusion may name ``completed_by`` by (id, e-mail)."""
    if isinstance(completed_by, dict):
        raw = [completed_by.get("id"), completed_by.get("email")]
    else:
        raw = [completed_by]
    return [user_key(c) for c in raw if c is not None and str(c).strip()]


def shown_user(completed_by: object) -> object:
    if isinstance(completed_by, dict):
        return completed_by.get("email") or completed_by.get("id")
    return completed_by


class Users:
    """Maps ``completed_by`` to physicians; collects unknown users, one problem per user."""

    def __init__(self, rater_map: Mapping[str, str], exclude: Iterable[object]) -> None:
        self.rater_map = {user_key(k): v for k, v in rater_map.items()}
        self.exclude = {user_key(u): str(u).strip() for u in exclude}
        self.excluded: Counter[str] = Counter()
        self.unknown: dict[str, list[Where]] = {}
        self.by_id_only = False

    def is_excluded(self, completed_by: object) -> bool:
        for key in user_keys(completed_by):
            if key in self.exclude:
                self.excluded[key] += 1
                return True
        return False

    def rater(self, completed_by: object, where: Where) -> str | None:
        if not is_user(completed_by):
            where(*BAD_USER, shown_json(completed_by), EXPORT_AS_JSON)
            return None
        keys = user_keys(completed_by)
        if not keys:
            where(
                "the annotation has no user (completed_by is empty): Label Studio empties it "
                "when the user was deleted",
                "completed_by",
                json.dumps(completed_by),
                "restore the user in Label Studio, or delete the annotation and export again",
            )
            return None
        if not isinstance(completed_by, dict):
            self.by_id_only = True
        for key in keys:
            if key in self.rater_map:
                return self.rater_map[key]
        self.unknown.setdefault(str(shown_user(completed_by)), []).append(where)
        return None

    def report(self) -> None:
        """One problem per unknown user, at its first annotation, with the fitting hint."""
        email_keys = any("@" in k for k in (*self.rater_map, *self.exclude))
        for user, places in self.unknown.items():
            more = (
                f" (and {plural(len(places) - 1, 'more annotation')} by this user)"
                if len(places) > 1
                else ""
            )
            if user.isdigit() and email_keys:
                fix = f"the rater map or --exclude-user names e-mails, but {ID_ONLY}"
            elif user.isdigit():
                fix = f"add the user id to the rater map (--rater-map); {WHERE_USER_IDS}"
            else:
                fix = "add the user's id or e-mail to the rater map (--rater-map)"
            fix += f"; or leave the user's annotations out with --exclude-user {user}"
            places[0](f"unknown Label Studio user{more}", "completed_by", user, fix)

    def excluded_counts(self, log: ProblemLog, name: str) -> tuple[tuple[str, int], ...]:
        """Annotations left out per excluded user; a warning for each that matched none."""
        out = []
        for key, given in self.exclude.items():
            n = self.excluded.get(key, 0)
            out.append((given, n))
            if n == 0:
                hint = ID_ONLY if "@" in key and self.by_id_only else None
                log.warn(
                    Problem(
                        name,
                        None,
                        f"excluded user {given} made no annotation in this export",
                        "completed_by",
                        given,
                        hint,
                    )
                )
        return tuple(out)


__all__ = ["Users", "check_rater_map", "load_rater_map", "shown_user", "user_key"]
