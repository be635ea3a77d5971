"""The one vocabulary of MedQADE: labels, difficulty, tiers, splits and the roster.

Every other module, the dataset card, the Space and the runners import these names; no label
string is spelled anywhere else. Labels are stored as the German strings the physicians used;
English and boolean aliases are accepted on input only (:func:`parse_label`).

Integer codes (used by the array views and the statistics) follow the statistics convention:
``FALSCH = 0``, ``RICHTIG = 1`` (the two substantive categories), ``ABSTAIN = 2`` and
``MISSING = -1`` (no rating at all).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

# --- correctness labels ---------------------------------------------------------------------

RICHTIG: Final = "Richtig"
FALSCH: Final = "Falsch"
KEINE_ANGABE: Final = "Keine Angabe"
LABELS: Final = (RICHTIG, FALSCH, KEINE_ANGABE)
SUBSTANTIVE: Final = (RICHTIG, FALSCH)

FALSCH_CODE: Final = 0
RICHTIG_CODE: Final = 1
ABSTAIN_CODE: Final = 2
MISSING_CODE: Final = -1
PARTIAL_COVERAGE: Final = "partial_coverage"
"""The flag of a result that covers neither exactly the core nor every item: never ranked and
given no verdict (set by :mod:`medqade.scoring.metrics.records`; read by the Space, the Inspect
metrics and the Hub entry)."""
EMPTY_ANSWER: Final = "(keine Antwort)"
"""How a missing or empty student answer is shown to a judge (every judge prompt)."""
LABEL_CODES: Final[Mapping[str, int]] = {FALSCH: 0, RICHTIG: 1, KEINE_ANGABE: 2}
CODE_LABELS: Final[Mapping[int, str]] = {v: k for k, v in LABEL_CODES.items()}

_LABEL_ALIASES: Final[Mapping[str, str]] = {
    "richtig": RICHTIG,
    "korrekt": RICHTIG,
    "correct": RICHTIG,
    "true": RICHTIG,
    "yes": RICHTIG,
    "ja": RICHTIG,
    "1": RICHTIG,
    "falsch": FALSCH,
    "inkorrekt": FALSCH,
    "incorrect": FALSCH,
    "wrong": FALSCH,
    "false": FALSCH,
    "no": FALSCH,
    "nein": FALSCH,
    "0": FALSCH,
    "keine angabe": KEINE_ANGABE,
    "keineangabe": KEINE_ANGABE,
    "k.a.": KEINE_ANGABE,
    "abstain": KEINE_ANGABE,
    "abstention": KEINE_ANGABE,
    "abstained": KEINE_ANGABE,
    "no answer": KEINE_ANGABE,
    "unknown": KEINE_ANGABE,
}

# --- difficulty -------------------------------------------------------------------------------

EINFACH: Final = "Einfach"
MITTEL: Final = "Mittel"
SCHWER: Final = "Schwer"
DIFFICULTIES: Final = (EINFACH, MITTEL, SCHWER)
DIFFICULTY_SCORES: Final[Mapping[str, int]] = {EINFACH: 0, MITTEL: 1, SCHWER: 2}

_DIFFICULTY_ALIASES: Final[Mapping[str, str]] = {
    "einfach": EINFACH,
    "leicht": EINFACH,
    "easy": EINFACH,
    "0": EINFACH,
    "mittel": MITTEL,
    "medium": MITTEL,
    "moderate": MITTEL,
    "1": MITTEL,
    "schwer": SCHWER,
    "schwierig": SCHWER,
    "hard": SCHWER,
    "difficult": SCHWER,
    "2": SCHWER,
}

# --- tiers, splits, rounds ---------------------------------------------------------------------

TIER_EDGES: Final = (0.5, 1.0, 1.5)
"""Upper edges of tiers 1-3 on the mean difficulty score: T1 [0, 0.5], T2 (0.5, 1.0], ..."""
TIERS: Final = (1, 2, 3, 4)

CORE: Final = "core"
EXTENSION: Final = "extension"
SPLITS: Final = (CORE, EXTENSION)

PRIMARY: Final = "primary"
ADJUDICATION: Final = "adjudication"
RERATING: Final = "rerating"
"""The same physician rating an answer again after a washout (intra-rater reliability only:
never counted in consensus, difficulty or any agreement with the panel)."""
ROUNDS: Final = (PRIMARY, ADJUDICATION, RERATING)
CONSENSUS_ROUNDS: Final = (PRIMARY, ADJUDICATION)
"""The rounds whose ratings are the panel's votes."""

CANARY: Final = "MEDQADE-CANARY 4c7b2e91-58d3-4f0a-9d6e-2b1f8a7c3e50"
"""Benchmark canary: stored in every row and the card, so training corpora can be screened."""

N_SLOTS: Final = 5
"""Answers per question set (one per student model)."""


def _key(value: object) -> str:
    text = unicodedata.normalize("NFKC", str(value))
    return " ".join(text.replace("_", " ").split()).casefold()


def parse_label(value: object) -> str:
    """Return the canonical German label for ``value`` or raise ``ValueError``.

    Accepts the German labels, English ``correct/incorrect/abstain``, ``true/false`` (also as
    Python booleans), ``1/0`` and case and whitespace variants.
    """
    if isinstance(value, bool):
        return RICHTIG if value else FALSCH
    label = _LABEL_ALIASES.get(_key(value))
    if label is None:
        raise ValueError(
            f"unknown label {value!r}: use one of {', '.join(LABELS)} "
            "(or correct / incorrect / abstain)"
        )
    return label


def parse_difficulty(value: object) -> str:
    """Return the canonical German difficulty (``Einfach``/``Mittel``/``Schwer``)."""
    label = _DIFFICULTY_ALIASES.get(_key(value))
    if label is None:
        raise ValueError(
            f"unknown difficulty {value!r}: use one of {', '.join(DIFFICULTIES)} "
            "(or easy / medium / hard, 0 / 1 / 2)"
        )
    return label


def tier_of(mean_difficulty: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """Map mean difficulty scores (0-2) to tiers 1-4; NaN (no rating) maps to 0."""
    x = np.asarray(mean_difficulty, dtype=np.float64)
    tiers = np.searchsorted(np.asarray(TIER_EDGES), x, side="left").astype(np.int8) + 1
    return np.where(np.isnan(x), 0, tiers).astype(np.int8)


# --- roster --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    """A language model of the study: a student, an evaluator, or both."""

    id: str
    name: str
    family: str


@dataclass(frozen=True)
class Roster:
    """Who answered and who rated: students, evaluators, physicians and the adjudicator."""

    students: tuple[Model, ...]
    evaluators: tuple[Model, ...]
    physicians: tuple[str, ...]
    adjudicator: str
    ensemble_pool: tuple[str, ...] = ()
    synthetic: bool = False
    families: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if len(self.students) != N_SLOTS:
            raise ValueError(
                f"the roster needs exactly {N_SLOTS} students, got {len(self.students)}"
            )
        if self.adjudicator not in self.physicians:
            raise ValueError(f"adjudicator {self.adjudicator!r} is not one of the physicians")
        for group, ids in (
            ("student", [m.id for m in self.students]),
            ("evaluator", [m.id for m in self.evaluators]),
            ("physician", list(self.physicians)),
        ):
            if len(set(ids)) != len(ids):
                raise ValueError(f"duplicate {group} id in the roster: {ids}")
        unknown = set(self.ensemble_pool) - set(self.evaluator_ids)
        if unknown:
            raise ValueError(f"ensemble pool names unknown evaluators: {sorted(unknown)}")
        if not self.families:
            fams = dict.fromkeys(m.family for m in (*self.students, *self.evaluators))
            object.__setattr__(self, "families", tuple(fams))

    @property
    def student_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.students)

    @property
    def evaluator_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.evaluators)

    @property
    def primary_raters(self) -> tuple[str, ...]:
        return tuple(p for p in self.physicians if p != self.adjudicator)

    def model(self, model_id: str) -> Model:
        for m in (*self.students, *self.evaluators):
            if m.id == model_id:
                return m
        raise KeyError(model_id)

    def family(self, model_id: str) -> str:
        return self.model(model_id).family

    def name(self, model_id: str) -> str:
        return self.model(model_id).name

    def to_dict(self) -> dict[str, Any]:
        def models(ms: tuple[Model, ...]) -> list[dict[str, str]]:
            return [{"id": m.id, "name": m.name, "family": m.family} for m in ms]

        return {
            "students": models(self.students),
            "evaluators": models(self.evaluators),
            "physicians": list(self.physicians),
            "adjudicator": self.adjudicator,
            "ensemble_pool": list(self.ensemble_pool),
            "synthetic": self.synthetic,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], name: str = "roster") -> Roster:
        """Build a roster from its JSON form; missing keys fall back to the paper's roster.

        Every value's type is checked (``synthetic`` must be a JSON boolean, ids text); all
        faults are raised together as one :class:`~medqade.files.problems.InputError` naming
        ``name``.
        """
        allowed = {"students", "evaluators", "physicians", "adjudicator", "ensemble_pool"}
        problems: list[str] = []
        unknown = set(data) - allowed - {"synthetic"}
        if unknown:
            problems.append(f"unknown roster keys {sorted(unknown)}; allowed: {sorted(allowed)}")

        def models(key: str, default: tuple[Model, ...]) -> tuple[Model, ...]:
            if key not in data:
                return default
            given = data[key]
            if not isinstance(given, list):
                problems.append(
                    f"roster {key!r} must be a list of models "
                    f'({{"id": ..., "name": ..., "family": ...}}), got {_json_type(given)}'
                )
                return default
            out = []
            for i, m in enumerate(given):
                if not isinstance(m, Mapping) or not {"id", "family"} <= set(m):
                    problems.append(f"roster {key}[{i}] needs 'id' and 'family' (and 'name')")
                    continue
                bad = [f for f in ("id", "name", "family") if f in m and not _is_text(m[f])]
                if bad:
                    problems.append(
                        f"roster {key}[{i}]: {', '.join(repr(f) for f in bad)} must be "
                        f"non-empty text, got {', '.join(_json_type(m[f]) for f in bad)}"
                    )
                    continue
                model_id = m["id"].strip()
                if model_id in RESERVED_IDS:
                    problems.append(
                        f"roster {key}[{i}]: the id {model_id!r} is reserved (it names "
                        f"{RESERVED_IDS[model_id]}); give the model another id"
                    )
                    continue
                out.append(Model(model_id, str(m.get("name", model_id)).strip(), m["family"]))
            return tuple(out)

        def texts(key: str, default: tuple[str, ...]) -> tuple[str, ...]:
            if key not in data:
                return default
            given = data[key]
            if not isinstance(given, list) or not all(_is_text(v) for v in given):
                problems.append(
                    f"roster {key!r} must be a list of ids (text), got {_json_type(given)}"
                    + (f": {given!r}" if isinstance(given, str) else "")
                )
                return default
            return tuple(v.strip() for v in given)

        base = DEFAULT_ROSTER
        students = models("students", base.students)
        evaluators = models("evaluators", base.evaluators)
        physicians = texts("physicians", base.physicians)
        pool_default = base.ensemble_pool if "evaluators" not in data else ()
        ensemble_pool = texts("ensemble_pool", pool_default)
        adjudicator = data.get("adjudicator", base.adjudicator)
        if not _is_text(adjudicator):
            problems.append(
                f"roster 'adjudicator' must be a physician id (text), got {_json_type(adjudicator)}"
            )
            adjudicator = physicians[-1] if physicians else ""
        synthetic = data.get("synthetic", False)
        if not isinstance(synthetic, bool):
            problems.append(
                f"roster 'synthetic' must be true or false (a JSON boolean), got "
                f"{_json_type(synthetic)} {synthetic!r}"
            )
        if problems:
            from medqade.files.problems import InputError, Problem

            raise InputError(name, [Problem(name, None, p) for p in problems])
        return cls(
            students=students,
            evaluators=evaluators,
            physicians=physicians,
            adjudicator=adjudicator.strip(),
            ensemble_pool=ensemble_pool,
            synthetic=synthetic,
        )

    @classmethod
    def from_json(cls, path: Path) -> Roster:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path.name}: not valid UTF-8 JSON ({exc}); fix the file") from exc
        if not isinstance(data, Mapping):
            raise ValueError(f"{path.name}: expected a JSON object with roster keys")
        return cls.from_dict(data, path.name)


RESERVED_IDS: Final[Mapping[str, str]] = {
    "physicians": "the physician reference in comparisons",
}
"""Model ids a roster may not use: names that mean something else where judges are named."""


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _json_type(value: object) -> str:
    """The JSON type of ``value`` as a user reads it (``a number``, ``null``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


_STUDENTS: Final = (
    Model("gemini-2.5-flash", "Gemini 2.5 Flash", "Gemini"),
    Model("gpt-5-nano", "GPT-5 Nano", "GPT"),
    Model("gemma3:27b", "Gemma 3 27B", "Gemma"),
    Model("gemma3:4b", "Gemma 3 4B", "Gemma"),
    Model("qwen3:4b", "Qwen3-4B", "Qwen"),
)

DEFAULT_ROSTER: Final = Roster(
    students=_STUDENTS,
    evaluators=(
        Model("gemini-3-flash-preview", "Gemini 3 Flash", "Gemini"),
        *_STUDENTS[:1],
        Model("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", "Gemini"),
        Model("gpt-5.4-mini", "GPT-5.4 Mini", "GPT"),
        Model("gpt-5.4-nano", "GPT-5.4 Nano", "GPT"),
        *_STUDENTS[1:],
    ),
    physicians=tuple(f"P{i:02d}" for i in range(1, 11)),
    adjudicator="P10",
    ensemble_pool=(
        "gemini-3-flash-preview",
        "gemini-2.5-flash",
        "gemini-2.5-flash-lite",
        "gpt-5.4-mini",
        "gpt-5.4-nano",
        "gpt-5-nano",
        "gemma3:27b",
    ),
)
"""The paper's roster (methods digest sections 1, 2 and 5)."""
