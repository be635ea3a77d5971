"""The published dataset's configs and their ``datasets.Features`` (one place).

``datasets`` is imported when features are first asked for, not with this module: commands that
only read a build (``pool-estimate``, ``score``) should not pay its second of import time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datasets import Features

from medqade import vocab

CONFIGS = ("questions", "answers", "ratings", "judgments")
OPTIONAL_CONFIGS = ("reviews", "pool", "pool_judgments")
"""Configs a build publishes only when the raw release has the table."""
HUB_CONFIGS = ("judge_hub",)
"""Configs shaped for Inspect's ``hf/`` loader (``eval.yaml``; :mod:`medqade.dataset.hub_config`):
every build publishes them, ``Release`` does not read them."""
POOL_SPLIT = "pool"
"""The one split of the ``pool`` and ``pool_judgments`` configs."""


def config_splits(config: str) -> tuple[str, ...]:
    """The splits a config is published in (the pool configs have one, ``pool``)."""
    return (POOL_SPLIT,) if config in ("pool", "pool_judgments") else vocab.SPLITS


DEFAULT_CONFIG = "questions"

HELD_OUT = "held_out"
"""The boolean column of ``questions`` and ``answers`` in a build with held-out labels
(:mod:`medqade.dataset.holdout`): true on a row whose labels are withheld."""
HELD_OUT_CONFIGS = ("questions", "answers")


def _answer_fields() -> dict[str, Any]:
    from datasets import Value

    return {
        "answer_id": Value("string"),
        "model": Value("string"),
        "family": Value("string"),
        "answer": Value("string"),
        "exact_match": Value("bool"),
        "votes_richtig": Value("int16"),
        "votes_falsch": Value("int16"),
        "votes_keine_angabe": Value("int16"),
        "consensus": Value("string"),
        "adjudicated": Value("bool"),
    }


def features(config: str, extra_columns: Iterable[str] = (), *, held_out: bool = False) -> Features:
    """Features of ``config``; ``extra_columns`` (pass-through strings) follow the fixed ones.
    With ``held_out`` (a build that withholds labels) ``questions`` and ``answers`` end with
    the boolean :data:`HELD_OUT` before ``canary``."""
    from datasets import Features, List, Value

    extras = {c: Value("string") for c in extra_columns}
    if held_out and config in HELD_OUT_CONFIGS:
        extras[HELD_OUT] = Value("bool")
    if config == "questions":
        return Features(
            {
                "question_id": Value("string"),
                "question": Value("string"),
                "reference_answer": Value("string"),
                "lexical_match": Value("bool"),
                "difficulty_mean": Value("float64"),
                "difficulty_tier": Value("int8"),
                "answers": List(_answer_fields()),
                "difficulty_ratings": List(
                    {"rater": Value("string"), "difficulty": Value("string")}
                ),
                **extras,
                "canary": Value("string"),
            }
        )
    if config == "answers":
        fields = dict(_answer_fields())
        return Features(
            {
                "answer_id": fields.pop("answer_id"),
                "question_id": Value("string"),
                **fields,
                "lexical_match": Value("bool"),
                "difficulty_tier": Value("int8"),
                **extras,
                "canary": Value("string"),
            }
        )
    if config == "ratings":
        return Features(
            {
                "answer_id": Value("string"),
                "question_id": Value("string"),
                "model": Value("string"),
                "rater": Value("string"),
                "round": Value("string"),
                "label": Value("string"),
                "rated_at": Value("string"),
                "canary": Value("string"),
            }
        )
    if config == "judgments":
        return Features(
            {
                "answer_id": Value("string"),
                "question_id": Value("string"),
                "model": Value("string"),
                "evaluator": Value("string"),
                "label": Value("string"),
                "difficulty": Value("string"),
                "position": Value("int8"),
                "canary": Value("string"),
            }
        )
    if config == "pool":
        return Features(
            {
                "question_id": Value("string"),
                "question": Value("string"),
                "reference_answer": Value("string"),
                "lexical_match": Value("bool"),
                "in_benchmark": Value("bool"),
                "answers": List(
                    {
                        "answer_id": Value("string"),
                        "model": Value("string"),
                        "answer": Value("string"),
                        "exact_match": Value("bool"),
                    }
                ),
                **extras,
                "canary": Value("string"),
            }
        )
    if config == "pool_judgments":
        return Features(
            {
                "answer_id": Value("string"),
                "question_id": Value("string"),
                "model": Value("string"),
                "evaluator": Value("string"),
                "label": Value("string"),
                "position": Value("int8"),
                "canary": Value("string"),
            }
        )
    if config == "judge_hub":
        return Features(
            {
                "answer_id": Value("string"),
                "question_id": Value("string"),
                "model": Value("string"),
                "input": Value("string"),
                "choices": List(Value("string")),
                "target": Value("string"),
                "canary": Value("string"),
            }
        )
    if config == "reviews":
        return Features(
            {
                "answer_id": Value("string"),
                "question_id": Value("string"),
                "model": Value("string"),
                "reviewer": Value("string"),
                "codes": List(Value("string")),
                "note": Value("string"),
                "canary": Value("string"),
            }
        )
    raise ValueError(
        f"unknown config {config!r}; use one of "
        f"{', '.join((*CONFIGS, *OPTIONAL_CONFIGS, *HUB_CONFIGS))}"
    )


def published_columns() -> frozenset[str]:
    """Every column name the dataset publishes: the fields of every config, the fields nested
    in ``answers`` and ``difficulty_ratings``, ``split`` and :data:`HELD_OUT`."""
    names = {"split", HELD_OUT}
    for config in CONFIGS:
        feats = features(config)
        names.update(feats)
        for feature in feats.values():
            inner = getattr(feature, "feature", None)
            if isinstance(inner, dict):
                names.update(inner)
    return frozenset(names)


def answer_id(question_id: str, model: str) -> str:
    """The id of one answer slot, used by submissions, the browser and every table."""
    return f"{question_id}/{model}"
