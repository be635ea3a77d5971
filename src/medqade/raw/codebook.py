"""The codebook of discrepancy patterns a reviewer tags a disputed answer with.

A codebook is a JSON file of code groups; the default (:data:`DEFAULT_CODEBOOK`, German) ships
with the package, and data owners pass their own with ``--codebook``::

    {"name": "...", "version": "1", "groups": [
      {"id": "bezug", "title": "...", "exclusive": true, "required": true,
       "codes": [{"id": "treffend", "label": "...", "description": "..."}, ...]}, ...]}

An *exclusive* group allows at most one of its codes per review (``required``: exactly one);
codes of a non-exclusive group combine freely. Code ids are unique across the whole codebook,
so a review stores only the ids (``codes``), never the group.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from medqade.files.problems import InputError, Problem

DEFAULT_NAME = "codebook_de.json"
RESERVED_GROUP_IDS = ("question", "reference_answer", "answer", "disagreement", "note")
"""Names of the review labeling config's other tags
(:func:`medqade.labelstudio.review_queue.labeling_config`):
a group (one ``Choices`` tag named by its id) may not share one."""
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Code:
    id: str
    label: str
    description: str


@dataclass(frozen=True)
class CodeGroup:
    id: str
    title: str
    exclusive: bool
    required: bool
    codes: tuple[Code, ...]


@dataclass(frozen=True)
class Codebook:
    """Code groups in file order (see the module docstring)."""

    name: str
    version: str
    groups: tuple[CodeGroup, ...]

    @property
    def code_ids(self) -> tuple[str, ...]:
        return tuple(c.id for g in self.groups for c in g.codes)

    def group_of(self, code: str) -> CodeGroup:
        for g in self.groups:
            if any(c.id == code for c in g.codes):
                return g
        raise KeyError(code)

    def label(self, code: str) -> str:
        for g in self.groups:
            for c in g.codes:
                if c.id == code:
                    return c.label
        raise KeyError(code)

    def problems_with(self, codes: Iterable[str]) -> list[tuple[str, str]]:
        """``(message, fix)`` for each way ``codes`` break the codebook (empty: valid)."""
        given = list(codes)
        out: list[tuple[str, str]] = []
        known = set(self.code_ids)
        unknown = [c for c in given if c not in known]
        for c in unknown:
            out.append(
                (f"unknown code {c!r}", f"use codes of the codebook {self.name}: {_shown(known)}")
            )
        repeated = sorted({c for c in given if given.count(c) > 1})
        if repeated:
            out.append((f"code(s) given twice: {', '.join(repeated)}", "give each code once"))
        for g in self.groups:
            mine = [c.id for c in g.codes if c.id in given]
            if g.exclusive and len(mine) > 1:
                out.append(
                    (
                        f"codes {', '.join(mine)} of the group {g.title!r} exclude each other",
                        "choose one of them",
                    )
                )
            if g.required and not mine:
                out.append(
                    (
                        f"no code of the group {g.title!r}",
                        f"add one of {', '.join(c.id for c in g.codes)}",
                    )
                )
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "groups": [
                {
                    "id": g.id,
                    "title": g.title,
                    "exclusive": g.exclusive,
                    "required": g.required,
                    "codes": [
                        {"id": c.id, "label": c.label, "description": c.description}
                        for c in g.codes
                    ],
                }
                for g in self.groups
            ],
        }


def _shown(ids: Iterable[str]) -> str:
    ordered = sorted(ids)
    return ", ".join(ordered[:16]) + (", ..." if len(ordered) > 16 else "")


def _text(obj: Mapping[str, Any], key: str, where: str, problems: list[str]) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}: {key!r} must be non-empty text")
        return ""
    return value.strip()


def parse_codebook(data: object, name: str) -> Codebook:
    """A :class:`Codebook` from its JSON form, or :class:`InputError` naming each fault."""
    problems: list[str] = []
    if not isinstance(data, Mapping):
        raise InputError(name, [Problem(name, None, "expected a JSON object with 'groups'")])
    groups_in = data.get("groups")
    if not isinstance(groups_in, list) or not groups_in:
        problems.append("'groups' must be a non-empty list of code groups")
        groups_in = []
    seen: set[str] = set()
    group_ids: set[str] = set()
    groups = []
    for gi, g in enumerate(groups_in):
        where = f"groups[{gi}]"
        if not isinstance(g, Mapping):
            problems.append(f"{where}: expected an object with id, title, exclusive and codes")
            continue
        gid = _text(g, "id", where, problems)
        if gid in RESERVED_GROUP_IDS:
            problems.append(
                f"{where}: the group id {gid!r} is reserved (the review labeling config has a tag "
                f"of that name; reserved: {', '.join(RESERVED_GROUP_IDS)}): rename the group"
            )
        elif gid and gid in group_ids:
            problems.append(f"{where}: group id {gid!r} is used twice: give each group its own id")
        group_ids.add(gid)
        title = _text(g, "title", where, problems)
        flags = {}
        for flag in ("exclusive", "required"):
            value = g.get(flag, False)
            if not isinstance(value, bool):
                problems.append(f"{where}: {flag!r} must be true or false, got {value!r}")
            flags[flag] = bool(value)
        if flags["required"] and not flags["exclusive"]:
            problems.append(f"{where}: only an exclusive group can be required")
        codes_in = g.get("codes")
        if not isinstance(codes_in, list) or not codes_in:
            problems.append(f"{where}: 'codes' must be a non-empty list")
            codes_in = []
        codes = []
        for ci, c in enumerate(codes_in):
            cwhere = f"{where}.codes[{ci}]"
            if not isinstance(c, Mapping):
                problems.append(f"{cwhere}: expected an object with id, label and description")
                continue
            cid = _text(c, "id", cwhere, problems)
            if cid and not _ID.match(cid):
                problems.append(
                    f"{cwhere}: code id {cid!r} must be lower-case letters, digits and _ "
                    "(starting with a letter)"
                )
            if cid in seen:
                problems.append(f"{cwhere}: code id {cid!r} is used twice")
            seen.add(cid)
            codes.append(
                Code(
                    cid, _text(c, "label", cwhere, problems), str(c.get("description", "")).strip()
                )
            )
        groups.append(CodeGroup(gid, title, flags["exclusive"], flags["required"], tuple(codes)))
    if problems:
        raise InputError(
            f"codebook {name}",
            [
                Problem(name, None, p, fix="see the codebook format in docs/panel.md")
                for p in problems
            ],
        )
    return Codebook(str(data.get("name", name)), str(data.get("version", "")), tuple(groups))


def load_codebook(path: Path | None = None) -> Codebook:
    """The codebook in ``path`` (a JSON file), or the package's German default."""
    if path is None:
        text = files("medqade").joinpath(f"data/{DEFAULT_NAME}").read_text(encoding="utf-8")
        return parse_codebook(json.loads(text), DEFAULT_NAME)
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(
            str(path), [Problem(path.name, None, f"cannot read the codebook ({exc.strerror})")]
        ) from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(
            path.name, [Problem(path.name, None, "not UTF-8 text", fix="save it as UTF-8")]
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            path.name,
            [Problem(path.name, exc.lineno, f"malformed JSON ({exc.msg})", fix="fix the JSON")],
        ) from None
    return parse_codebook(data, path.name)


DEFAULT_CODEBOOK = load_codebook()
"""The package's German codebook (``data/codebook_de.json``)."""
