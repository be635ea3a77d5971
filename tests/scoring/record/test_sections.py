"""Typed record sections (:mod:`medqade.scoring.record.sections`): a measure's agreement written as
the block its own ``to_dict`` gives, and each section read back from its JSON unchanged."""

from __future__ import annotations

import json

import numpy as np

from medqade.dataset.release import Release
from medqade.measures import reference_agreement as measured
from medqade.scoring.record.outputs import jsonable
from medqade.scoring.record.sections import (
    Abstention,
    Bias,
    Disagreements,
    Ensembles,
    agreement_block,
    macro_block,
    rated_block,
)


def test_agreement_block_writes_the_measures_dict(sample: Release) -> None:
    core = np.asarray(sample.is_core, dtype=bool)
    students = sample.roster.student_ids
    agr = measured.agreement(
        sample.evaluator_labels[0][core], sample.consensus[core], students, None
    )
    expected = agr.to_dict()
    assert json.dumps(jsonable(agreement_block(agr).to_json())) == json.dumps(jsonable(expected))
    rated = rated_block(agr).to_json()
    assert "slots" not in rated and "n_items" not in rated and rated["n"] == agr.n
    assert macro_block(None) is None
    assert list(macro_block(agr).to_json())[-1] == "n"  # type: ignore[union-attr]


def test_sections_read_back_byte_identical() -> None:
    samples = {
        Abstention: {"global": 0.1, "by_tier": [0.1, None, 0.0, 0.2], "split": "core"},
        Disagreements: {"n": 1, "n_unanimous": 4, "rate": 0.25, "answer_ids": ["q1/m"]},
        Bias: {
            "family": "Gemma",
            "peers": ["a"],
            "targets": [{"student": "s", "kind": "self", "bias": 0.1, "bias_ci": [0, 0.2]}],
        },
        Ensembles: {
            "split": "core",
            "panels": [{"size": 3, "with": {"members": ["submission"]}, "without": None}],
        },
    }
    for cls, obj in samples.items():
        read = cls.from_json(obj)
        assert json.dumps(read.to_json()) == json.dumps(obj), cls.__name__
    assert Bias.from_json(samples[Bias]).targets[0].kind == "self"  # type: ignore[index]
