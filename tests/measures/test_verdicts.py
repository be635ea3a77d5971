"""measures.verdicts: one verdict per judge, decided by one rule from the core and the
extension, with intervals over questions and physicians."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.dataset.release import Release
from medqade.measures import in_place, paired, verdicts
from medqade.measures.seeds import physician_weights, question_weights

R = 200


def _release_inputs(full: Release) -> dict[str, object]:
    roster = full.roster
    core = np.asarray(full.is_core, dtype=bool)
    pairs = verdicts.extension_pairs(
        full.physician_labels, roster.physicians.index(roster.adjudicator), core
    )
    return {
        "is_core": core,
        "physician_labels": full.physician_labels,
        "pairs": pairs,
        "slot_names": roster.student_ids,
        "resamples": (
            question_weights(int(core.sum()), R, 3),
            question_weights(full.n_items, R, 3, stream=1),
            physician_weights(full.physician_labels.shape[0], R, 3),
        ),
    }


def _headline(full: Release, labels: np.ndarray, present: np.ndarray | None = None):
    rows = np.ones(labels.shape, dtype=bool) if present is None else present
    return verdicts.judge_headline(labels, rows, **_release_inputs(full))  # type: ignore[arg-type]


def test_pooled_headline_is_the_mean_of_the_designs_on_the_same_resamples(full: Release) -> None:
    head = _headline(full, full.evaluator_labels[0])
    assert head.decided_on == verdicts.POOLED and not head.flags
    core, ext = head.core, head.extension
    assert core is not None and ext is not None and head.difference is not None
    assert head.difference.value == pytest.approx((core.kappa.value + ext.kappa.value) / 2)
    assert core.kappa.replicates is not None and ext.kappa.replicates is not None
    mean = (core.kappa.replicates + ext.kappa.replicates) / 2
    assert head.difference.replicates == pytest.approx(mean)
    assert head.verdict == paired.verdict(head.difference, paired.DEFAULT_MARGIN)
    assert head.consistency is not None
    assert head.consistency.value == pytest.approx(core.kappa.value - ext.kappa.value)


def test_the_extension_design_is_each_primary_physicians_place(full: Release) -> None:
    """The extension's d equals primaries_in_place on the extension items with the all-items
    resamples restricted to them and the adjudicator's physician weights left out."""
    inputs = _release_inputs(full)
    pairs = inputs["pairs"]
    assert isinstance(pairs, verdicts.ExtensionPairs)
    w_all, panel = inputs["resamples"][1], inputs["resamples"][2]  # type: ignore[index]
    labels = full.evaluator_labels[2]
    items = pairs.items
    place = in_place.primaries_in_place(
        labels[items],
        pairs.primary[:, items],
        (pairs.first[items], pairs.second[items]),
        full.roster.student_ids,
        w_all[:, items],
    )
    ext = _headline(full, labels).extension
    assert ext is not None and ext.n_items == int(items.sum())
    v = np.delete(panel, pairs.adjudicator, axis=1)
    assert ext.kappa.value == pytest.approx(place.difference("kappa").value, abs=1e-12)
    assert ext.kappa.ci == pytest.approx(place.difference("kappa", v).ci, abs=1e-12)
    assert place.n_physicians == full.physician_labels.shape[0] - 1


def test_a_judge_good_on_the_public_core_only_is_flagged_and_judged_on_the_extension(
    full: Release,
) -> None:
    """The split exploit: the best paper judge's labels on the core, a weak judge's (random
    labels) on the extension. The flag fires, the verdict is the extension's alone."""
    best = full.evaluator_labels[0].copy()
    rng = np.random.default_rng(5)
    weak = rng.integers(0, 2, size=best.shape).astype(best.dtype)
    core = np.asarray(full.is_core, dtype=bool)
    hybrid = np.where(core[:, None], best, weak)
    head = _headline(full, hybrid)
    honest = _headline(full, best)
    assert verdicts.CORE_ABOVE_EXTENSION in head.flags
    assert head.decided_on == verdicts.EXTENSION
    assert head.extension is not None and head.difference is head.extension.kappa
    assert head.verdict in (paired.INFERIOR, paired.BELOW)
    assert head.verdict != honest.verdict
    assert not honest.flags


def test_one_design_only_decides_alone(full: Release) -> None:
    labels = full.evaluator_labels[1]
    core = np.asarray(full.is_core, dtype=bool)
    only_core = np.broadcast_to(core[:, None], labels.shape)
    head = _headline(full, labels, only_core.copy())
    assert head.decided_on == verdicts.CORE and head.extension is None
    assert head.core is not None and head.difference is head.core.kappa
    only_ext = ~only_core
    head = _headline(full, labels, only_ext.copy())
    assert head.decided_on == verdicts.EXTENSION and head.core is None


def test_the_verdict_is_decided_on_kappa_and_moves_only_with_the_margin(full: Release) -> None:
    head = _headline(full, full.evaluator_labels[3])
    words = [head.at(m) for m in (0.0, 0.02, 0.05, 0.1, 0.3, 1.0)]
    ranks = [paired.VERDICTS.index(w) for w in words if w is not None]
    assert ranks == sorted(ranks, reverse=True) or ranks == sorted(ranks)
    block = head.to_dict()
    assert block["metric"] == "kappa" and block["decided_on"] == head.decided_on
    assert block["kappa_ci"] == [head.difference.low, head.difference.high]  # type: ignore[union-attr]


def test_design_blocks_carry_no_verdict_word(full: Release) -> None:
    head = _headline(full, full.evaluator_labels[0])
    assert head.core is not None
    block = head.core.to_dict()
    assert "verdict" not in block and "verdicts" not in block and "margins" not in block
    assert block["given_panel"]["kappa"] == block["kappa"]
    assert block["n_physicians"] == full.physician_labels.shape[0]


def test_extension_pairs_leave_out_the_core_and_the_adjudicator() -> None:
    p = np.full((3, 4, 1), -1)
    p[0, :, 0], p[1, :, 0] = 1, 0  # physicians 0 and 1 rate every item
    p[2, 0, 0] = 1  # the adjudicator voted on item 0
    core = np.array([True, True, False, False])
    pairs = verdicts.extension_pairs(p, 2, core)
    assert pairs.items.tolist() == [False, False, True, True]
    assert pairs.primary.shape == (2, 4, 1)
    assert pairs.first.tolist() == [0, 0, 0, 0] and pairs.second.tolist() == [1, 1, 1, 1]


def test_bad_margin_is_refused(full: Release) -> None:
    with pytest.raises(ValueError, match="margin"):
        verdicts.headline(None, None, margin=2.0)
    head = _headline(full, full.evaluator_labels[0])
    with pytest.raises(ValueError, match="margin"):
        head.at(-0.1)


def test_a_contaminated_judge_gets_no_verdict_and_keeps_its_evidence(full: Release) -> None:
    """Rule 4: a judge the contamination check flagged has no verdict word, no ``d`` and no
    design it was decided on, at any margin; its designs stay as evidence."""
    labels = full.evaluator_labels[0]
    rows = np.ones(labels.shape, dtype=bool)
    clean = verdicts.judge_headline(labels, rows, **_release_inputs(full))  # type: ignore[arg-type]
    flagged = verdicts.judge_headline(
        labels,
        rows,
        contaminated=True,
        **_release_inputs(full),  # type: ignore[arg-type]
    )
    assert clean.verdict is not None and verdicts.CONTAMINATION not in clean.flags
    assert flagged.verdict is None and flagged.difference is None and flagged.decided_on is None
    assert flagged.at(0.2) is None
    assert flagged.flags == (*clean.flags, "contamination")
    assert flagged.core is not None and clean.core is not None
    assert flagged.core.kappa.value == clean.core.kappa.value  # the evidence is unchanged
    assert flagged.to_dict()["flags"][-1] == "contamination"
    assert verdicts.withhold_verdict(flagged).flags == flagged.flags  # not added twice
