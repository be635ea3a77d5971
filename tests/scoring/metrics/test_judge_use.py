"""A judge record's ranking fidelity, length bias and output shares (issue 37), checked
against independent computations: scipy's Kendall tau on the accuracies of a plain loop, an
explicit loop over the resampled questions for the intervals, pandas for the length quartiles,
and counts of the submitted rows for the output shares."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import LEXICAL, cell_agreement, dimensions, seeds
from medqade.scoring import parse_submission, score
from medqade.scoring.intake.settings import Settings
from medqade.scoring.metrics.judge_use import answer_lengths, judge_use, where_it_fails
from medqade.scoring.record.score_record import ScoreRecord
from medqade.scoring.record.summary_text import summary

from ..helpers import codes_to_rows, fidelity_oracle, jsonl, student_accuracies

R = 60
SEED = 11


def _labels(sample: Release) -> np.ndarray:
    """An evaluator's codes with a few flips and two answers left out (missing)."""
    codes = np.array(sample.evaluator_labels[0], dtype=np.int8)
    codes[0, 1] = 1 - codes[0, 1] if codes[0, 1] in (0, 1) else 1
    codes[2, 4] = 1 - codes[2, 4] if codes[2, 4] in (0, 1) else 0
    codes[1, 0] = codes[3, 2] = vocab.MISSING_CODE
    return codes


def _record(sample: Release, codes: np.ndarray) -> ScoreRecord:
    sub = parse_submission(codes_to_rows(sample, codes).encode(), "j.csv", sample)
    return score(sample, sub, settings=Settings(resamples=R, seed=SEED))


def _weights(n_items: int) -> np.ndarray:
    """The record's resamples of its view (all items: stream ``STREAM_ALL``)."""
    return seeds.question_weights(n_items, R, SEED, seeds.STREAM_ALL)


def test_ranking_fidelity_equals_scipy_and_a_resampling_loop(sample: Release) -> None:
    codes = _labels(sample)
    record = _record(sample, codes)
    got = record.ranking_fidelity
    assert got is not None and got.split == "all"
    ref = sample.consensus
    judge, phys = student_accuracies(codes, ref, range(sample.n_items))
    assert got.kendall_tau_b == pytest.approx(kendalltau(judge, phys).statistic, abs=1e-12)
    errors = np.abs(np.subtract(judge, phys))
    assert got.largest_error == pytest.approx(errors.max(), abs=1e-12)
    assert got.largest_error_student == sample.roster.student_ids[int(np.argmax(errors))]
    for s, name in enumerate(sample.roster.student_ids):
        block = got.student(name)
        assert block is not None
        assert block.judge == pytest.approx(judge[s]) and block.physicians == pytest.approx(phys[s])
    oracle = fidelity_oracle(codes, ref, _weights(sample.n_items))
    assert got.kendall_tau_b == pytest.approx(oracle["tau"], abs=1e-12)
    assert got.kendall_tau_b_ci == pytest.approx(oracle["tau_ci"], abs=1e-12)
    assert got.largest_error_ci == pytest.approx(oracle["largest_ci"], abs=1e-12)


def test_length_bias_judge_side_equals_pandas_qcut_and_polyfit(sample: Release) -> None:
    codes = _labels(sample)
    got = _record(sample, codes).length_bias
    assert got is not None and got.judge is not None and got.physicians is not None
    rows = [
        {"length": len(text), "code": int(codes[i, s])}
        for i in range(sample.n_items)
        for s in range(vocab.N_SLOTS)
        if isinstance(text := sample.answer_text[i, s], str)
    ]
    frame = pd.DataFrame(rows)
    frame["q"] = pd.qcut(frame["length"], 4, labels=False)
    labelled = frame[frame["code"].isin([0, 1])]
    rates = labelled.groupby("q")["code"].mean().reindex(range(4))
    assert got.judge.richtig == pytest.approx(list(rates), abs=1e-12)
    slope = np.polyfit(np.arange(1, 5), rates.to_numpy(), 1)[0]
    assert got.judge.richtig_slope == pytest.approx(slope, abs=1e-12)
    assert got.richtig_effect == pytest.approx(slope - got.physicians.richtig_slope, abs=1e-12)
    assert sum(got.answers_by_quartile or ()) == len(frame)


def test_output_shares_of_a_label_file_have_no_invalid_replies(sample: Release) -> None:
    codes = _labels(sample)
    got = _record(sample, codes).output_shares
    assert got is not None
    assert got.invalid_recorded is False and got.invalid == 0
    assert got.missing == 2  # the two answers left out
    assert got.abstained == int((codes == vocab.ABSTAIN_CODE).sum())
    assert got.answers == codes.size


def _per_question(sample: Release, codes: np.ndarray, errors: dict[int, str]) -> str:
    """A per-question JSONL file (``medqade judge``'s output) of ``codes``; the questions in
    ``errors`` have null labels and that error text."""
    students = list(sample.roster.student_ids)
    rows = []
    for i, qid in enumerate(sample.item_ids):
        row: dict[str, object] = {"question_id": str(qid), "order": students}
        for k in range(vocab.N_SLOTS):
            label = None if i in errors else vocab.CODE_LABELS.get(int(codes[i, k]))
            row[f"resp_{k + 1}"] = label
        if i in errors:
            row["error"] = errors[i]
        rows.append(row)
    return jsonl(rows)


def test_unparseable_replies_are_kept_apart_from_abstentions_and_failures(
    sample: Release,
) -> None:
    codes = np.array(sample.evaluator_labels[0], dtype=np.int8)
    text = _per_question(sample, codes, {0: "invalid: no JSON object", 1: "error: HTTP 500"})
    sub = parse_submission(text.encode(), "judge.jsonl", sample)
    assert sub.invalid is not None
    assert sub.invalid[0].all() and not sub.invalid[1:].any()
    got = score(sample, sub, settings=Settings(resamples=R, seed=SEED)).output_shares
    assert got is not None and got.invalid_recorded is True
    assert (got.invalid, got.missing) == (5, 5)
    kept = codes[2:]
    assert got.abstained == int((kept == vocab.ABSTAIN_CODE).sum())
    assert got.invalid_of_replies == pytest.approx(5 / 25)
    # the same file without the error column records no invalid replies
    plain = _per_question(sample, codes, {})
    assert parse_submission(plain.encode(), "judge.jsonl", sample).invalid is None


def test_judge_use_on_the_core_uses_the_core_items(sample: Release) -> None:
    codes = _labels(sample)
    present = np.ones(codes.shape, dtype=bool)
    core = np.asarray(sample.is_core, dtype=bool)
    got = judge_use(sample, codes, present, None, core, None, "core")
    assert got.ranking_fidelity.n_items == int(core.sum())
    assert got.output_shares.answers == int(core.sum()) * vocab.N_SLOTS
    ci = got.ranking_fidelity.kendall_tau_b_ci or ()
    assert len(ci) == 2 and all(x is not None and math.isnan(x) for x in ci)  # no resamples


def test_answer_lengths_are_characters_of_the_texts(sample: Release) -> None:
    lengths = answer_lengths(sample)
    for i in range(sample.n_items):
        for s in range(vocab.N_SLOTS):
            text = sample.answer_text[i, s]
            if isinstance(text, str):
                assert lengths[i, s] == len(text)
            else:
                assert math.isnan(lengths[i, s])


def _no_nan(x: object) -> object:
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_no_nan(v) for v in x]
    return None if isinstance(x, float) and math.isnan(x) else x


def test_where_it_fails_is_the_measure_on_the_core_with_the_verdicts_resamples(
    sample: Release,
) -> None:
    """``agreement_cells`` is :func:`cell_agreement` on the core with the core question
    resamples and the verdict's physician resamples, per specialty and tier; the score text
    prints a line per cell with its caution."""
    codes = _labels(sample)
    record = _record(sample, codes)
    got = record.agreement_cells
    assert got is not None and got.split == "core" and got.metric == "kappa"
    core = np.asarray(sample.is_core, dtype=bool)
    sub = parse_submission(codes_to_rows(sample, codes).encode(), "j.csv", sample)
    present = sub.present  # the slots with a row (a row may carry no label)
    dims = dimensions(
        sample.questions[core].reset_index(drop=True), sample.tier[core], sample.lexical[core]
    )
    dims.pop(LEXICAL)
    expected = cell_agreement(
        codes[core],
        present[core],
        sample.physician_labels[:, core],
        dims,
        tuple(sample.roster.student_ids),
        seeds.question_weights(int(core.sum()), R, SEED, seeds.STREAM_CORE),
        seeds.physician_weights(len(sample.roster.physicians), R, SEED),
    )
    assert got.to_json() == _no_nan(expected.to_json())  # a stored record holds NaN as null
    assert got.difference_interval == "questions and physicians"
    assert set(got.dimensions()) == set(dims) and "tier" in got.dimensions()
    text = summary(record)
    assert "where it fails (core, kappa in each physician's place" in text
    for cell in got.cells or ():
        assert f"  {cell.dimension} {cell.group}: judge " in text
    few = [c for c in got.cells or () if c.few_questions]
    assert few and all(c.n_questions is not None and c.n_questions < 20 for c in few)
    assert "fewer than 20 questions: read the interval, not the value" in text


def test_a_judge_without_core_rows_has_no_cells(sample: Release) -> None:
    codes = _labels(sample)
    codes[np.asarray(sample.is_core, dtype=bool)] = vocab.MISSING_CODE
    present = codes != vocab.MISSING_CODE
    assert where_it_fails(sample, codes, present, 10, 1) is None
