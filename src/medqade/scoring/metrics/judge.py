"""Judge scoring: a labeller's agreement with the physician consensus, and everything around it.

Headline (``core``): per slot PA, Cohen's kappa and PABAK against the ten-physician consensus
on the 200 core questions, macro mean over the five slots, 95% percentile CIs from question
bootstrap weights, an abstention counting as a disagreement. This is
:func:`medqade.measures.reference_agreement.agreement` with the core question weights of
:mod:`medqade.measures.seeds`; its ``rated`` values (abstentions dropped) equal ``medqade
reproduce`` (RQ3) to the last digit. ``full`` is the same on all items (unresolved slots
excluded).

Around it, on the items the submission covers (all items when it covers any extension item,
else the core), with the same weights (a subgroup statistic is bootstrapped by resampling all
questions and recomputing it in the subgroup, so its CI is paired with the headline):

- the one verdict (:func:`medqade.measures.verdicts.judge_headline`, the same for every
  surface): the like-for-like differences on the core (the judge in each physician's place
  against the majority of the other nine) and on the extension (in each primary physician's
  place against the other), kappa, PA and PABAK with intervals over questions and
  physicians, pooled by the stated rule into one kappa ``d`` read against the margin; the
  alternative annotator test on the core as evidence. Each physician's term is computed on
  the answers that physician rated; there a judge's abstention counts as a disagreement. A
  verdict ``above physicians`` raises the flag ``above_physician_ceiling``; the core
  difference with the judge's abstentions dropped is kept under ``rated``;
- ``core`` and ``full`` count an abstention or missing label as a disagreement (the verdict and
  the rank read these), with the paper's agreement when rated under ``rated``, coverage and
  the view's abstention share beside it;
- self and family bias (RQ4) when the judge's family is a student family: per response the
  judge's score (Richtig 1, Falsch 0) minus the mean score of the reference evaluators outside
  that family, averaged over the responses of its own model (self) or of each sibling student
  (family), with a question-bootstrap CI on RQ4's own resample stream (so a reference
  evaluator's numbers equal RQ4's) and whether that CI excludes 0;
- confusion matrix, per-tier and per-stratum agreement, and the answer ids where the judge
  contradicts a unanimous physician panel (at least two non-abstaining physicians, all
  agreeing);
- majority-vote ensembles with the reference evaluators (core, in-sample, the paper's rule):
  the best panel of each size containing the judge vs the best without it, chosen by
  macro-kappa, with the paired CI of the difference;
- what the judge is used for (:mod:`medqade.scoring.metrics.judge_use`): ranking fidelity,
  length bias and output shares (unparseable replies apart from abstentions), on the same
  items and resamples; and where it fails: kappa per specialty and difficulty tier in each
  physician's place beside the physicians' own (core);
- on a release scored with held-out labels, the contamination check
  (:mod:`medqade.scoring.metrics.holdout_check`): a judge whose agreement falls from the
  published to the held-out items by significantly more than the physicians' is flagged
  ``contamination`` and gets no verdict (and so no rank).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import (
    ABOVE,
    PRIMARY,
    agreement,
    check_margin,
    grouped_agreement,
    judge_headline,
    judge_in_place,
)
from medqade.measures import Agreement as MeasuredAgreement
from medqade.measures import alt_test as measure_alt_test
from medqade.measures import behaviour as measure_behaviour
from medqade.scoring.intake import Settings
from medqade.scoring.metrics import context
from medqade.scoring.metrics.breakdowns import abstention, bias, confusion, disagreements
from medqade.scoring.metrics.ensembles import ensembles
from medqade.scoring.metrics.holdout_check import contamination_check
from medqade.scoring.metrics.judge_use import judge_use, where_it_fails
from medqade.scoring.record import (
    Abstention,
    Agreement,
    AgreementCells,
    AltTest,
    Bias,
    ContaminationCheck,
    Counts,
    Difference,
    Disagreements,
    Ensembles,
    Headline,
    LengthBias,
    OutputShares,
    RankingFidelity,
    Replicates,
    agreement_block,
    macro_block,
    rated_block,
    section,
)

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Codes = npt.NDArray[np.int8]

ABOVE_CEILING: Final = "above_physician_ceiling"
PARTIAL: Final = vocab.PARTIAL_COVERAGE
NO_CORE: Final = "no_core"
RANKED_METRICS: Final = ("kappa", "pa")
"""Metrics whose replicates a record keeps (PABAK = 2 PA - 1 ranks as PA does)."""


def view_block(
    agr: MeasuredAgreement,
    rated: MeasuredAgreement,
    labels: Codes,
    present: npt.NDArray[np.bool_],
) -> Agreement:
    """A view's block: agreement with abstentions (and missing labels) as disagreements, the
    paper's agreement when rated beside it, coverage and abstention over the view's answers."""
    return agreement_block(agr).updated(
        rated=rated_block(rated),
        coverage=float(present.mean()) if present.size else float("nan"),
        abstention=(
            float((present & (labels == vocab.ABSTAIN_CODE)).mean())
            if present.size
            else float("nan")
        ),
        n_items=int(present.any(axis=1).sum()),
    )


@dataclass(frozen=True)
class Views:
    """A judge's agreement with the consensus on the core and on all items (``None`` without
    labels there): abstentions as disagreements, when rated, and their record blocks."""

    core: MeasuredAgreement | None = None
    full: MeasuredAgreement | None = None
    rated_core: MeasuredAgreement | None = None
    rated_full: MeasuredAgreement | None = None
    core_block: Agreement | None = None
    full_block: Agreement | None = None


def views(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    w_core: Any,
    w_all: Any,
    has_core: bool,
    has_ext: bool,
) -> Views:
    """The ``core`` and ``full`` blocks of :func:`judge_metrics` and the agreements behind."""
    students = release.roster.student_ids
    core = context.mask(release, context.CORE)
    consensus = release.consensus
    shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)
    c = rc = f = rf = None
    if has_core:
        c = agreement(shown[core], consensus[core], students, w_core, abstain_disagrees=True)
        rc = agreement(labels[core], consensus[core], students, w_core)
    if has_ext:
        f = agreement(shown, consensus, students, w_all, abstain_disagrees=True)
        rf = agreement(labels, consensus, students, w_all)
    return Views(
        core=c,
        full=f,
        rated_core=rc,
        rated_full=rf,
        core_block=None
        if c is None or rc is None
        else view_block(c, rc, labels[core], present[core]),
        full_block=None if f is None or rf is None else view_block(f, rf, labels, present),
    )


@dataclass(frozen=True)
class Against:
    """The judge against the physicians: the record's ``physician_difference``,
    ``extension_difference``, ``headline`` and ``alt_test`` sections and the verdict word."""

    core: Difference | None
    extension: Difference | None
    headline: Headline
    alt_test: AltTest | None
    verdict: str | None
    flags: tuple[str, ...]


def against_physicians(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    settings: Settings,
    contaminated: bool = False,
) -> Against:
    """The one verdict of the judge (:func:`medqade.measures.verdicts.judge_headline`, the
    same for every surface), its designs, the core difference with the judge's abstentions
    dropped (``rated``, secondary) and the alt-test on the core. The measures give these
    sections as their record blocks, read here into the record's types. ``contaminated``: the
    held-out check flagged the judge (no verdict)."""
    resamples, seed = settings.resamples, settings.seed
    students = release.roster.student_ids
    core = context.mask(release, context.CORE)
    has_core = bool(present[core].any())
    w_core = context.float_weights(release, context.CORE, resamples, seed)
    w_all = context.float_weights(release, context.ALL, resamples, seed)
    panel = context.panel_weights(release, resamples, seed)
    their_side = context.physicians_in_place(release, resamples, seed)
    found = judge_headline(
        labels,
        present,
        core,
        release.physician_labels,
        context.extension_pairs(release),
        students,
        (w_core, w_all, panel),
        check_margin(settings.margin),
        their_side,
        contaminated=contaminated,
    )
    core_block = None if found.core is None else Difference.from_json(found.core.to_dict())
    alt = None
    if core_block is not None and has_core:
        physicians = release.physician_labels[:, core]
        shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)
        when_rated = judge_in_place(
            labels[core],
            physicians,
            students,
            w_core,
            physicians=their_side,
            abstain_disagrees=False,
        ).difference(PRIMARY, panel)
        core_block = core_block.updated(rated=when_rated.to_dict(PRIMARY))
        alt = AltTest.from_json(measure_alt_test(shown[core], physicians).to_dict())
    extension = found.extension
    return Against(
        core=core_block,
        extension=None if extension is None else Difference.from_json(extension.to_dict()),
        headline=Headline.from_json(found.to_dict()),
        alt_test=alt,
        verdict=found.verdict,
        flags=found.flags,
    )


def breakdowns(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    items: npt.NDArray[np.bool_],
    w_items: Any,
    rated_scope: MeasuredAgreement | None,
    split: str,
) -> tuple[Abstention, Mapping[str, MeasuredAgreement | None]]:
    """``(abstention, strata)`` on ``items`` (the ``split``): abstention by tier with the
    agreement when rated, and the agreement per tier and per lexical stratum."""
    lab = labels[items]
    tiers = release.tier[items]
    lexical = release.lexical[items]
    abst = abstention(lab, present[items], tiers)
    groups = {f"tier{t}": tiers == t for t in vocab.TIERS}
    groups |= {"exact_match": lexical, "no_match": ~lexical}
    strata = grouped_agreement(
        lab, release.consensus[items], groups, release.roster.student_ids, w_items
    )
    abst = abst.updated(
        split=split,
        agreement_non_abstained=None if rated_scope is None else rated_block(rated_scope),
    )
    return abst, strata


@dataclass(frozen=True)
class JudgeMetrics:
    """Every scored section of a judge record, typed (:func:`judge_metrics`); the record's
    keys in the order it writes them."""

    core: Agreement | None
    full: Agreement | None
    physician_reference: Agreement
    physician_difference: Difference | None
    verdict: str | None
    headline: Headline
    extension_difference: Difference | None
    alt_test: AltTest | None
    abstention: Abstention
    bias: Bias | None
    confusion: Mapping[str, Counts | None]
    by_tier: Mapping[str, Agreement | None]
    by_lexical: Mapping[str, Agreement | None]
    disagreements: Disagreements
    ensembles: Ensembles | None
    replicates: Replicates | None
    flags: tuple[str, ...]
    behaviour: Any
    """The behaviour section's JSON (:meth:`medqade.measures.judge_behaviour.Behaviour.to_json`)."""
    ranking_fidelity: RankingFidelity
    length_bias: LengthBias | None
    output_shares: OutputShares
    agreement_cells: AgreementCells | None
    contamination: ContaminationCheck | None = None


def judge_metrics(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    settings: Settings | None = None,
    *,
    family: str | None = None,
    model_id: str | None = None,
    exclude_evaluator: str | None = None,
    behaviour: Mapping[str, Any] | None = None,
    invalid: npt.NDArray[np.bool_] | None = None,
) -> JudgeMetrics:
    """All judge metrics for ``labels`` (items, 5) with rows ``present`` (items, 5), scored
    with ``settings`` (resamples, seed, margin; the defaults without).

    ``behaviour`` holds the keyword inputs of :func:`medqade.measures.judge_behaviour.behaviour`
    beyond the labels (``positions``, ``runs``, ``usage``); its result is the ``behaviour``
    section. ``exclude_evaluator`` leaves a reference evaluator (the judge itself) out of the
    ensemble pool; ``settings.margin`` is the non-inferiority margin of the verdict;
    ``invalid`` (items, 5) marks the replies that could not be parsed (``None``: the
    submission cannot say, a plain label file).
    """
    settings = settings or Settings()
    resamples, seed = settings.resamples, settings.seed
    core = context.mask(release, context.CORE)
    consensus = release.consensus
    has_core = bool(present[core].any())
    has_ext = bool(present[~core].any())
    w_core = context.float_weights(release, context.CORE, resamples, seed)
    w_all = context.float_weights(release, context.ALL, resamples, seed) if has_ext else None
    flags: list[str] = [] if has_core else [NO_CORE]

    reference = context.physician_reference(release, resamples, seed)
    shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)
    seen = views(release, labels, present, w_core, w_all, has_core, has_ext)
    check = contamination_check(release, labels, present, settings)
    flagged = check is not None and check.flagged is True
    against = against_physicians(release, labels, present, settings, contaminated=flagged)
    flags.extend(against.flags)
    if against.verdict == ABOVE:
        flags.append(ABOVE_CEILING)
    items = context.mask(release, context.ALL if has_ext else context.CORE)
    w_items = w_all if has_ext else w_core
    rated_scope = seen.rated_full if has_ext else seen.rated_core
    split = "all" if has_ext else "core"
    abst, strata = breakdowns(release, labels, present, items, w_items, rated_scope, split)
    kept = {
        view: None if agr is None else {m: agr.metric(m) for m in RANKED_METRICS}
        for view, agr in (("core", seen.core), ("full", seen.full))
    }
    phys = context.physicians_in_place(release, resamples, seed).agreement
    use = judge_use(release, labels, present, invalid, items, w_items, split)
    return JudgeMetrics(
        core=seen.core_block,
        full=seen.full_block,
        physician_reference=agreement_block(phys).updated(rated=rated_block(reference)),
        physician_difference=against.core,
        verdict=against.verdict,
        headline=against.headline,
        extension_difference=against.extension,
        alt_test=against.alt_test,
        abstention=abst,
        bias=bias(release, shown, context.bias_weights(release, resamples, seed), family, model_id),
        confusion={
            "core": confusion(labels[core], present[core], consensus[core]) if has_core else None,
            "all": confusion(labels, present, consensus) if has_ext else None,
        },
        by_tier={str(t): macro_block(strata[f"tier{t}"]) for t in vocab.TIERS},
        by_lexical={k: macro_block(strata[k]) for k in ("exact_match", "no_match")},
        disagreements=disagreements(release, labels, present, items),
        ensembles=(
            ensembles(release, labels[core], w_core, exclude_evaluator) if has_core else None
        ),
        replicates=section(kept, resamples, seed),
        flags=tuple(flags),
        behaviour=measure_behaviour(
            release,
            labels,
            present,
            **(behaviour or {}),
            w_core=w_core,
            w_all=w_all,
            resamples=resamples,
            seed=seed,
        ).to_json(),
        ranking_fidelity=use.ranking_fidelity,
        length_bias=use.length_bias,
        output_shares=use.output_shares,
        agreement_cells=where_it_fails(release, labels, present, resamples, seed),
        contamination=check,
    )
