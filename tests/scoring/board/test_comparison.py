"""``medqade compare`` and ``medqade leaderboard``: paired differences, ranks, same numbers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from medqade.cli import main
from medqade.dataset.release import Release
from medqade.measures import reference_agreement as measured
from medqade.measures import seeds
from medqade.scoring import parse_submission
from medqade.scoring.board.comparison import CompareError, compare, resolve

from ..conftest import RESAMPLES
from ..helpers import codes_to_rows, fidelity_oracle, judge_rows, scored, student_accuracies

A, B = "gemini-2.5-flash", "gemma3:4b"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("results")


def _board(full_dir: Path, results: Path) -> list[str]:
    return ["--data", str(full_dir), "--results", str(results), "--resamples", str(RESAMPLES)]


def test_compare_same_side_is_zero(full: Release) -> None:
    side = resolve(full, A)
    c = compare(full, side, side, resamples=RESAMPLES)
    for m in ("kappa", "pa", "pabak"):
        est = getattr(c.overall, m)
        assert est.value == 0.0 and (est.low, est.high) == (0.0, 0.0)
    assert c.n_disagreements == 0 and c.better is None


def test_compare_difference_is_exactly_the_scored_difference(full: Release) -> None:
    """compare A B = kappa(A) - kappa(B) as `score` gives them, with the paired CI."""
    rec = {}
    for e in (A, B):
        k = full.roster.evaluator_ids.index(e)
        sub = parse_submission(
            codes_to_rows(full, full.evaluator_labels[k]).encode(), "j.csv", full
        )
        rec[e] = scored(full, sub, resamples=RESAMPLES)
    c = compare(full, resolve(full, A), resolve(full, B), resamples=RESAMPLES)
    assert c.overall.kappa.value == rec[A]["core"]["kappa"] - rec[B]["core"]["kappa"]
    assert c.overall.pa.value == rec[A]["core"]["pa"] - rec[B]["core"]["pa"]
    # the paired interval: percentiles of replicate differences on the same core resamples
    core = full.is_core
    w = seeds.question_weights(int(core.sum()), RESAMPLES, seeds.BOOTSTRAP_SEED)
    reps = [
        measured.agreement(
            full.evaluator_labels[full.roster.evaluator_ids.index(e)][core],
            full.consensus[core],
            full.roster.student_ids,
            w,
            abstain_disagrees=True,  # as score's core block and the verdict
        ).kappa.replicates
        for e in (A, B)
    ]
    assert reps[0] is not None and reps[1] is not None
    low, high = np.percentile(reps[0] - reps[1], [2.5, 97.5])
    assert (c.overall.kappa.low, c.overall.kappa.high) == pytest.approx((low, high), abs=1e-15)
    # not the difference of the two unpaired intervals
    a_low, a_high = rec[A]["core"]["kappa_ci"]
    b_low, b_high = rec[B]["core"]["kappa_ci"]
    assert c.overall.kappa.high - c.overall.kappa.low < (a_high - a_low) + (b_high - b_low)
    # disagreements are the answers with different substantive labels
    la = full.evaluator_labels[full.roster.evaluator_ids.index(A)][core]
    lb = full.evaluator_labels[full.roster.evaluator_ids.index(B)][core]
    subst = lambda x: (x == 0) | (x == 1)  # noqa: E731
    assert c.n_disagreements == int((subst(la) & subst(lb) & (la != lb)).sum())
    assert c.better == "a"  # Gemini 2.5 Flash over Gemma 3 4B, paired interval above 0


def test_compare_physicians_uses_the_loo_reference(full: Release) -> None:
    c = compare(full, resolve(full, "physicians"), resolve(full, A), resamples=RESAMPLES)
    core = full.is_core
    w = seeds.question_weights(int(core.sum()), RESAMPLES, seeds.BOOTSTRAP_SEED)
    loo = measured.leave_one_out(full.physician_labels[:, core], full.roster.student_ids, w)
    # the paper's leave-one-out reference: each physician on the answers it rated
    assert c.overall.a.kappa.value == loo.kappa.value
    # the judge in each physician's place: compare's difference is the record's d, negated
    record = scored(
        full,
        parse_submission(judge_rows(full, A).to_csv(index=False).encode(), "a.csv", full),
        resamples=RESAMPLES,
    )
    diff = record["physician_difference"]
    assert c.overall.kappa.value == pytest.approx(-diff["kappa"], abs=1e-15)
    # the paired table holds the panel fixed: its interval is the record's given_panel one
    assert [-c.overall.kappa.high, -c.overall.kappa.low] == pytest.approx(
        diff["given_panel"]["kappa_ci"], abs=1e-12
    )
    assert c.versus_physicians is not None
    # the verdict, its d and the core's two-way interval are the record's
    assert c.versus_physicians["verdict"] == record["verdict"]
    assert c.versus_physicians["kappa_ci"] == pytest.approx(diff["kappa_ci"], abs=1e-15)
    assert c.versus_physicians["headline"]["kappa"] == record["headline"]["kappa"]
    assert c.versus_physicians["alt_test"] == record["alt_test"]
    with pytest.raises(CompareError, match="only on the core"):
        compare(full, resolve(full, "physicians"), resolve(full, A), view="full")


def test_compare_cli_json_and_errors(
    full: Release,
    full_dir: Path,
    results: Path,
    write: Callable[[str, str | bytes], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write("mine.csv", judge_rows(full, B).to_csv(index=False))
    code, out, _ = _run(capsys, "compare", A, str(path), *_board(full_dir, results), "--json")
    assert code == 0
    data: dict[str, Any] = json.loads(out)
    assert {"a", "b", "view", "difference"} <= set(data)
    diff = data["difference"]
    assert {"kappa", "kappa_ci", "pa", "pa_ci", "pabak", "pabak_ci"} <= set(diff)
    # the file holds Gemma 3 4B's labels: the same numbers as the paper row
    code, out, _ = _run(capsys, "compare", A, B, *_board(full_dir, results), "--json")
    assert json.loads(out)["difference"]["kappa"] == diff["kappa"]
    code, _, err = _run(capsys, "compare", "nobody", A, *_board(full_dir, results))
    assert code == 2 and "not a paper evaluator" in err and "Traceback" not in err
    code, _, err = _run(
        capsys, "compare", "physicians", A, *_board(full_dir, results), "--view", "full"
    )
    assert code == 2 and "only on the core" in err
    code, out, _ = _run(capsys, "compare", A, B, *_board(full_dir, results))
    assert code == 0 and "A - B" in out and "Gemma 3 4B" in out


def test_leaderboard_cli_json_matches_score_and_reproduce(
    full: Release,
    full_dir: Path,
    results: Path,
    write: Callable[[str, str | bytes], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Done when: leaderboard, score and reproduce give identical CIs for a paper judge."""
    code, out, _ = _run(capsys, "leaderboard", *_board(full_dir, results), "--format", "json")
    assert code == 0
    board = json.loads(out)
    assert board["view"] == "core" and board["judges"] and board["models"]
    for row in board["judges"]:
        assert {"rank", "name", "model_id", "source", "kappa", "kappa_low", "kappa_high"} <= set(
            row
        ) and "verdict" in row
    for row in board["models"]:
        assert {"rank", "accuracy", "accuracy_low", "accuracy_high", "verdict"} <= set(row)
    row = next(r for r in board["judges"] if r["model_id"] == A)
    path = write("a.csv", judge_rows(full, A).to_csv(index=False))
    code, out, _ = _run(
        capsys, "score", str(path), "--data", str(full_dir), "--json", "--resamples", str(RESAMPLES)
    )
    record = json.loads(out)
    assert [row["kappa"], row["kappa_low"], row["kappa_high"]] == [
        record["core"]["kappa"],
        *record["core"]["kappa_ci"],
    ]
    assert row["verdict"] == record["verdict"]
    report_dir = results.parent / "report"
    code, _, _ = _run(
        capsys,
        "reproduce",
        "--data",
        str(full_dir),
        "--out",
        str(report_dir),
        "--resamples",
        str(RESAMPLES),
        "--format",
        "json",
    )
    assert code == 0
    table3 = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))["rq3"]
    # reproduce's Table 3 is the paper's agreement when rated: the board's secondary column
    rated = record["core"]["rated"]
    assert table3["evaluators"][A]["kappa"] == row["kappa_rated"] == rated["kappa"]
    assert table3["evaluators"][A]["kappa_ci"] == rated["kappa_ci"]
    ranks = {r["model_id"]: r["rank"] for r in board["judges"] if r["rank"] is not None}
    assert len(set(ranks.values())) > 1
    code, out, _ = _run(capsys, "leaderboard", *_board(full_dir, results))
    assert code == 0 and "| rank |" in out


def test_compare_cli_judge_file_read_by_the_command(
    full: Release,
    full_dir: Path,
    results: Path,
    write: Callable[[str, str | bytes], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The CLI still takes a local judge file; rows are looked up first; a long argument
    gets the library's message, not an OSError."""
    path = write("B.csv", judge_rows(full, B).to_csv(index=False))
    code, out, _ = _run(capsys, "compare", str(path), B, *_board(full_dir, results), "--json")
    data = json.loads(out)
    assert code == 0 and data["a"]["source"] == "submission" and data["a"]["name"] == "B.csv"
    assert data["difference"]["kappa"] == 0.0
    code, _, err = _run(capsys, "compare", "x" * 60_000, B, *_board(full_dir, results))
    assert code == 2 and "at most 200 characters" in err and "Traceback" not in err
    code, _, err = _run(capsys, "compare", "no-such.csv", B, *_board(full_dir, results))
    assert code == 2 and "or a judge submission file that exists" in err


def test_compare_breakdowns_are_the_scored_breakdown_differences(full: Release) -> None:
    """Per specialty: compare's kappa difference is the difference of the two records'
    behaviour breakdowns (core, same resamples), to the last digit."""
    rec = {}
    for e in (A, B):
        k = full.roster.evaluator_ids.index(e)
        labels = full.evaluator_labels[k].copy()
        labels[~full.is_core] = -1  # core only, like the core view of compare
        rows = codes_to_rows(full, labels, np.flatnonzero(full.is_core))
        rec[e] = scored(full, parse_submission(rows.encode(), "j.csv", full), resamples=RESAMPLES)
    c = compare(full, resolve(full, A), resolve(full, B), resamples=RESAMPLES)
    assert c.breakdowns is not None and set(c.breakdowns) == {"specialty", "lexical"}
    for dim, groups in c.breakdowns.items():
        for g, d in groups.items():
            a = rec[A]["behaviour"]["breakdowns"][dim][g]
            b = rec[B]["behaviour"]["breakdowns"][dim][g]
            assert d is not None
            assert d.kappa.value == pytest.approx(a["kappa"] - b["kappa"], abs=1e-15)
    assert c.to_dict()["breakdowns"]["lexical"]["no_match"]["kappa"] == pytest.approx(
        c.breakdowns["lexical"]["no_match"].kappa.value  # type: ignore[union-attr]
    )
    physicians = compare(full, resolve(full, A), resolve(full, "physicians"), resamples=RESAMPLES)
    assert physicians.breakdowns is None


def test_compare_shows_each_judge_s_ranking_fidelity_and_the_paired_tau_difference(
    sample: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    from scipy.stats import kendalltau

    from medqade.commands.compare import text
    from medqade.scoring.metrics import context

    a, b = sample.roster.evaluator_ids[:2]
    c = compare(sample, resolve(sample, a), resolve(sample, b), view="full", resamples=40)
    w = context.weights(sample, context.ALL, 40, seeds.BOOTSTRAP_SEED)
    assert w is not None
    oracles = []
    for side, found in zip((a, b), c.fidelity, strict=True):
        codes = sample.evaluator_labels[sample.roster.evaluator_ids.index(side)]
        oracle = fidelity_oracle(codes, sample.consensus, w)
        j, p = student_accuracies(codes, sample.consensus, range(sample.n_items))
        assert found is not None
        assert found.tau.value == pytest.approx(kendalltau(j, p).statistic, abs=1e-12)
        assert [found.tau.low, found.tau.high] == pytest.approx(oracle["tau_ci"], abs=1e-12)
        oracles.append(oracle)
    diff = np.subtract(oracles[0]["tau_reps"], oracles[1]["tau_reps"])
    d = c.tau_difference
    assert d is not None
    assert d.value == pytest.approx(oracles[0]["tau"] - oracles[1]["tau"], abs=1e-12)
    assert [d.low, d.high] == pytest.approx(np.nanpercentile(diff, [2.5, 97.5]), abs=1e-12)
    shown = text(c, {})
    lo, hi = oracles[0]["tau_ci"]
    assert f"A {oracles[0]['tau']:.3f} [{lo:.3f}, {hi:.3f}]" in shown
    assert c.to_dict()["ranking_fidelity"]["b"]["kendall_tau_b"] == c.fidelity[1].tau.value
    physicians = compare(sample, resolve(sample, "physicians"), resolve(sample, a), resamples=40)
    assert physicians.fidelity[0] is None and physicians.tau_difference is None
    assert "A the physicians' own order (the reference)" in text(physicians, {})
