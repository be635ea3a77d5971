"""Display formatting: rounding, CI text, badges, column choice and search."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from medqade import vocab
from medqade.app import cells, result_views, views
from medqade.app.cells import ci_text
from medqade.app.phone import judges_cards
from medqade.measures.aat import alt_test
from medqade.scoring import JUDGE_COLUMNS, JudgeRow
from medqade.scoring.record.score_record import read_record


def _judge(**given: object) -> JudgeRow:
    """A judge row with ``given`` columns (every other column empty)."""
    return JudgeRow.from_json({c: None for c in JUDGE_COLUMNS} | {"flags": ""} | given)


def test_badge() -> None:
    assert views.badge(read_record({"flags": ["physician_reference"]})) == "physician ceiling"
    assert views.badge(read_record({"meta": {"verified": True}})) == "verified"
    assert (
        views.badge(read_record({"meta": {}, "flags": ["partial_coverage"]}))
        == "self-reported, partial"
    )


def test_judges_table_formats_the_library_decisions() -> None:
    """The self-bias flag and the verdict are the library's columns, shown as they are."""
    row = {c: None for c in JUDGE_COLUMNS} | {
        "name": "J",
        "status": "verified",
        "scope": "core",
        "rank": 2,
        "rank_worst": 4,
        "kappa": 0.61234,
        "self_bias": 0.0004,
        "self_bias_low": 0.00001,
        "self_bias_high": 0.0008,
        "self_bias_significant": True,  # rounds to 0.000 - 0.001 but is significant
        "verdict": "inconclusive",
        "d": -0.05,
        "d_low": -0.1,
        "d_high": 0.0,
        "d_physicians": -0.04,
        "d_physicians_low": -0.12,
        "d_physicians_high": 0.03,
        "id": "abc",
    }
    out = views.judges_table([JudgeRow.from_json(row)])
    assert out.loc[0, "rank"] == 2 and out.loc[0, "rank range"] == "2–4"
    assert out.loc[0, "self-bias flag"] == "yes"
    assert out.loc[0, "verdict"] == "inconclusive"
    assert out.loc[0, "vs physicians 95% CI"] == "-0.100 – 0.000"
    assert out.loc[0, "vs physicians (core) 95% CI"] == "-0.120 – 0.030"
    row["self_bias_significant"] = False
    assert views.judges_table([JudgeRow.from_json(row)]).loc[0, "self-bias flag"] == ""


def test_select_search_and_column_groups() -> None:
    table = pd.DataFrame(
        {
            "rank": [1.0, 2.0],
            "rank range": ["1", "1–2"],
            "name": ["Alpha", "Beta"],
            "family": ["GPT", "Gemma"],
            "source": ["paper", "submission"],
            "badge": ["verified", "self-reported"],
            "above ceiling": ["", ""],
            "kappa": [0.7, 0.5],
            "kappa 95% CI": ["", ""],
            "PA": [0.9, 0.8],
            "PA 95% CI": ["", ""],
            "model_id": ["a", "b"],
            "organisation": ["Org <b>", ""],
        }
    )
    out = views.select(table, views.JUDGE_GROUPS, ["kappa"], "org <B")
    assert out["name"].tolist() == ["Alpha"]
    assert list(out.columns) == [*views.IDENTITY, "kappa", "kappa 95% CI"]
    assert cells.datatypes(out)[:2] == ["number", "str"]


def test_problems_table_lists_every_problem() -> None:
    from medqade.files.problems import Problem

    frame = views.problems_table(
        [Problem("f.csv", 3, "bad label", column="label", value="x", fix="use Richtig")]
    )
    assert frame.to_dict("records") == [
        {
            "line": "line 3",
            "column": "label",
            "value": "x",
            "problem": "bad label",
            "fix": "use Richtig",
        }
    ]


def test_phone_card_shows_the_rank_range() -> None:
    rows = [
        _judge(name="Alpha <b>", rank=1, rank_worst=3, kappa=0.7, kappa_low=0.65, kappa_high=0.75),
        _judge(name="Beta", kappa=0.5, verdict="non-inferior"),
    ]
    html_text = judges_cards(rows, "core")
    assert '<span class="mq-card-rank">1–3</span>' in html_text
    assert '<span class="mq-card-rank">–</span>' in html_text  # not ranked
    assert "Alpha &lt;b&gt;" in html_text
    assert "κ 0.700 <small>(0.650 – 0.750)</small>" in html_text and "κ 0.500</span>" in html_text


def test_phone_cards_badge_the_physicians_verified_and_self_reported_rows() -> None:
    """Issue 27: a self-reported row cannot pass for the physician row on a phone: each card
    carries its badge word in its own class, from the row's flags and verified status."""
    rows = [
        _judge(name="Physicians (leave-one-out)", status="reference", flags="physician_reference"),
        replace(_judge(name="A"), verified=True),
        _judge(name="B"),
        _judge(name="C", flags="partial_coverage"),
    ]
    cards = judges_cards(rows, "core").split('<li class="mq-card">')[1:]
    assert '<span class="mq-badge mq-b-physicians">physicians</span>' in cards[0]
    assert "Physicians (leave-one-out) — ceiling" in cards[0]
    assert '<span class="mq-badge mq-b-verified">verified</span>' in cards[1]
    assert '<span class="mq-badge mq-b-self">self-reported</span>' in cards[2]
    assert '<span class="mq-badge mq-b-self">self-reported, partial</span>' in cards[3]
    assert all(card.count("mq-badge") == 1 for card in cards)


def test_every_verdict_word_reaches_the_phone_card() -> None:
    """The phone cards show the library's verdict words as they are (one constant tuple), in
    a cell that wraps (a long word never widens the card)."""
    from medqade.app import page_head, phone
    from medqade.measures.paired import VERDICTS

    rows = [_judge(rank=i + 1, name=f"J{i}", kappa=0.5, verdict=v) for i, v in enumerate(VERDICTS)]
    cards = phone.judges_cards(rows, "core")
    for v in VERDICTS:
        assert f'<span class="mq-card-verdict">{v}</span>' in cards
    css = next(line for line in page_head.CSS.splitlines() if line.startswith(".mq-card-verdict"))
    assert "overflow-wrap: anywhere" in css


def test_cards_and_tables_keep_the_same_rows_of_a_search() -> None:
    """The phone cards search the rows, the tables their display cells: the same rows."""
    rows = [
        _judge(name="Alpha", model_id="gpt-x", family="GPT", source="paper"),
        replace(_judge(name="Beta", source="submission"), organisation="Klinik <B>"),
        _judge(name="Physicians", status="reference", scope="core", source="physicians"),
        replace(_judge(name="Gamma", flags="partial_coverage"), verified=True),
    ]
    for view in ("core", "full"):
        table = views.judges_table(rows, view)
        for needle in ("", "a", "klinik <b", "GPT", "ceiling", "(core)", "verified, partial", "x"):
            kept = [r.name for r in views.matching(rows, needle, view)]
            shown = views.select(table, views.JUDGE_GROUPS, [], needle)["name"]
            assert [n.split(" — ")[0].split(" (")[0] for n in shown] == kept, needle


def test_bias_unit_percentage_points_everywhere(sample_release) -> None:
    """Self and family bias has one unit on the Leaderboard, Submit and Figure 3: percentage
    points, named in the headers (the tables showed proportions; the figure's axis label is
    checked in tests/analyses/test_figures.py)."""
    row = {c: None for c in JUDGE_COLUMNS} | {
        "name": "J",
        "self_bias": 0.034,
        "self_bias_low": -0.0123,
        "self_bias_high": 0.0801,
        "id": "abc",
    }
    out = views.judges_table([JudgeRow.from_json(row)])
    assert out.loc[0, "self-bias (pp)"] == 3.4
    assert out.loc[0, "self-bias (pp) 95% CI"] == "-1.2 – 8.0"
    assert "self-bias (pp)" in views.JUDGE_GROUPS["self-bias"]
    target = {"kind": "self", "student": "x", "bias": -0.05, "bias_ci": [-0.1, 0.0], "n": 12}
    table = result_views.bias_table(
        read_record({"bias": {"targets": [target]}}), sample_release.roster
    )
    assert list(table.columns) == ["kind", "student", "bias (pp)", "bias (pp) 95% CI", "n"]
    assert table.loc[0, "bias (pp)"] == -5.0
    assert table.loc[0, "bias (pp) 95% CI"] == "-10.0 – 0.0"


def test_verdict_sits_beside_kappa_in_the_table_and_the_csv() -> None:
    """Issue 27: the verdict follows kappa's CI in the judges table (whatever groups are
    chosen) and in the Space's judges CSV; the CSV keeps every library column and value."""
    row = {c: 0.5 for c in JUDGE_COLUMNS} | {"name": "J", "id": "abc", "verdict": "inferior"}
    table = views.judges_table([JudgeRow.from_json(row)])
    shown = views.select(table, views.JUDGE_GROUPS, views.DEFAULT_GROUPS, "")
    cols = list(shown.columns)
    at = cols.index("kappa 95% CI")
    assert cols[at - 1 : at + 2] == ["kappa", "kappa 95% CI", "verdict"]
    library = pd.DataFrame([row], columns=list(JUDGE_COLUMNS))
    export = views.judges_export(library)
    cols = list(export.columns)
    assert sorted(cols) == sorted(JUDGE_COLUMNS)
    at = cols.index("kappa_high")
    assert cols[at + 1 : at + 6] == list(views.JUDGE_EXPORT_FIRST)
    assert [c for c in cols if c not in views.JUDGE_EXPORT_FIRST] == [
        c for c in JUDGE_COLUMNS if c not in views.JUDGE_EXPORT_FIRST
    ]
    assert export.loc[0, "verdict"] == "inferior"


def test_the_alt_test_shows_rho_beside_omega_and_the_question_variant() -> None:
    rng = np.random.default_rng(6)
    truth = rng.integers(0, 2, size=(60, 5))
    phys = np.where(rng.random((4, 60, 5)) < 0.1, 1 - truth[None], truth[None])
    alt = alt_test(truth, phys)
    assert alt.by_question is not None
    record = read_record({"kind": "judge", "alt_test": alt.to_dict()})
    table = result_views.summary_table(record)
    rows = {(r["scope"], r["metric"]): r["value"] for r in table.to_dict("records")}
    answers = "alt-test, answers (epsilon 0.2; evidence, not a verdict): pass"
    word = "pass" if alt.by_question.passed else "fail"
    questions = f"alt-test, questions (robustness): {word}"
    assert rows[(answers, "winning rate")] == round(alt.omega, 3)
    assert rows[(answers, "advantage rho")] == round(alt.rho, 3)
    assert rows[(questions, "advantage rho")] == round(alt.by_question.rho, 3)
    line = views.headline(record)
    assert f"alt-test (evidence, not a verdict): pass, omega {round(alt.omega, 2)}" in line
    assert f"rho {round(alt.rho, 2)}" in line
    row = {c: None for c in JUDGE_COLUMNS} | {
        "name": "J",
        "status": "verified",
        "scope": "core",
        "alt_test_passed": True,
        "alt_test_winning_rate": 0.9,
        "alt_test_rho": 0.81234,
        "id": "abc",
    }
    out = views.judges_table([JudgeRow.from_json(row)])
    assert out.loc[0, "alt-test"] == "pass" and out.loc[0, "winning rate"] == 0.9
    assert out.loc[0, "advantage rho"] == 0.812
    assert "advantage rho" in views.JUDGE_GROUPS["alt-test"]
    # a record scored before answers were the instances shows no alt-test row
    old = read_record({"kind": "judge", "alt_test": {"epsilon": 0.2, "winning_rate": 0.5}})
    assert not any("alt-test" in s for s in result_views.summary_table(old)["scope"])


def test_agreement_when_rated_has_its_n_in_the_judges_table() -> None:
    """A partial row's kappa when rated rests on the answers it labelled, far fewer than the
    view's n: the table shows that count beside it (the row's own ``n_rated``)."""
    row = {c: None for c in JUDGE_COLUMNS} | {
        "name": "P",
        "status": "partial",
        "scope": "core",
        "n": 983,
        "kappa_rated": 0.8,
        "n_rated": 165,
        "id": "p1",
    }
    out = views.judges_table([JudgeRow.from_json(row)])
    assert out.loc[0, "n when rated"] == 165 and out.loc[0, "n"] == 983
    assert "n when rated" in views.JUDGE_GROUPS["when rated"]
    shown = views.select(out, views.JUDGE_GROUPS, ["when rated"], "")
    assert list(shown.columns)[-4:] == [
        "kappa when rated",
        "PA when rated",
        "PABAK when rated",
        "n when rated",
    ]


def test_the_physicians_row_of_a_result_says_their_abstentions_are_dropped() -> None:
    record = read_record(
        {"kind": "judge", "physician_reference": {"kappa": 0.742, "pa": 0.9, "n": 96}}
    )
    table = result_views.summary_table(record)
    (scope,) = set(table.loc[table["value"] == 0.742, "scope"])
    assert scope == "physicians (LOO ceiling, each on the answers rated)"


def test_the_judge_view_shows_ranking_fidelity_and_the_board_its_tau(sample_release) -> None:
    """The Submit tab's fidelity table carries the record's numbers, its tau row equals
    scipy's tau of the per-student accuracies it lists; the judges table shows tau and its
    interval as the library's row holds them."""
    from scipy.stats import kendalltau

    from medqade.scoring import parse_submission, score
    from medqade.scoring.intake.settings import Settings

    codes = np.array(sample_release.evaluator_labels[0], dtype=np.int8)
    rows = ["question_id,model,label"]
    for i, qid in enumerate(sample_release.item_ids):
        for s, m in enumerate(sample_release.roster.student_ids):
            label = vocab.CODE_LABELS.get(int(codes[i, s]), "")
            rows.append(f"{qid},{m},{label}")
    sub = parse_submission("\n".join(rows).encode(), "j.csv", sample_release)
    record = score(sample_release, sub, settings=Settings(resamples=20, seed=4))
    table = result_views.fidelity_table(record, sample_release.roster)
    students = table.iloc[: vocab.N_SLOTS]
    exact = [s.judge for s in record.ranking_fidelity.students]  # type: ignore[union-attr]
    physicians = [s.physicians for s in record.ranking_fidelity.students]  # type: ignore[union-attr]
    assert list(students["judge"]) == [round(x, 3) for x in exact]
    tau_row = table[table["student"] == "order: Kendall tau-b"].iloc[0]
    assert tau_row["judge"] == round(kendalltau(exact, physicians).statistic, 3)
    assert table.iloc[-1]["student"].startswith("largest |error|")
    assert result_views.fidelity_table(read_record({}), sample_release.roster).empty
    library = {c: 0.5 for c in JUDGE_COLUMNS} | {"name": "J", "id": "abc"}
    library |= {"tau": 0.6, "tau_low": 0.2, "tau_high": 1.0}
    shown = views.judges_table([JudgeRow.from_json(library)])
    assert shown.loc[0, "tau"] == 0.6 and shown.loc[0, "tau 95% CI"] == ci_text(0.2, 1.0)
    assert views.JUDGE_GROUPS["ranking fidelity"] == ("tau", "tau 95% CI")
    default = views.select(shown, views.JUDGE_GROUPS, views.DEFAULT_GROUPS, "")
    assert {"tau", "tau 95% CI"} <= set(default.columns)  # a default column (issue 37)


def test_the_judge_view_shows_where_it_fails_by_cell() -> None:
    """The Submit tab's cell table carries the record's numbers rounded, the interval as one
    text cell, the counts and a caution on a cell under the record's threshold."""
    block = {
        "dimension": "tier",
        "group": "T4",
        "judge": 0.41234,
        "judge_ci": [0.2, 0.6],
        "physicians": 0.55,
        "physicians_ci": [0.4, 0.7],
        "difference": -0.13766,
        "difference_ci": [-0.3, 0.05],
        "n_questions": 11,
        "n_answers": 55,
        "few_questions": True,
    }
    wide = block | {"group": "T1", "n_questions": 90, "n_answers": 450, "few_questions": False}
    record = read_record(
        {"kind": "judge", "agreement_cells": {"min_questions": 20, "cells": [wide, block]}}
    )
    table = result_views.cells_table(record)
    assert list(table.columns) == list(result_views.CELL_COLUMNS)
    assert list(table["group"]) == ["T1", "T4"]
    row = table.iloc[1]
    assert row["judge kappa"] == 0.412 and row["judge - physicians"] == -0.138
    assert row["difference 95% CI"] == ci_text(-0.3, 0.05)
    assert row["questions"] == 11 and row["answers"] == 55
    assert "fewer than 20 questions" in row["caution"] and table.iloc[0]["caution"] == ""
    assert result_views.cells_table(read_record({})).empty


def test_the_summary_shows_the_held_out_check_per_scope_and_its_decision() -> None:
    """A record scored with held-out labels: one row per scope (the excess drop and its
    interval) and one with the combined p value and the decision in words."""
    section = {
        "p_value": 0.004,
        "alpha": 0.05,
        "flagged": True,
        "n_held_out": 1140,
        "scopes": [
            {"scope": "core", "excess": 0.1234, "excess_ci": [0.05, 0.2], "n_held_out": 59},
            {"scope": "all", "excess": 0.01, "excess_ci": [-0.02, 0.04], "n_held_out": 1140},
        ],
    }
    record = read_record({"kind": "judge", "contamination": section})
    rows = result_views.summary_table(record).to_dict("records")
    held = [r for r in rows if str(r["scope"]).startswith("held-out check")]
    assert [r["scope"] for r in held] == [
        "held-out check, core",
        "held-out check, all",
        "held-out check",
    ]
    assert held[0]["value"] == 0.123 and "0.050" in held[0]["95% CI"]
    assert "flagged contamination" in held[2]["metric"] and held[2]["value"] == 0.004
    plain = read_record({"kind": "judge"})
    assert not any("held-out" in str(s) for s in result_views.summary_table(plain)["scope"])


def test_summary_shows_the_held_out_check_with_its_interval() -> None:
    """A record scored with held-out labels: one row per scope (its excess drop and 95% CI as
    the other rows write intervals) and the decision row."""
    record = read_record(
        {
            "kind": "judge",
            "contamination": {
                "p_value": 0.5,
                "flagged": False,
                "n_held_out": 3,
                "scopes": [
                    {"scope": "core", "excess": 0.0312, "excess_ci": [-0.1, 0.2], "n_held_out": 1}
                ],
            },
        }
    )
    table = result_views.summary_table(record)
    held = table[table["scope"].str.startswith("held-out check")]
    assert held["scope"].tolist() == ["held-out check, core", "held-out check"]
    first = held.iloc[0]
    assert first["95% CI"] == ci_text(-0.1, 0.2) and first["value"] == cells.number(0.0312)
    assert "not flagged" in held.iloc[1]["metric"]
