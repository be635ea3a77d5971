"""Judge scoring: a labeller's agreement with the physician consensus, and everything around it.

Headline (``core``): per slot PA, Cohen's kappa and PABAK against the ten-physician consensus
on the 200 core questions, macro mean over the five slots, 95% percentile CIs from question
bootstrap weights, an abstention counting as a disagreement. This is
:func:`medqade.measures.agreement.agreement` with the core question weights of
:mod:`medqade.measures.seeds`; its ``rated`` values (abstentions dropped) equal ``medqade
reproduce`` (RQ3) to the last digit. ``full`` is the same on all items (unresolved slots
excluded).

Around it, on the items the submission covers (all items when it covers any extension item,
else the core), with the same weights (a subgroup statistic is bootstrapped by resampling all
questions and recomputing it in the subgroup, so its CI is paired with the headline):

- the like-for-like difference on the core: the judge in each physician's place against the
  majority of the other nine, minus the physician there (:func:`medqade.measures.agreement.
  judge_in_place`, same question resamples) for kappa, PA and PABAK, with margins declared on
  kappa and derived for PA and PABAK (:func:`medqade.measures.paired.margins`), and the verdict
  (one of :data:`medqade.measures.paired.VERDICTS`); the same on the extension (the judge in
  each primary physician's place against the other) and the alternative annotator test. Each
  physician's term is computed on the answers that physician rated; there a judge's
  abstention counts as a disagreement. A kappa verdict ``above physicians`` raises the flag
  ``above_physician_ceiling``; the difference with the judge's abstentions dropped is kept
  under ``rated``;
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
  macro-kappa, with the paired CI of the difference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from medqade import consensus, vocab
from medqade.measures import aat, in_place, paired
from medqade.measures import agreement as measured
from medqade.measures import behaviour as measured_behaviour
from medqade.measures import bias as measured_bias
from medqade.measures import verdicts as measured_verdict
from medqade.measures.estimate import Estimate
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.schema import answer_id
from medqade.scoring import context, replicates

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Codes = npt.NDArray[np.int8]
Weights = npt.NDArray[np.int64]

ABOVE_CEILING: Final = "above_physician_ceiling"
PARTIAL: Final = vocab.PARTIAL_COVERAGE
NO_CORE: Final = "no_core"
ENSEMBLE_SIZES: Final = (3, 5, 7)
SUBMISSION_MEMBER: Final = "submission"
_METRICS: Final = measured.METRICS
RANKED_METRICS: Final = ("kappa", "pa")
"""Metrics whose replicates a record keeps (PABAK = 2 PA - 1 ranks as PA does)."""


def rated_block(agr: measured.Agreement) -> dict[str, Any]:
    """The paper's agreement when rated (abstentions dropped pairwise), macro values."""
    out = agr.to_dict()
    out.pop("slots", None)
    out.pop("n_items", None)
    return out


def _block(
    agr: measured.Agreement,
    rated: measured.Agreement,
    labels: Codes,
    present: npt.NDArray[np.bool_],
) -> dict[str, Any]:
    """A view's block: agreement with abstentions (and missing labels) as disagreements, the
    paper's agreement when rated beside it, coverage and abstention over the view's answers."""
    out = agr.to_dict()
    out["rated"] = rated_block(rated)
    out["coverage"] = float(present.mean()) if present.size else float("nan")
    out["abstention"] = (
        float((present & (labels == vocab.ABSTAIN_CODE)).mean()) if present.size else float("nan")
    )
    out["n_items"] = int(present.any(axis=1).sum())
    return out


def _macro(agr: measured.Agreement | None) -> dict[str, Any] | None:
    """A group's macro values without per-slot detail (records stay small)."""
    if agr is None:
        return None
    out = agr.to_dict()
    out.pop("slots", None)
    return out


def _rate(num: npt.NDArray[np.bool_], den: npt.NDArray[np.bool_]) -> float:
    d = int(den.sum())
    return int(num.sum()) / d if d else float("nan")


def abstention(
    labels: Codes, present: npt.NDArray[np.bool_], tier: npt.NDArray[np.int8]
) -> dict[str, Any]:
    """Abstention rates: global and per tier 1-4, over the slots with a row."""
    abstained = present & (labels == vocab.ABSTAIN_CODE)
    labelled = present & (labels != vocab.MISSING_CODE)
    substantive = present & ((labels == vocab.RICHTIG_CODE) | (labels == vocab.FALSCH_CODE))
    t = np.broadcast_to(tier[:, None], labels.shape)
    return {
        "global": _rate(abstained, present),
        "by_tier": [_rate(abstained & (t == k), present & (t == k)) for k in vocab.TIERS],
        "n_slots": int(present.sum()),
        "n_abstained": int(abstained.sum()),
        "n_missing": int((present & ~labelled).sum()),
        "coverage": _rate(labelled, np.ones_like(present)),
        "answered_share": _rate(substantive, labelled),
    }


def confusion(labels: Codes, present: npt.NDArray[np.bool_], consensus: Codes) -> dict[str, Any]:
    """Counts of judge label x consensus over the slots with a row."""
    judge_names = {
        vocab.RICHTIG_CODE: vocab.RICHTIG,
        vocab.FALSCH_CODE: vocab.FALSCH,
        vocab.ABSTAIN_CODE: vocab.KEINE_ANGABE,
        vocab.MISSING_CODE: "missing",
    }
    ref_names = {
        vocab.RICHTIG_CODE: vocab.RICHTIG,
        vocab.FALSCH_CODE: vocab.FALSCH,
        vocab.MISSING_CODE: "unresolved",
    }
    lab = labels[present]
    ref = consensus[present]
    return {
        jn: {rn: int(((lab == jc) & (ref == rc)).sum()) for rc, rn in ref_names.items()}
        for jc, jn in judge_names.items()
    }


def unanimous_panel(release: Release) -> tuple[npt.NDArray[np.bool_], Codes]:
    """Slots whose non-abstaining physicians (at least two) all agree, and their label."""

    def compute() -> tuple[npt.NDArray[np.bool_], Codes]:
        r, f = context.derived(release, "votes")
        group = consensus.unanimous(r, f, consensus.PANEL_MIN_VOTES)
        unanimous = group != vocab.MISSING_CODE
        label = np.where(unanimous, group, vocab.FALSCH_CODE).astype(np.int8)
        return unanimous, label

    value: tuple[npt.NDArray[np.bool_], Codes] = context.memo(release, "unanimous", compute)
    return value


def disagreements(
    release: Release, labels: Codes, present: npt.NDArray[np.bool_], items: npt.NDArray[np.bool_]
) -> dict[str, Any]:
    """Answer ids (release order) where the judge contradicts a unanimous physician panel."""
    unanimous, panel = unanimous_panel(release)
    substantive = (labels == vocab.RICHTIG_CODE) | (labels == vocab.FALSCH_CODE)
    scope = present & items[:, None]
    hit = scope & unanimous & substantive & (labels != panel)
    qids = release.item_ids
    students = release.roster.student_ids
    ids = [answer_id(str(qids[i]), students[s]) for i, s in zip(*np.nonzero(hit), strict=True)]
    n_unanimous = int((scope & unanimous & substantive).sum())
    return {
        "n": len(ids),
        "n_unanimous": n_unanimous,
        "rate": len(ids) / n_unanimous if n_unanimous else float("nan"),
        "answer_ids": ids,
    }


def _family_key(family: str | None) -> str | None:
    return None if not family else family.casefold()


def bias(
    release: Release,
    labels: Codes,
    w: npt.NDArray[np.float64] | None,
    family: str | None,
    model_id: str | None,
) -> dict[str, Any] | None:
    """Self and family bias (RQ4) of a judge of ``family``, or ``None`` when no student is
    of that family. The judge is added as a tenth evaluator row and scored by
    :func:`medqade.measures.bias.biases`; ``w`` (R, items) are the RQ4 bias weights, so a
    reference evaluator gets exactly the numbers of ``medqade reproduce`` (the added row is of
    the judge's own family, so it never enters a peer mean)."""
    roster = release.roster
    fam = _family_key(family)
    families = tuple(m.family for m in roster.evaluators)
    own = next((m.family for m in roster.students if _family_key(m.family) == fam), None)
    if own is None:
        return None
    stacked = np.concatenate([release.evaluator_labels, labels[None]], axis=0)
    row = len(families)
    targets = tuple(
        measured_bias.Target(
            measured_bias.SELF if student.id == model_id else measured_bias.FAMILY,
            SUBMISSION_MEMBER,
            student.id,
            row,
            s,
        )
        for s, student in enumerate(roster.students)
        if student.family == own
    )
    found = measured_bias.biases(stacked, (*families, own), targets, w)
    return {
        "family": own,
        "peers": [m.id for m in roster.evaluators if m.family != own],
        "targets": [
            {
                "student": b.student,
                "kind": b.kind,
                "bias": b.delta.value,
                "bias_ci": list(b.delta.ci),
                "significant": b.significant,
                "n": b.n,
            }
            for b in found
        ],
    }


# --- ensembles ---------------------------------------------------------------------------------


def _best_index(kappa: npt.NDArray[np.float64]) -> int:
    """First maximum, NaN ignored (search order breaks ties, as in RQ3); -1 if all NaN."""
    if kappa.size == 0 or np.all(np.isnan(kappa)):
        return -1
    return int(np.nanargmax(kappa))


def _best_panel(
    pool_labels: Codes, reference: Codes, size: int, judge: Codes | None
) -> tuple[tuple[int, ...], Codes] | None:
    """Best subset (by macro-kappa) of ``size`` members, the judge forced in when given."""
    n_pool = pool_labels.shape[0]
    k = size - 1 if judge is not None else size
    if k > n_pool:
        return None
    subsets = list(combinations(range(n_pool), k))
    extra = [] if judge is None else [judge]
    voted = np.stack(
        [measured.ensemble_vote(np.stack([*extra, *pool_labels[list(c)]])) for c in subsets]
    )
    _, kappa = measured.macro_agreement(voted, reference)
    best = _best_index(kappa)
    return None if best < 0 else (subsets[best], voted[best])


def ensembles(
    release: Release,
    labels: Codes,
    w: npt.NDArray[np.float64] | None,
    exclude: str | None,
) -> dict[str, Any]:
    """Best majority-vote panels with and without the judge on the core (module docstring).

    ``labels`` are the judge's core labels (core items, slots); ``w`` the core weights;
    ``exclude`` a reference evaluator id to leave out of the pool (the judge itself).
    """
    roster = release.roster
    core = context.mask(release, context.CORE)
    reference = release.consensus[core]
    pool = [e for e in roster.ensemble_pool if e != exclude]
    index = [roster.evaluator_ids.index(e) for e in pool]
    pool_labels = release.evaluator_labels[index][:, core]
    panels = []
    for size in ENSEMBLE_SIZES:
        key = f"ensemble-without:{size}:{','.join(pool)}"
        without = context.memo(
            release, key, lambda n=size: _best_panel(pool_labels, reference, n, None)
        )
        best_with = _best_panel(pool_labels, reference, size, labels)
        if best_with is None:
            continue
        sides = {"with": best_with, "without": without}
        chosen = {k: v for k, v in sides.items() if v is not None}
        voted = np.stack([v[1] for v in chosen.values()])
        pa, kappa = measured.macro_agreement(voted, reference)
        reps = None if w is None else measured.macro_agreement(voted, reference, w)
        entry: dict[str, Any] = {"size": size, "with": None, "without": None}
        for j, (side, (members, _)) in enumerate(chosen.items()):
            names = [pool[m] for m in members]
            k_est = Estimate.from_replicates(
                float(kappa[j]), None if reps is None else reps[1][:, j]
            )
            p_est = Estimate.from_replicates(float(pa[j]), None if reps is None else reps[0][:, j])
            entry[side] = {
                "members": [SUBMISSION_MEMBER, *names] if side == "with" else names,
                "kappa": k_est.value,
                "kappa_ci": list(k_est.ci),
                "pa": p_est.value,
                "pa_ci": list(p_est.ci),
                "pabak": 2 * p_est.value - 1,
                "pabak_ci": [2 * p_est.low - 1, 2 * p_est.high - 1],
            }
        if len(chosen) == 2:
            gain = Estimate.from_replicates(
                float(kappa[0] - kappa[1]),
                None if reps is None else reps[1][:, 0] - reps[1][:, 1],
            )
            entry["kappa_gain"] = gain.value
            entry["kappa_gain_ci"] = list(gain.ci)
            entry["helps"] = bool(gain.value > 0)
        panels.append(entry)
    return {
        "split": "core",
        "pool": pool,
        "selected_by": "kappa",
        "rule": "majority after removing abstentions; all abstain = missing; tie = Falsch",
        "panels": panels,
    }


# --- the whole judge block ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Views:
    """A judge's agreement with the consensus on the core and on all items (``None`` without
    labels there): abstentions as disagreements, when rated, and their record blocks."""

    core: Any = None
    full: Any = None
    rated_core: Any = None
    rated_full: Any = None
    core_block: dict[str, Any] | None = None
    full_block: dict[str, Any] | None = None


def _views(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    shown: Codes,
    w_core: Any,
    w_all: Any,
    has_core: bool,
    has_ext: bool,
) -> _Views:
    """The ``core`` and ``full`` blocks of :func:`judge_metrics` and the agreements behind."""
    students = release.roster.student_ids
    core = context.mask(release, context.CORE)
    consensus = release.consensus
    out: dict[str, Any] = {}
    if has_core:
        out["core"] = measured.agreement(
            shown[core], consensus[core], students, w_core, abstain_disagrees=True
        )
        out["rated_core"] = measured.agreement(labels[core], consensus[core], students, w_core)
        out["core_block"] = _block(out["core"], out["rated_core"], labels[core], present[core])
    if has_ext:
        out["full"] = measured.agreement(shown, consensus, students, w_all, abstain_disagrees=True)
        out["rated_full"] = measured.agreement(labels, consensus, students, w_all)
        out["full_block"] = _block(out["full"], out["rated_full"], labels, present)
    return _Views(**out)


@dataclass(frozen=True)
class Against:
    """The judge against the physicians: the record's ``physician_difference``,
    ``extension_difference``, ``headline`` and ``alt_test`` blocks and the verdict word."""

    core: dict[str, Any] | None
    extension: dict[str, Any] | None
    headline: dict[str, Any]
    alt_test: dict[str, Any] | None
    verdict: str | None
    flags: tuple[str, ...]


def against_physicians(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    resamples: int,
    seed: int,
    margin: float,
) -> Against:
    """The one verdict of the judge (:func:`medqade.measures.verdicts.judge_headline`, the
    same for every surface), its designs, the core difference with the judge's abstentions
    dropped (``rated``, secondary) and the alt-test on the core."""
    students = release.roster.student_ids
    core = context.mask(release, context.CORE)
    has_core = bool(present[core].any())
    w_core = context.float_weights(release, context.CORE, resamples, seed)
    w_all = context.float_weights(release, context.ALL, resamples, seed)
    panel = context.panel_weights(release, resamples, seed)
    their_side = context.physicians_in_place(release, resamples, seed)
    found = measured_verdict.judge_headline(
        labels,
        present,
        core,
        release.physician_labels,
        context.extension_pairs(release),
        students,
        (w_core, w_all, panel),
        margin,
        their_side,
    )
    core_block = None if found.core is None else found.core.to_dict()
    alt = None
    if core_block is not None and has_core:
        physicians = release.physician_labels[:, core]
        shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)
        when_rated = in_place.judge_in_place(
            labels[core],
            physicians,
            students,
            w_core,
            physicians=their_side,
            abstain_disagrees=False,
        ).difference(paired.PRIMARY, panel)
        core_block["rated"] = when_rated.to_dict(paired.PRIMARY)
        alt = aat.alt_test(shown[core], physicians).to_dict()
    return Against(
        core=core_block,
        extension=None if found.extension is None else found.extension.to_dict(),
        headline=found.to_dict(),
        alt_test=alt,
        verdict=found.verdict,
        flags=found.flags,
    )


def _breakdowns(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    items: npt.NDArray[np.bool_],
    w_items: Any,
    rated_scope: Any,
    split: str,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(abstention, strata)`` on ``items`` (the ``split``): abstention by tier with the
    agreement when rated, and the agreement per tier and per lexical stratum."""
    lab = labels[items]
    tiers = release.tier[items]
    lexical = release.lexical[items]
    abst = abstention(lab, present[items], tiers)
    groups = {f"tier{t}": tiers == t for t in vocab.TIERS}
    groups |= {"exact_match": lexical, "no_match": ~lexical}
    strata = measured.grouped_agreement(
        lab, release.consensus[items], groups, release.roster.student_ids, w_items
    )
    abst["split"] = split
    abst["agreement_non_abstained"] = None if rated_scope is None else rated_block(rated_scope)
    return abst, strata


def judge_metrics(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    *,
    family: str | None = None,
    model_id: str | None = None,
    exclude_evaluator: str | None = None,
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    margin: float = paired.DEFAULT_MARGIN,
    behaviour: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """All judge metrics for ``labels`` (items, 5) with rows ``present`` (items, 5).

    ``behaviour`` holds the keyword inputs of :func:`medqade.measures.behaviour.behaviour`
    beyond the labels (``positions``, ``runs``, ``usage``); its result is the ``behaviour``
    key.

    ``exclude_evaluator`` leaves a reference evaluator (the judge itself) out of the ensemble
    pool; ``margin`` is the non-inferiority margin of the verdicts.

    Returns the record keys ``core``, ``full``, ``physician_reference``,
    ``physician_difference``, ``verdict``, ``verdicts``, ``abstention``, ``bias``,
    ``confusion``, ``by_tier``, ``by_lexical``, ``disagreements``, ``ensembles``,
    ``replicates``, ``flags`` and ``behaviour`` (values may be ``None`` or NaN).
    """
    margin = paired.check_margin(margin)
    core = context.mask(release, context.CORE)
    consensus = release.consensus
    has_core = bool(present[core].any())
    has_ext = bool(present[~core].any())
    w_core = context.float_weights(release, context.CORE, resamples, seed)
    w_all = context.float_weights(release, context.ALL, resamples, seed) if has_ext else None
    flags: list[str] = [] if has_core else [NO_CORE]

    reference = context.physician_reference(release, resamples, seed)
    shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)
    views = _views(release, labels, present, shown, w_core, w_all, has_core, has_ext)
    against = against_physicians(release, labels, present, resamples, seed, margin)
    flags.extend(against.flags)
    if against.verdict == paired.ABOVE:
        flags.append(ABOVE_CEILING)
    items = context.mask(release, context.ALL if has_ext else context.CORE)
    w_items = w_all if has_ext else w_core
    rated_scope = views.rated_full if has_ext else views.rated_core
    split = "all" if has_ext else "core"
    abst, strata = _breakdowns(release, labels, present, items, w_items, rated_scope, split)
    conf = {"core": confusion(labels[core], present[core], consensus[core]) if has_core else None}
    conf["all"] = confusion(labels, present, consensus) if has_ext else None
    kept = {
        view: None if agr is None else {m: agr.metric(m) for m in RANKED_METRICS}
        for view, agr in (("core", views.core), ("full", views.full))
    }
    phys_ref = context.physicians_in_place(release, resamples, seed).agreement.to_dict()
    phys_ref["rated"] = rated_block(reference)
    return {
        "core": views.core_block,
        "full": views.full_block,
        "physician_reference": phys_ref,
        "physician_difference": against.core,
        "verdict": against.verdict,
        "headline": against.headline,
        "extension_difference": against.extension,
        "alt_test": against.alt_test,
        "abstention": abst,
        "bias": bias(
            release,
            shown,
            context.bias_weights(release, resamples, seed),
            family,
            model_id,
        ),
        "confusion": conf,
        "by_tier": {str(t): _macro(strata[f"tier{t}"]) for t in vocab.TIERS},
        "by_lexical": {k: _macro(strata[k]) for k in ("exact_match", "no_match")},
        "disagreements": disagreements(release, labels, present, items),
        "ensembles": (
            ensembles(release, labels[core], w_core, exclude_evaluator) if has_core else None
        ),
        "replicates": replicates.section(kept, resamples, seed),
        "flags": flags,
        "behaviour": measured_behaviour.behaviour(
            release,
            labels,
            present,
            **(behaviour or {}),
            w_core=w_core,
            w_all=w_all,
            resamples=resamples,
            seed=seed,
        ).to_json(),
    }
