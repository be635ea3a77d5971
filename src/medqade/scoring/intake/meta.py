"""Submission metadata: the fields a submitter may give, checked and canonicalised.

Metadata comes from CLI flags, the Space form, or a header object on the first line of a JSON
Lines submission (``{"meta": {...}}``). Allowed keys (all optional):

========== ===================================================================================
name       display name on the leaderboard
model_id   model id as served (e.g. ``gpt-5.4-mini``)
revision   model revision, snapshot or access date
family     model family: one of the roster's families (matched case-insensitively) or a new one
organisation  who made the model or the submission
link       ``http(s)://`` link to a model card, paper or code
prompt     ``official`` (the paper's prompt), ``own`` (another prompt)
prompt_sha256  SHA-256 of the prompt file used
decoding   decoding settings: an object of scalars (``{"temperature": 0}``) or a short text
notes      free text
inspect    an Inspect log's run: an object of scalars (Inspect version, provider, model, task,
           run date, sample, error and epoch counts, token counts), set from the log
judge      answers only: the judge that labelled unmatched answers, an object with ``name``,
           ``model_id``, ``family`` and ``core_kappa`` (its own core kappa, if known)
usage      token use of the run (all its runs together): an object with ``input_tokens`` and
           ``output_tokens`` (totals), and ``price_in`` / ``price_out`` in EUR per million
           tokens (``medqade score --price-in --price-out``); read by
           :mod:`medqade.measures.cost`
========== ===================================================================================

Two keys are set by the project, never by a submission file: ``source`` (``submission``,
``paper``, ``baseline`` or ``physicians``) and ``verified`` (a maintainer checked the run).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from medqade.files.problems import Problem
from medqade.scoring.intake.decoding import check_decoding, parse_decoding
from medqade.scoring.intake.decoding import deterministic_decoding as deterministic_decoding
from medqade.scoring.record import JsonDict

TEXT_KEYS: Final = (
    "name",
    "model_id",
    "revision",
    "family",
    "organisation",
    "link",
    "prompt",
    "prompt_sha256",
    "notes",
)
META_KEYS: Final = (*TEXT_KEYS, "decoding", "inspect", "judge", "usage")
USAGE_KEYS: Final = ("input_tokens", "output_tokens", "price_in", "price_out")
PRICES: Final = {"price_in": "input", "price_out": "output"}
"""The price keys of ``usage`` (EUR per million tokens) and the tokens each one prices; the
Space's form and ``medqade score``'s ``--price-in/--price-out`` give them."""
USAGE_EXAMPLE: Final = 'e.g. {"input_tokens": 1200000, "output_tokens": 40000}'
FORM_KEYS: Final = ("name", "model_id", "revision", "family", "organisation", "link", "prompt")
"""The one-line text fields the Space's form and ``medqade score``'s flags both give, in the
order they enter a record's ``meta``."""
TRUSTED_KEYS: Final = ("source", "verified")
SOURCES: Final = ("submission", "paper", "baseline", "physicians")
PROMPTS: Final = ("official", "own")
JUDGE_KEYS: Final = ("name", "model_id", "family", "core_kappa")
MAX_TEXT: Final = 300
MAX_NOTES: Final = 2000

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def canonical_family(family: str, families: Sequence[str]) -> str:
    """The roster's spelling of ``family`` when it matches one case-insensitively, else as given."""
    text = " ".join(family.split())
    for known in families:
        if known.casefold() == text.casefold():
            return known
    return text


def family_of_model(model_id: str, models: Sequence[tuple[str, str]]) -> str | None:
    """The family of a model named ``model_id`` (as an Inspect log names it, provider path
    left out), from the roster's ``(id, family)`` pairs: the family of the roster model with
    that id, else the one family whose name starts a word of the id (``gpt-5.4-mini`` -> GPT,
    ``gemma3:27b`` -> Gemma), else ``None`` (the submitter says it). Case never counts."""
    text = model_id.rsplit("/", 1)[-1].casefold()
    for known_id, family in models:
        if known_id.casefold() == text:
            return family
    words = re.split(r"[^0-9a-z]+", text)
    found = {
        family
        for _, family in models
        if family and any(w.startswith(family.casefold()) for w in words)
    }
    return found.pop() if len(found) == 1 else None


def _text(value: Any, limit: int) -> str | None:
    if isinstance(value, str):
        text = value.strip()
        return text if len(text) <= limit else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def clean_meta(
    raw: Mapping[str, Any],
    file: str,
    line: int | None,
    families: Sequence[str],
    trusted: bool = False,
) -> tuple[dict[str, Any], list[Problem]]:
    """Check ``raw`` metadata; return the cleaned dict (empty values dropped) and problems.

    ``trusted`` allows ``source`` and ``verified`` (set by the project, not by a file).
    """
    problems: list[Problem] = []

    def bad(key: str, message: str, value: Any, fix: str) -> None:
        problems.append(
            Problem(file, line, message, column=f"meta.{key}", value=str(value)[:80], fix=fix)
        )

    allowed = (*META_KEYS, *TRUSTED_KEYS) if trusted else META_KEYS
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in allowed:
            fix = (
                "remove it; it is set by the project"
                if key in TRUSTED_KEYS
                else f"use only {', '.join(META_KEYS)}"
            )
            bad(str(key), "unknown metadata key", key, fix)
            continue
        if value is None or value == "":
            continue
        if key in TEXT_KEYS:
            limit = MAX_NOTES if key == "notes" else MAX_TEXT
            text = _text(value, limit)
            if text is None:
                bad(key, f"expected a text of at most {limit} characters", value, "shorten it")
                continue
            if not text:
                continue
            if key == "family":
                text = canonical_family(text, families)
            if key == "link" and not re.match(r"^https?://\S+$", text):
                bad(key, "not an http(s) link", text, "give a full URL starting with https://")
                continue
            if key == "prompt" and text.casefold() not in PROMPTS:
                bad(key, "unknown prompt kind", text, "use 'official' or 'own' (and prompt_sha256)")
                continue
            if key == "prompt":
                text = text.casefold()
            if key == "prompt_sha256" and not _SHA256.match(text.casefold()):
                bad(key, "not a SHA-256 hex digest", text, "give the 64 hex digits of the hash")
                continue
            out[key] = text.casefold() if key == "prompt_sha256" else text
        elif key == "decoding":
            decoding = check_decoding(value, MAX_TEXT)
            if decoding is None:
                bad(
                    key,
                    "expected an object of scalar settings or a short text",
                    value,
                    'e.g. {"temperature": 0, "max_tokens": 64}',
                )
                continue
            out[key] = decoding
        elif key == "inspect":
            run = check_decoding(value, MAX_TEXT) if isinstance(value, Mapping) else None
            if run is None:
                bad(
                    key,
                    "expected an object of scalars (as read from an Inspect log)",
                    value,
                    "leave it as the log gives it, or remove it",
                )
                continue
            out[key] = run
        elif key == "judge":
            judge, judge_problems = _judge(value, file, line, families)
            problems.extend(judge_problems)
            if judge:
                out[key] = judge
        elif key == "usage":
            if not isinstance(value, Mapping):
                bad(key, f"expected an object ({', '.join(USAGE_KEYS)})", value, USAGE_EXAMPLE)
                continue
            usage: dict[str, float] = {}
            for k, v in value.items():
                if v is None:
                    continue
                number = _usage_number(k, v)
                if number is None:
                    message, fix = _usage_problem(str(k))
                    bad(f"usage.{k}", message, v, fix)
                    continue
                usage[k] = number
            if usage:
                out[key] = dict(sorted(usage.items()))
        elif key == "source":
            if value not in SOURCES:
                bad(key, "unknown source", value, f"use one of {', '.join(SOURCES)}")
                continue
            out[key] = value
        elif key == "verified":
            if not isinstance(value, bool):
                bad(key, "expected true or false", value, "use a boolean")
                continue
            out[key] = value
    return out, problems


def _usage_number(key: Any, value: Any) -> float | None:
    """A token count or price as stored (counts as ``int`` when whole), ``None`` when the key
    is unknown or the value is not a non-negative finite number."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if key not in USAGE_KEYS or not ok or value < 0:
        return None
    whole = str(key).endswith("_tokens") and float(value).is_integer()
    return int(value) if whole else float(value)


def _usage_problem(key: str) -> tuple[str, str]:
    """The message and fix for a bad ``usage`` entry (one wording for the CLI and the form)."""
    if key in PRICES:
        return (
            "expected a non-negative finite number (EUR per million tokens)",
            f"give the price of a million {PRICES[key]} tokens in EUR, or leave it out",
        )
    if key in USAGE_KEYS:
        return "expected a non-negative finite number of tokens", USAGE_EXAMPLE
    return "unknown usage key", f"use only {', '.join(USAGE_KEYS)}"


def _judge(
    value: Any, file: str, line: int | None, families: Sequence[str]
) -> tuple[dict[str, Any], list[Problem]]:
    problems: list[Problem] = []

    def bad(where: str, message: str, shown: Any, fix: str) -> None:
        problems.append(Problem(file, line, message, column=where, value=str(shown)[:80], fix=fix))

    if not isinstance(value, Mapping):
        fix = f"give an object with keys {', '.join(JUDGE_KEYS)}"
        bad("meta.judge", "expected an object", value, fix)
        return {}, problems
    out: dict[str, Any] = {}
    for key, v in value.items():
        where = f"meta.judge.{key}"
        if key not in JUDGE_KEYS:
            bad(where, "unknown judge key", key, f"use only {', '.join(JUDGE_KEYS)}")
        elif v is None or v == "":
            continue
        elif key == "core_kappa":
            if isinstance(v, (int, float)) and not isinstance(v, bool) and -1 <= v <= 1:
                out[key] = float(v)
            else:
                fix = "give the judge's core kappa as a number, or leave it out"
                bad(where, "expected a number between -1 and 1", v, fix)
        elif text := _text(v, MAX_TEXT):
            out[key] = canonical_family(text, families) if key == "family" else text
        else:
            bad(where, f"expected a text of at most {MAX_TEXT} characters", v, "shorten it")
    return out, problems


def _price(value: Any) -> Any:
    """A price field as given: empty -> ``None``, a number text -> its number, else itself
    (refused by :func:`clean_meta` with the rule's message)."""
    if isinstance(value, str):
        value = value.strip()
        try:
            return float(value) if value else None
        except ValueError:
            return value
    return value


def merge_meta(header: Mapping[str, Any], explicit: Mapping[str, Any]) -> JsonDict:
    """Header metadata overridden by explicit metadata (flags or form), key by key."""
    out = dict(header)
    for key, value in explicit.items():
        if key == "judge" and isinstance(value, Mapping) and isinstance(out.get("judge"), Mapping):
            out["judge"] = {**out["judge"], **value}
        elif key == "usage" and isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = dict(sorted({**out[key], **value}.items()))  # prices beside the counts
        else:
            out[key] = value
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class SubmissionForm:
    """The metadata a submitter gives with a file, parsed the same way whichever front end it
    comes from (``medqade score``'s flags, :meth:`from_fields` for the Space's form), so one
    submission has one metadata and one record id. Empty fields are left out of :meth:`meta`;
    the values are checked when the record is made (:func:`clean_meta`)."""

    name: str = ""
    model_id: str = ""
    revision: str = ""
    family: str = ""
    organisation: str = ""
    link: str = ""
    prompt: str = ""
    prompt_sha256: str = ""
    decoding: dict[str, Any] | str = ""
    notes: str = ""
    verified: bool = False
    judge: Mapping[str, Any] = field(default_factory=dict)
    usage: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> SubmissionForm:
        """The form from text fields keyed by metadata key (the Space's form, the CLI's
        flags): each stripped, ``decoding`` through :func:`parse_decoding` (``ValueError``
        for a malformed one), the prices (:data:`PRICES`) into ``usage`` as given (a number
        text read as a number; checked with the rest by :func:`clean_meta`); ``None`` and
        unknown keys ignored."""

        def text(key: str) -> str:
            value = fields.get(key)
            return "" if value is None else str(value).strip()

        raw = text("decoding")
        return cls(
            name=text("name"),
            model_id=text("model_id"),
            revision=text("revision"),
            family=text("family"),
            organisation=text("organisation"),
            link=text("link"),
            prompt=text("prompt"),
            prompt_sha256=text("prompt_sha256"),
            decoding=parse_decoding(raw) if raw else "",
            notes=text("notes"),
            usage={key: _price(fields.get(key)) for key in PRICES},
        )

    @classmethod
    def with_prompt_file(cls, fields: Mapping[str, Any], prompt: bytes) -> SubmissionForm:
        """:meth:`from_fields` plus the SHA-256 of the prompt file used (the prompt kind
        ``own`` unless given)."""
        form = cls.from_fields(fields)
        digest = hashlib.sha256(prompt).hexdigest()
        return replace(form, prompt_sha256=digest, prompt=form.prompt or "own")

    def meta(self) -> JsonDict:
        """The metadata keys of :mod:`medqade.scoring.intake.meta` (empty fields left out)."""
        out: dict[str, Any] = {}
        for key in (*FORM_KEYS, "notes", "prompt_sha256", "decoding"):
            value = getattr(self, key)
            if value or (key == "decoding" and value == {}):
                out[key] = value
        if self.verified:
            out["verified"] = True
        judge = {k: v for k, v in self.judge.items() if v is not None}
        if judge:
            out["judge"] = judge
        usage = {k: v for k, v in self.usage.items() if v is not None}
        if usage:
            out["usage"] = usage
        return out
