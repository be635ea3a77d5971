"""What each column of the leaderboard's judges, models and per-physician tables means: one home
for the words.

The boards (:mod:`medqade.app.board_table`) show each entry as its header's tooltip (``title``)
and the About tab lists them under *What the columns mean* (:func:`markdown`), so the two never
differ. Every display column of :mod:`medqade.app.views` has an entry (a test compares them);
a column added there without one fails that test. The words describe what
:mod:`medqade.scoring.leaderboard` computes; nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from medqade import vocab

SHARED: Final[Mapping[str, str]] = {
    "rank": (
        "1 + the number of ranked rows significantly better (simultaneous paired 95% "
        "intervals); only verified rows are ranked."
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
        "physician ceiling (the physicians' own row), verified (checked by a maintainer; "
        "ranked) or self-reported (not checked, not ranked); partial: covers only part of the "
        "view."
    ),
    "n": "Answers with a resolved physician consensus that the numbers are computed on.",
    "flags": "The record's flags in words (e.g. partial coverage, above physician ceiling).",
    "id": "The record's id (first 16 characters of its content hash).",
    "model_id": "The model's id (e.g. on the Hub or the provider's API).",
    "organisation": "The organisation that submitted the row.",
}

JUDGES: Final[Mapping[str, str]] = {
    **SHARED,
    "kappa": (
        "Cohen's kappa with the physician consensus, mean over the five answer slots; an "
        "abstention or missing label counts as a disagreement."
    ),
    "kappa 95% CI": "95% bootstrap interval of kappa (question resamples).",
    "verdict": (
        "The judge in each physician's place against the other nine, minus that physician, "
        "read against the non-inferiority margin (core)."
    ),
    "vs physicians": "d: judge minus physicians, like for like on the core (the verdict's number).",
    "vs physicians 95% CI": "Paired 95% interval of d.",
    "PA": "Percent agreement with the physician consensus (0-1).",
    "PA 95% CI": "95% bootstrap interval of PA.",
    "PABAK": "Prevalence- and bias-adjusted kappa (2 PA - 1).",
    "PABAK 95% CI": "95% bootstrap interval of PABAK.",
    "abstention (%)": "Share of the view's answers the judge abstained on (Keine Angabe), in %.",
    "coverage": "Share of the view's answers the judge has a label for (1 = all).",
    "extension verdict": (
        "The same verdict on the extension items: the judge in each primary physician's place."
    ),
    "vs physicians (extension)": "d on the extension items (judge minus physicians).",
    "vs physicians (extension) 95% CI": "Paired 95% interval of the extension's d.",
    "alt-test": (
        "Alternative annotator test on the core (epsilon 0.2): pass when the judge could "
        "replace a physician (winning rate at least 0.5)."
    ),
    "winning rate": (
        "Alt-test: the share of physicians whose place the judge can take (their test rejected)."
    ),
    "kappa when rated": "Kappa on the answers the judge rated (abstentions dropped; the paper's).",
    "PA when rated": "PA on the answers the judge rated (abstentions dropped).",
    "PABAK when rated": "PABAK on the answers the judge rated (abstentions dropped).",
    "compare": "vs physicians: opens this judge against the physicians on the Compare tab.",
    "self-bias (pp)": (
        "When the judge is also one of the five student models: how much more often it calls "
        "its own answers right than the evaluators outside its family do, in percentage points."
    ),
    "self-bias (pp) 95% CI": "95% bootstrap interval of the self-bias.",
    "self-bias flag": "yes: the self-bias interval excludes 0 (a significant self-bias).",
    "caution slope (pp/tier)": (
        "Change of the judge's abstention per difficulty tier, in percentage points."
    ),
    "caution vs physicians (pp/tier)": "The caution slope minus the physicians' own.",
    "caution vs physicians 95% CI": "95% interval of the caution difference.",
    "self kappa": "Kappa of the judge with itself across repeated runs (reshuffled orders).",
    "self kappa 95% CI": "95% interval of the self kappa.",
    "physicians' self kappa": "The physicians' agreement with their own repeat ratings.",
    "position p": "p-value of a position bias (label depends on the answer's place in the list).",
    "tokens / 1,000 answers": "Tokens the judge used per 1,000 answers judged.",
    "EUR / 1,000 answers": "Cost in euros per 1,000 answers judged.",
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


def markdown() -> str:
    """The About tab's *What the columns mean*: the three tables' entries as definition lists."""
    parts = ["## What the columns mean", ""]
    tables = (
        ("Judges table", JUDGES),
        ("Models table", MODELS),
        ("Physicians one by one", PHYSICIANS),
    )
    for title, entries in tables:
        parts.append(f"**{title}**\n")
        parts.extend(f"- **{name}**: {words}" for name, words in entries.items())
        parts.append("")
    return "\n".join(parts)


__all__: Sequence[str] = ["JUDGES", "MODELS", "PHYSICIANS", "SHARED", "markdown"]
