"""What each column of the leaderboard's judges, models and per-physician tables and of Compare's
tables means: one home for the words.

The boards (:mod:`medqade.app.board_table`) show each entry as its header's tooltip (``title``)
and the About tab lists them under *What the columns mean* (:func:`markdown`), so the two never
differ. Every display column of :mod:`medqade.app.views` has an entry (a test compares them);
a column added there without one fails that test. The words describe what
:mod:`medqade.scoring.board.tables` computes; nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from medqade import vocab

SHARED: Final[Mapping[str, str]] = {
    "rank": (
        "1 + the number of ranked rows significantly better (simultaneous paired 95% "
        "intervals, each pair in its own standard error); only verified rows are ranked, the "
        "string-matching baselines are not."
    ),
    "rank range": (
        "The ranks the row could hold: from its rank to the number of ranked rows minus those "
        "significantly worse."
    ),
    "name": "Display name of the judge or model.",
    "family": "Model family (the provider's line of models): as submitted, else read from an "
    "Inspect log's model name when the roster knows the family.",
    "source": (
        "Where the row comes from: paper (the paper's evaluators), baseline, physicians, or "
        "submission (uploaded on this Space)."
    ),
    "badge": (
        "physician ceiling (the physicians' own row), verified (a maintainer ran the judge "
        "again on a sample of its questions and it reproduced its labels; ranked) or "
        "self-reported (not checked, not ranked); partial: covers only part of the view; "
        "contamination: its agreement falls from the published to the held-out items by "
        "significantly more than the physicians' does (no verdict, not ranked)."
    ),
    "n": "Answers with a resolved physician consensus that the numbers are computed on.",
    "flags": (
        "The record's flags in words (e.g. partial coverage, above physician ceiling, "
        "contamination)."
    ),
    "id": "The record's id (first 16 characters of its content hash).",
    "model_id": "The model's id (e.g. on the Hub or the provider's API).",
    "organisation": "The organisation that submitted the row.",
}

JUDGES: Final[Mapping[str, str]] = {
    **SHARED,
    "kappa": (
        "Cohen's kappa with the physician consensus, mean over the five answer slots; a "
        "judge's abstention or missing label counts as a disagreement (the physician ceiling "
        "row: each physician on the answers they rated, abstentions left out)."
    ),
    "kappa 95% CI": "95% bootstrap interval of kappa (question resamples).",
    "verdict": (
        "The one verdict: is the judge as good as a physician like these? Read from d's "
        "interval against the non-inferiority margin on kappa, whatever metric ranks the board."
    ),
    "vs physicians": (
        "d: judge minus physicians on kappa, like for like (the judge in each physician's "
        "place), the mean of core and extension (the verdict's number)."
    ),
    "vs physicians 95% CI": (
        "95% interval of d over questions and physicians: it holds for a new panel of "
        "physicians like these, not only for these ten."
    ),
    "decided on": (
        "Which d the verdict reads: pooled (core and extension), core or extension only (the "
        "extension alone when the core d is significantly above it: flag core above "
        "extension)."
    ),
    "vs physicians (core)": (
        "Evidence: d on the 200 core questions (the judge in each of ten physicians' places)."
    ),
    "vs physicians (core) 95% CI": "95% interval of the core d (questions and physicians).",
    "PA": "Percent agreement with the physician consensus (0-1).",
    "PA 95% CI": "95% bootstrap interval of PA.",
    "PABAK": "Prevalence- and bias-adjusted kappa (2 PA - 1).",
    "PABAK 95% CI": "95% bootstrap interval of PABAK.",
    "abstention (%)": "Share of the view's answers the judge abstained on (Keine Angabe), in %.",
    "coverage": "Share of the view's answers the judge has a label for (1 = all).",
    "vs physicians (extension)": (
        "Evidence: d on the extension items (the judge in each primary physician's place)."
    ),
    "vs physicians (extension) 95% CI": "95% interval of the extension d.",
    "alt-test": (
        "Alternative annotator test (Calderon et al. 2025) on the core, each answer an "
        "instance, epsilon 0.2 (the paper's value for expert annotators): pass when the judge "
        "matches the other physicians about as often as a left-out physician for at least half "
        "of the physicians. Evidence under the verdict, not a verdict."
    ),
    "winning rate": (
        "Alt-test omega: the share of physicians whose test rejected (the judge matched the "
        "others within epsilon of that physician)."
    ),
    "advantage rho": (
        "Alt-test rho: the average advantage probability, how often the judge matches the "
        "other physicians at least as well as the left-out one (the paper's measure for "
        "comparing judges)."
    ),
    "kappa when rated": "Kappa on the answers the judge rated (abstentions dropped; the paper's).",
    "PA when rated": "PA on the answers the judge rated (abstentions dropped).",
    "PABAK when rated": "PABAK on the answers the judge rated (abstentions dropped).",
    "n when rated": (
        "The answers the values when rated are computed on (few for a partial submission)."
    ),
    "compare": "vs physicians: opens this judge against the physicians on the Compare tab.",
    "self-bias (pp)": (
        "When the judge is also one of the five student models: how much more often it calls "
        "its own answers right than the evaluators outside its family do, in percentage points."
    ),
    "self-bias (pp) 95% CI": "95% bootstrap interval of the self-bias.",
    "self-bias flag": "yes: the self-bias interval excludes 0 (a significant self-bias).",
    "tau": (
        "Ranking fidelity: Kendall's tau-b between the five student models ordered by the "
        "judge's accuracy and by the physicians' (1: the physicians' order, -1: reversed), on "
        "the items the record covers. Not part of the rank."
    ),
    "tau 95% CI": "95% bootstrap interval of tau (question resamples).",
    "caution slope (pp/tier)": (
        "Change of the judge's abstention per difficulty tier, in percentage points."
    ),
    "caution vs physicians (pp/tier)": "The caution slope minus the physicians' own.",
    "caution vs physicians 95% CI": "95% interval of the caution difference.",
    "caution: sparsest tier": (
        "The difficulty tier with the fewest core questions behind the caution slope (e.g. "
        "tier 4: 11 questions); under 20, the slope leans on few questions."
    ),
    "self kappa": (
        "Kappa of the judge with itself across repeated runs (reshuffled orders); empty when "
        "the runs were decoded deterministically (temperature 0, greedy) or are identical: "
        "then it is 1 by construction, not a finding."
    ),
    "self kappa 95% CI": "95% interval of the self kappa.",
    "physicians' self kappa": "The physicians' agreement with their own repeat ratings.",
    "position p": "p-value of a position bias (label depends on the answer's place in the list).",
    "tokens / 1,000 answers": "Tokens the judge used per 1,000 answers judged.",
    "EUR / 1,000 answers": (
        "Cost in euros per 1,000 answers judged, at the prices given when scoring; the "
        "Analysis tab draws kappa against it as a Pareto frontier once two judges have a cost."
    ),
    "above ceiling": (
        "yes: the judge agrees more than the physicians' ceiling (flagged, not ranked)."
    ),
}
"""Each column of the judges table and what it means."""

MODELS: Final[Mapping[str, str]] = {
    **SHARED,
    "n": "Answers anchored to a resolved physician consensus.",
    "accuracy": (
        "Share of answers right by physician consensus (answers equal to a physician-labelled one)."
    ),
    "accuracy 95% CI": "95% Wilson interval of the accuracy.",
    "lower": "Accuracy if every unmatched answer were wrong.",
    "upper": "Accuracy if every unmatched answer were right.",
    "bounds 95% CI": "From the lower bound's low end to the upper bound's high end (95%).",
    "judged": "Accuracy with unmatched answers labelled by the named judge.",
    "judged 95% CI": "95% Wilson interval of the judged accuracy.",
    "judge": "The judge whose labels the judged accuracy uses.",
    **{
        f"T{t}": f"Accuracy on difficulty tier T{t} (T1 easiest, T4 hardest; physicians' ratings)."
        for t in vocab.TIERS
    },
    "exact match": "Accuracy on questions where some model repeated the reference answer verbatim.",
    "no match": "Accuracy on questions where no model's answer matched the reference verbatim.",
    "coverage": "Share of answers anchored to a physician-labelled answer (1 = all).",
}
"""Each column of the models table and what it means."""

PHYSICIANS: Final[Mapping[str, str]] = {
    "Physician": (
        "The physician's code in the panel; (adjudicator): the tenth physician, who rated the "
        "extension items whose two primary ratings did not settle the consensus."
    ),
    "Core kappa (LOO)": (
        "Cohen's kappa with the consensus of the other nine on the core (leave-one-out), mean "
        "over the five answer slots, with its 95% bootstrap interval: the terms the physician "
        "ceiling averages."
    ),
    "Core PA": "Percent agreement with the other nine's consensus on the core, 95% interval.",
    "Core PABAK": "Prevalence- and bias-adjusted kappa (2 PA - 1) on the core, 95% interval.",
    "Ext. kappa vs partner": (
        "Kappa with the other primary physician who rated the same extension items (n/a for "
        "the adjudicator)."
    ),
    "Ext. kappa vs adjudicator": (
        "Kappa with the adjudicator on the extension items both rated (n/a for the adjudicator)."
    ),
    **{
        f"Abstain T{t}": (
            f"Share of the answers on difficulty tier T{t} the physician abstained on "
            "(Keine Angabe), in % (T1 easiest, T4 hardest)."
        )
        for t in vocab.TIERS
    },
    "Fleiss without": (
        "Fleiss' kappa of the panel on the core without this physician, 95% interval; in "
        "brackets the change, without minus with (positive: the panel agrees more without)."
    ),
    "Intra kappa": (
        "Kappa of the physician's first rating with their own re-rating (re-rated items), mean "
        "over the slots."
    ),
    "Intra PA": "Percent agreement of the first rating with the re-rating.",
    "Kappa gap [adjusted]": (
        "The physician's core kappa minus the mean of the others', with its paired interval "
        "adjusted for the panel (Bonferroni)."
    ),
    "Verdict": (
        "From the adjusted interval of the kappa gap: outlier (entirely below 0), above the "
        "panel (entirely above 0), else consistent."
    ),
    "Review codes": (
        "Review codes of the answers where the physician's label differs from the paper "
        "evaluators' majority vote, with their counts."
    ),
}
"""Each column of the per-physician table (``medqade panel``'s Table S4) and what it means."""


COMPARE: Final[Mapping[str, str]] = {
    "A": "Row A's value (the judge picked as A above): kappa, PA or PABAK as the row says.",
    "B": "Row B's value (the judge picked as B above), on the same questions as A.",
    "A - B": "A's value minus B's (positive: A agrees more with the physician consensus).",
    "A - B 95% paired CI": (
        "95% interval of A - B from the same question resamples for both rows (paired, so "
        "narrower than two separate intervals suggest)."
    ),
    "significant": "yes: the paired interval excludes 0 (decided on unrounded values).",
}
"""Each column of Compare's difference tables (macro, per slot, per tier) and what it means;
the first column names the row."""

COMPARE_ANSWERS: Final[Mapping[str, str]] = {
    "answer": "The answer's id: the question's id / the student model that wrote the answer.",
    "A": (
        "A's label of the answer, richtig or falsch (the physicians' row: their consensus). "
        "Listed are the answers both rows labelled, with opposite labels; abstentions are not."
    ),
    "B": "B's label of the answer, the opposite of A's.",
    "consensus": "The physicians' consensus label (unresolved when they did not settle it).",
    "open in Browse": "Opens the question on the Browse tab, with every label of its answers.",
}
"""Each column of Compare's answers labelled differently and what it means."""


def markdown() -> str:
    """The About tab's *What the columns mean*: the tables' entries as definition lists."""
    parts = ["## What the columns mean", ""]
    tables = (
        ("Judges table", JUDGES),
        ("Models table", MODELS),
        ("Physicians one by one", PHYSICIANS),
        ("Compare: A against B", COMPARE),
        ("Compare: answers labelled differently", COMPARE_ANSWERS),
    )
    for title, entries in tables:
        parts.append(f"**{title}**\n")
        parts.extend(f"- **{name}**: {words}" for name, words in entries.items())
        parts.append("")
    return "\n".join(parts)


__all__: Sequence[str] = [
    "COMPARE",
    "COMPARE_ANSWERS",
    "JUDGES",
    "MODELS",
    "PHYSICIANS",
    "SHARED",
    "markdown",
]
