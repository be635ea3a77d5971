"""The string-comparison judges of the board (:mod:`medqade.scoring.metrics.baselines`): what each
accepts, and their labels on a release."""

from __future__ import annotations

import numpy as np
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.scoring.metrics.baselines import BASELINES, baseline_labels

BY_ID = {b.id: b for b in BASELINES}


@pytest.mark.parametrize(
    ("baseline", "answer", "reference", "accepted"),
    [
        ("baseline-exact", "Femur", "Femur", True),
        ("baseline-exact", "femur", "Femur", False),
        ("baseline-normalised", " der  Femur.", "Femur", True),
        ("baseline-normalised", "Femurs", "Femur", False),
        ("baseline-token-f1", "Nervus medianus", "der Nervus medianus", True),
        ("baseline-token-f1", "Nervus ulnaris dexter", "Nervus medianus", False),
        ("baseline-char-3gram", "Acetylsalicylsäure", "Acetylsalicylsaeure", True),
        ("baseline-char-3gram", "Tibia", "Femur", False),
        ("baseline-fuzzy", "Paracetamoll", "Paracetamol", True),
        ("baseline-fuzzy", "Ibuprofen", "Paracetamol", False),
    ],
)
def test_what_each_baseline_accepts(
    baseline: str, answer: str, reference: str, accepted: bool
) -> None:
    assert BY_ID[baseline].accepts(answer, reference) is accepted


def test_ids_and_names_are_unique() -> None:
    assert len(BY_ID) == len(BASELINES) == 5
    assert len({b.name for b in BASELINES}) == 5


def test_labels_on_a_release_are_read_only_and_match_the_rule(sample: Release) -> None:
    exact = baseline_labels(sample, BY_ID["baseline-exact"])
    assert exact.shape == sample.answer_text.shape and not exact.flags.writeable
    assert baseline_labels(sample, BY_ID["baseline-exact"]) is exact  # computed once
    refs = sample.questions["reference_answer"].tolist()
    for i, ref in enumerate(refs):
        for s in range(exact.shape[1]):
            text = sample.answer_text[i, s]
            if not isinstance(text, str):
                assert exact[i, s] == vocab.MISSING_CODE
                continue
            want = vocab.RICHTIG_CODE if text == ref else vocab.FALSCH_CODE
            assert exact[i, s] == want
    loose = baseline_labels(sample, BY_ID["baseline-normalised"])
    assert np.sum(loose == vocab.RICHTIG_CODE) >= np.sum(exact == vocab.RICHTIG_CODE)
