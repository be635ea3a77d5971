"""Display names and model ids that would pass for another row of the board.

A submission's ``name`` or ``model_id`` is refused when it reads as a row it is not: equal,
after :func:`fold`, to a reference row's name or id (the paper evaluators, the students, the
baselines; :func:`reference_names`), to a label of the physicians' rows (:data:`PHYSICIAN_NAMES`
and the roster's physicians), or to the name or model id of another account's verified row
(:func:`verified_names`). :func:`name_problems` says which row and what to do. The Space's
submit and ``medqade score --results`` / ``--validate-only`` all check through it
(:func:`medqade.scoring.policy.policy.check`, behind :func:`medqade.scoring.policy.policy.submit`).

:func:`fold` is what makes two spellings the same name: Unicode NFKC (fullwidth letters,
ligatures), invisible format characters removed (zero-width space and joiners, soft hyphen,
byte-order mark), a small map of Cyrillic and Greek letters that look Latin
(:data:`CONFUSABLE_UPPER`, :data:`CONFUSABLE_LOWER`), case folded, accents dropped, a few
Latin look-alikes joined (``0``/``o``, ``1``/``l``/``i``, ``rn``/``m``, ``vv``/``w``), and every
character that is not a letter or digit removed (spaces, punctuation, symbols). Only equal
folded forms count: ``Gemini 3 Flash (own prompt)`` is another name than ``Gemini 3 Flash``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from medqade.files.problems import Problem
from medqade.scoring.metrics import BASELINES
from medqade.scoring.record import ScoreRecord
from medqade.vocab import Roster

__all__ = [
    "CHECKED_KEYS",
    "PHYSICIAN_NAMES",
    "Taken",
    "fold",
    "name_problems",
    "reference_names",
    "verified_names",
]

CHECKED_KEYS: Final = ("name", "model_id")
"""The metadata fields a row is known by on the board."""
PHYSICIAN_NAMES: Final = (
    "Physicians",
    "Physician",
    "Physician ceiling",
    "Physicians ceiling",
    "Physicians (leave-one-out)",
    "Physicians (leave-one-out) — ceiling",
    "Physicians (leave-one-out, core)",
    "Physicians (median)",
    "Physician panel",
    "Physician consensus",
    "Physicians one by one",
    "Ärzte",
    "Ärztinnen und Ärzte",
)
"""Labels of the physicians' rows (the leaderboard's ceiling row, Compare's side, the
per-physician table and the paper's tables), refused as a submission's name or id."""

CONFUSABLE_UPPER: Final = {
    # Cyrillic capitals that look Latin
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y",
    "Ԛ": "Q", "Ԝ": "W", "Һ": "H", "Ӏ": "I",
    # Greek capitals that look Latin
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}  # fmt: skip
"""Capitals mapped before case folding (their small letters look otherwise: ``Η``/``η``)."""
CONFUSABLE_LOWER: Final = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "з": "3", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    "ү": "y", "ь": "b", "г": "r",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u",
    "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ζ": "z",
    # Latin look-alikes
    "ı": "i", "ɡ": "g", "ɑ": "a",
}  # fmt: skip
"""Small letters mapped after case folding."""
_UPPER: Final = str.maketrans(CONFUSABLE_UPPER)
_LOWER: Final = str.maketrans(CONFUSABLE_LOWER)
_LATIN: Final = str.maketrans({"0": "o", "1": "l", "i": "l"})
_JOINED: Final = (("rn", "m"), ("vv", "w"))


def fold(text: str) -> str:
    """The form two names share when one would pass for the other (module docstring)."""
    out = unicodedata.normalize("NFKC", text)
    out = "".join(ch for ch in out if unicodedata.category(ch) != "Cf")  # zero-width, BOM
    out = out.translate(_UPPER).casefold().translate(_LOWER)
    out = unicodedata.normalize("NFKD", out)
    out = "".join(ch for ch in out if ch.isalnum())  # accents, spaces, punctuation, symbols
    out = out.translate(_LATIN)
    for pair, one in _JOINED:
        out = out.replace(pair, one)
    return out


@dataclass(frozen=True)
class Taken:
    """A name or id a row of the board is known by: as shown, whose row it is, and whether
    that is a row of the physicians (no submission's own run can be named after it)."""

    shown: str
    what: str
    physicians: bool = False

    @property
    def folded(self) -> str:
        return fold(self.shown)


def reference_names(roster: Roster) -> tuple[Taken, ...]:
    """The names and ids of the reference rows: paper evaluators, students, baselines (also as
    Compare lists them), the physicians' row labels and the roster's physicians."""
    out: list[Taken] = []
    for m in roster.evaluators:
        what = f"the paper evaluator {m.name}"
        out += [Taken(m.name, what), Taken(m.id, what), Taken(f"{m.name} (paper)", what)]
    for m in roster.students:
        what = f"the student model {m.name}"
        out += [Taken(m.name, what), Taken(m.id, what)]
    for b in BASELINES:
        what = f"the baseline {b.name}"
        out += [Taken(b.name, what), Taken(b.id, what), Taken(f"{b.name} (baseline)", what)]
    out += [Taken(label, "the physicians' row", True) for label in PHYSICIAN_NAMES]
    out += [Taken(p, f"the panel's physician {p}", True) for p in roster.physicians]
    return tuple(out)


def verified_names(records: Iterable[ScoreRecord], own: Sequence[str]) -> tuple[Taken, ...]:
    """The names and model ids of the verified rows stored by accounts other than ``own``
    (the submitter's stored account forms)."""
    out: list[Taken] = []
    for rec in records:
        meta, space = rec.meta, rec.space
        if meta is None or not meta.verified or space is None or space.account in own:
            continue
        what = f"another account's verified row {meta.name or meta.model_id}"
        out += [Taken(str(v), what) for v in (meta.name, meta.model_id) if v]
    return tuple(out)


def name_problems(meta: Mapping[str, Any], taken: Iterable[Taken], file: str) -> list[Problem]:
    """Why ``meta``'s ``name`` or ``model_id`` would pass for a row in ``taken`` (or has no
    letter or digit at all), one problem per field; empty when both may stand."""
    index: dict[str, Taken] = {}
    for t in taken:
        index.setdefault(t.folded, t)
    problems: list[Problem] = []
    for key in CHECKED_KEYS:
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        label = "display name" if key == "name" else "model id"
        folded = fold(value)
        # look-alike and invisible characters named by their code points ('Fl\u0430sh')
        typed = "" if value.isascii() else f"; as typed: {value[:80]!a}"
        if not folded:
            problems.append(
                Problem(
                    file,
                    None,
                    f"the {label} has no letter or digit{typed}",
                    column=f"meta.{key}",
                    value=value[:80],
                    fix=f"give a {label} in letters and digits",
                )
            )
            continue
        hit = index.get(folded)
        if hit is None:
            continue
        if hit.physicians:
            fix = f"give your judge's or model's own {label}; the physicians' rows are the panel's"
        elif key == "name":
            fix = (
                "choose a name of your own run, e.g. with your organisation or prompt "
                f"('{hit.shown} (own prompt, ORG)'), so it cannot be taken for that row"
            )
        else:
            fix = (
                "give the id with its provider or revision (e.g. 'provider/model@2026-01'), "
                "so it cannot be taken for that row's"
            )
        same = "" if value == hit.shown else f" (it reads as {hit.shown!r}{typed})"
        problems.append(
            Problem(
                file,
                None,
                f"the {label} would pass for {hit.what}{same}",
                column=f"meta.{key}",
                value=value[:80],
                fix=fix,
            )
        )
    return problems
