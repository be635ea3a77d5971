"""Agreement per cell beside the physicians' (medqade.measures.agreement_cells) against an
explicit loop: each physician's leave-one-out majority by hand, sklearn's kappa per slot, the
means over slots and physicians, and a bootstrap replicate as the resampled questions."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import breakdown
from medqade.measures.agreement_cells import MIN_CELL_QUESTIONS, cell_agreement, cell_physicians
from medqade.measures.seeds import question_weights

R, F, A, M = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.ABSTAIN_CODE, vocab.MISSING_CODE


def _majority(votes: np.ndarray) -> int:
    r = int((votes == R).sum())
    f = int((votes == F).sum())
    return R if r > f else F if f > r else M


def _kappa(a: list[int], b: list[int]) -> float:
    if not a:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(cohen_kappa_score(a, b, labels=[R, F]))


def _loop(judge: np.ndarray, phys: np.ndarray, rows: np.ndarray) -> tuple[float, float]:
    """Judge and physicians in each physician's place over the questions ``rows`` (indices,
    repeats allowed: a resample), macro over slots, mean over physicians, by hand."""
    judge_means, phys_means = [], []
    for p in range(phys.shape[0]):
        others = np.delete(phys, p, axis=0)
        judge_slots, phys_slots = [], []
        for s in range(judge.shape[1]):
            j_lab, p_lab, refs = [], [], []
            for i in rows:
                mine = int(phys[p, i, s])
                ref = _majority(others[:, i, s])
                if mine not in (R, F) or ref == M:
                    continue
                j = int(judge[i, s])
                j_lab.append(j if j in (R, F) else (F if ref == R else R))
                p_lab.append(mine)
                refs.append(ref)
            judge_slots.append(_kappa(j_lab, refs))
            phys_slots.append(_kappa(p_lab, refs))
        judge_means.append(np.nanmean(judge_slots) if np.isfinite(judge_slots).any() else np.nan)
        phys_means.append(np.nanmean(phys_slots) if np.isfinite(phys_slots).any() else np.nan)
    return float(np.nanmean(judge_means)), float(np.nanmean(phys_means))


def test_cells_equal_an_explicit_loop(full: Release) -> None:
    core = np.asarray(full.is_core, dtype=bool)
    e = 2
    labels = full.evaluator_labels[e][core]
    present = labels != M
    phys = full.physician_labels[:, core]
    dims = breakdown.dimensions(
        full.questions[core].reset_index(drop=True), full.tier[core], full.lexical[core]
    )
    dims.pop(breakdown.LEXICAL)
    w = question_weights(int(core.sum()), 40, 9)
    start = time.process_time()
    found = cell_agreement(labels, present, phys, dims, full.roster.student_ids, w)
    print(f"{len(found.cells)} cells: {time.process_time() - start:.2f} s CPU")
    assert {c.dimension for c in found.cells} == set(dims)
    tiers = [c for c in found.cells if c.dimension == breakdown.TIER]
    assert [c.group for c in tiers] == ["T1", "T2", "T3", "T4"]
    assert sum(c.n_questions for c in tiers) == int(core.sum())
    for cell in found.cells:
        values = dims[cell.dimension]
        rows = np.flatnonzero([v is not None and str(v) == cell.group for v in values])
        assert cell.n_questions == rows.size
        assert cell.n_answers == int(present[rows].sum())
        assert cell.few_questions == (rows.size < MIN_CELL_QUESTIONS)
        judge, physicians = _loop(labels, phys, rows)
        assert cell.judge.value == pytest.approx(judge, abs=1e-12)
        assert cell.physicians.value == pytest.approx(physicians, abs=1e-12)
        assert cell.difference.value == pytest.approx(judge - physicians, abs=1e-12)
        lo, hi = cell.difference.ci
        assert lo <= hi
    # a bootstrap replicate of the two largest cells equals the loop on the resampled questions
    # (in a small cell a slot's kappa can be undefined in a resample: the library then marks
    # the replicate NaN, as every macro replicate, where a loop's nanmean would skip the slot)
    for cell in sorted(found.cells, key=lambda c: -c.n_questions)[:2]:
        values = dims[cell.dimension]
        inside = np.array([v is not None and str(v) == cell.group for v in values])
        b = 3
        rows = np.repeat(np.arange(core.sum()), w[b].astype(int))
        rows = rows[inside[rows]]
        judge, physicians = _loop(labels, phys, rows)
        assert cell.judge.replicates is not None and cell.physicians.replicates is not None
        assert cell.judge.replicates[b] == pytest.approx(judge, abs=1e-12)
        assert cell.physicians.replicates[b] == pytest.approx(physicians, abs=1e-12)


def test_an_abstaining_judge_scores_as_disagreeing_and_json_has_every_cell(full: Release) -> None:
    core = np.asarray(full.is_core, dtype=bool)
    phys = full.physician_labels[:, core]
    n = int(core.sum())
    dims = {breakdown.TIER: np.array([f"T{int(t)}" for t in full.tier[core]], dtype=object)}
    abstains = np.full((n, vocab.N_SLOTS), A, dtype=np.int8)
    found = cell_agreement(abstains, abstains != M, phys, dims, full.roster.student_ids)
    for cell in found.cells:
        assert cell.judge.value < 0  # always the opposite label: worse than chance
        assert cell.difference.value < 0
    out = found.to_json()
    assert out["split"] == "core" and out["min_questions"] == MIN_CELL_QUESTIONS
    assert [c["group"] for c in out["cells"]] == ["T1", "T2", "T3", "T4"]
    assert out["difference_interval"] == "questions"
    assert {"judge", "judge_ci", "physicians", "n_questions", "few_questions"} <= set(
        out["cells"][0]
    )


def test_the_physicians_side_computed_once_gives_the_same_cells(full: Release) -> None:
    """:func:`cell_physicians` (once per release) passed to :func:`cell_agreement` gives the
    cells it computes itself, replicates included."""
    core = np.asarray(full.is_core, dtype=bool)
    phys = full.physician_labels[:, core]
    dims = {breakdown.TIER: np.array([f"T{int(t)}" for t in full.tier[core]], dtype=object)}
    w = question_weights(int(core.sum()), 30, 5, 0).astype(np.float64)
    labels = full.evaluator_labels[3][core]
    rows = labels != M
    slots = full.roster.student_ids
    side = cell_physicians(phys, dims, slots, w)
    assert set(side) == {(breakdown.TIER, f"T{t}") for t in range(1, 5)}
    alone = cell_agreement(labels, rows, phys, dims, slots, w)
    shared = cell_agreement(labels, rows, phys, dims, slots, w, physicians=side)
    for a, b in zip(alone.cells, shared.cells, strict=True):
        for part in ("judge", "physicians", "difference"):
            x, y = getattr(a, part), getattr(b, part)
            assert x.value == y.value
            assert np.array_equal(x.replicates, y.replicates, equal_nan=True)
