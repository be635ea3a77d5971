"""Judge scoring: a labeller's agreement with the physician consensus, and everything around it.

Headline (``core``): per slot PA, Cohen's kappa and PABAK against the ten-physician consensus
on the 200 core questions, macro mean over the five slots, 95% percentile CIs from question
bootstrap weights. This is :func:`medqade.analyses.alignment.agreement` with
``question_weights(200, resamples, seed)``, so a judge's numbers equal ``medqade reproduce``
(RQ3) to the last digit. ``full`` is the same on all items (unresolved slots excluded).

Around it, on the items the submission covers (all items when it covers any extension item,
else the core), with the same weights (a subgroup statistic is bootstrapped by resampling all
questions and recomputing it in the subgroup, so its CI is paired with the headline):

- verdict against the leave-one-out physician reference: ``within physician CI`` when the two
  95% CIs overlap, ``below`` or ``above (check for leakage)`` otherwise; a kappa above the
  physicians' CI raises the flag ``above_physician_ceiling``;
- abstention, globally and per difficulty tier (denominator: the slots the submission has a
  row for, missing labels included, as in RQ5), coverage, and agreement on the rest;
- self and family bias (RQ4) when the judge's family is a student family: per response the
  judge's score (Richtig 1, Falsch 0) minus the mean score of the reference evaluators outside
  that family, averaged over the responses of its own model (self) or of each sibling student
  (family), with a question-bootstrap CI on RQ4's own resample stream (so a reference
  evaluator's numbers equal RQ4's);
- confusion matrix, per-tier and per-stratum agreement, and the answer ids where the judge
  contradicts a unanimous physician panel (at least two non-abstaining physicians, all
  agreeing);
- majority-vote ensembles with the reference evaluators (core, in-sample, the paper's rule):
  the best panel of each size containing the judge vs the best without it, chosen by
  macro-kappa, with the paired CI of the difference.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.analyses import alignment, common, rq3, rq4
from medqade.analyses.common import DEFAULT_SEED
from medqade.schema import answer_id
from medqade.scoring import context

if TYPE_CHECKING:
    from medqade.release import Release

Codes = npt.NDArray[np.int8]
Weights = npt.NDArray[np.int64]

WITHIN: Final = "within physician CI"
BELOW: Final = "below"
ABOVE: Final = "above (check for leakage)"
ABOVE_CEILING: Final = "above_physician_ceiling"
PARTIAL: Final = "partial_coverage"
NO_CORE: Final = "no_core"
ENSEMBLE_SIZES: Final = (3, 5, 7)
SUBMISSION_MEMBER: Final = "submission"
_METRICS: Final = ("kappa", "pa", "pabak")


def _interval(block: dict[str, Any], metric: str) -> tuple[float, float]:
    value = float(block[metric])
    low, high = (float(x) for x in block[f"{metric}_ci"])
    if np.isnan(low) or np.isnan(high):
        return value, value
    return low, high


def verdict(block: dict[str, Any], reference: dict[str, Any], metric: str = "kappa") -> str | None:
    """``within physician CI``, ``below`` or ``above (check for leakage)`` (CI overlap)."""
    if block is None or np.isnan(float(block[metric])):
        return None
    low, high = _interval(block, metric)
    ref_low, ref_high = _interval(reference, metric)
    if low > ref_high:
        return ABOVE
    if high < ref_low:
        return BELOW
    return WITHIN


def _block(agr: alignment.Agreement, present: npt.NDArray[np.bool_]) -> dict[str, Any]:
    out = agr.to_dict()
    out["coverage"] = float(present.mean()) if present.size else float("nan")
    out["n_items"] = int(present.any(axis=1).sum())
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
        unanimous = ((r >= 2) & (f == 0)) | ((f >= 2) & (r == 0))
        label = np.where(r > 0, vocab.RICHTIG_CODE, vocab.FALSCH_CODE).astype(np.int8)
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


def _pa_kappa(counts: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], ...]:
    """PA and kappa from 2x2 cell counts (..., 4) ordered (judge, reference) = 00, 01, 10, 11,
    with the conventions of :mod:`medqade.stats.agreement` (NaN for n = 0; kappa NaN for
    n < 2 or chance agreement 1)."""
    n = counts.sum(axis=-1)
    agree = counts[..., 0] + counts[..., 3]
    a0, a1 = counts[..., 0] + counts[..., 1], counts[..., 2] + counts[..., 3]
    b0, b1 = counts[..., 0] + counts[..., 2], counts[..., 1] + counts[..., 3]
    chance = a0 * b0 + a1 * b1
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = np.where(n > 0, agree / np.where(n > 0, n, 1), np.nan)
        den = np.where(n >= 2, n * n - chance, 0.0)
        kappa = np.where(den != 0, (n * agree - chance) / np.where(den != 0, den, 1), np.nan)
    return pa, kappa, n


def _slot_mean(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    valid = ~np.isnan(x)
    total = np.where(valid, x, 0.0).sum(axis=-1)
    count = valid.sum(axis=-1)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _grouped(
    labels: Codes,
    reference: Codes,
    groups: dict[str, npt.NDArray[np.bool_]],
    w: npt.NDArray[np.float64] | None,
) -> tuple[dict[str, dict[str, Any] | None], dict[str, npt.NDArray[np.float64]]]:
    names = [g for g, m in groups.items() if m.any()]
    lab = alignment.substantive(labels)
    ref = alignment.substantive(reference)
    n_items, n_slots = lab.shape
    ok = (lab != stats.MISSING) & (ref != stats.MISSING)
    cell = np.where(ok, lab * 2 + ref, 0)
    x = np.zeros((n_items, len(names), n_slots, 4))
    for g, name in enumerate(names):
        i, s = np.nonzero(ok & groups[name][:, None])
        x[i, g, s, cell[i, s]] = 1.0
    flat = x.reshape(n_items, -1)
    pa, kappa, n = _pa_kappa(flat.sum(axis=0).reshape(len(names), n_slots, 4))
    reps = None
    if w is not None:
        rp, rk, _ = _pa_kappa((w @ flat).reshape(-1, len(names), n_slots, 4))
        reps = (_slot_mean(rp), _slot_mean(rk))
    out: dict[str, dict[str, Any] | None] = {name: None for name in groups}
    kappa_reps: dict[str, npt.NDArray[np.float64]] = {}
    for g, name in enumerate(names):
        pa_est = alignment.Estimate.from_replicates(
            float(_slot_mean(pa[g])), None if reps is None else reps[0][:, g]
        )
        kappa_est = alignment.Estimate.from_replicates(
            float(_slot_mean(kappa[g])), None if reps is None else reps[1][:, g]
        )
        if reps is not None:
            kappa_reps[name] = reps[1][:, g]
        out[name] = {
            "kappa": kappa_est.value,
            "kappa_ci": list(kappa_est.ci),
            "pa": pa_est.value,
            "pa_ci": list(pa_est.ci),
            "pabak": 2 * pa_est.value - 1,
            "pabak_ci": [2 * pa_est.low - 1, 2 * pa_est.high - 1],
            "n": int(n[g].sum()),
            "n_items": int(groups[name].sum()),
        }
    return out, kappa_reps


def grouped_agreement(
    labels: Codes,
    reference: Codes,
    groups: dict[str, npt.NDArray[np.bool_]],
    w: npt.NDArray[np.float64] | None,
) -> dict[str, dict[str, Any] | None]:
    """Macro PA, kappa and PABAK with CIs in several item groups at once.

    ``labels`` and ``reference`` are (items, slots) codes, each group an (items,) mask, ``w``
    (R, items) bootstrap weights. The same statistic as :func:`alignment.agreement` restricted
    to the group's items (abstentions and missing excluded pairwise), computed from one
    matrix product of the weights with the one-hot cells of every (group, slot) instead of one
    call per group and slot. Groups without items map to ``None``.
    """
    return _grouped(labels, reference, groups, w)[0]


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
    :func:`medqade.analyses.rq4.bias_terms`; ``w`` (R, items) are the RQ4 bias weights, so a
    reference evaluator gets exactly the numbers of ``medqade reproduce``."""
    roster = release.roster
    fam = _family_key(family)
    families = tuple(m.family for m in roster.evaluators)
    own = next((m.family for m in roster.students if _family_key(m.family) == fam), None)
    if own is None:
        return None
    stacked = np.concatenate([release.evaluator_labels, labels[None]], axis=0)
    row = len(families)
    targets = tuple(
        rq4.Target(
            rq4.SELF if student.id == model_id else rq4.FAMILY,
            SUBMISSION_MEMBER,
            student.id,
            row,
            s,
        )
        for s, student in enumerate(roster.students)
        if student.family == own
    )
    d, v = rq4.bias_terms(stacked, (*families, own), targets)
    point = common.ratio(d.sum(axis=0), v.sum(axis=0))
    reps = None if w is None else rq4.bias_replicates(d, v, cast("Weights", w))
    rows = []
    for j, t in enumerate(targets):
        est = alignment.Estimate.from_replicates(
            float(point[j]), None if reps is None else reps[:, j]
        )
        rows.append(
            {
                "student": t.student,
                "kind": t.kind,
                "bias": est.value,
                "bias_ci": list(est.ci),
                "n": int(v[:, j].sum()),
            }
        )
    return {
        "family": own,
        "peers": [m.id for m in roster.evaluators if m.family != own],
        "targets": rows,
    }


def reference_bias(
    release: Release,
    evaluator: str,
    w: npt.NDArray[np.float64] | None,
    resamples: int,
    seed: int,
) -> dict[str, Any] | None:
    """The bias block of a reference evaluator, from :func:`rq4.evaluator_bias` (cached)."""
    result: rq4.EvaluatorBias = context.memo(
        release,
        f"rq4:{resamples}:{seed}",
        lambda: rq4.evaluator_bias(release, _counts(w)),
    )
    found = [b for b in (*result.self_bias.values(), *result.family) if b.evaluator == evaluator]
    if not found:
        return None
    own = release.roster.family(evaluator)
    return {
        "family": own,
        "peers": [m.id for m in release.roster.evaluators if m.family != own],
        "targets": [
            {
                "student": b.student,
                "kind": b.kind,
                "bias": b.delta.value,
                "bias_ci": list(b.delta.ci),
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
        [alignment.ensemble_vote(np.stack([*extra, *pool_labels[list(c)]])) for c in subsets]
    )
    _, kappa = rq3.macro_agreement(voted, reference)
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
        pa, kappa = rq3.macro_agreement(voted, reference)
        reps = None if w is None else rq3.macro_agreement(voted, reference, _counts(w))
        entry: dict[str, Any] = {"size": size, "with": None, "without": None}
        for j, (side, (members, _)) in enumerate(chosen.items()):
            names = [pool[m] for m in members]
            k_est = alignment.Estimate.from_replicates(
                float(kappa[j]), None if reps is None else reps[1][:, j]
            )
            p_est = alignment.Estimate.from_replicates(
                float(pa[j]), None if reps is None else reps[0][:, j]
            )
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
            gain = alignment.Estimate.from_replicates(
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


def _counts(w: npt.NDArray[np.float64] | None) -> Weights | None:
    """The float copy of the bootstrap counts, passed where count weights are typed: the
    statistics convert counts to float64 on every call, so the values (and results) are the
    same and the conversion is saved."""
    return cast("Weights | None", w)


def judge_metrics(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    *,
    family: str | None = None,
    model_id: str | None = None,
    exclude_evaluator: str | None = None,
    release_row: bool = False,
    resamples: int = 1000,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """All judge metrics for ``labels`` (items, 5) with rows ``present`` (items, 5).

    ``exclude_evaluator`` leaves a reference evaluator (the judge itself) out of the ensemble
    pool; ``release_row`` says that ``labels`` are that evaluator's labels in the release, so
    its bias is taken from RQ4 itself.

    Returns the record keys ``core``, ``full``, ``physician_reference``, ``verdict``,
    ``verdicts``, ``abstention``, ``bias``, ``confusion``, ``by_tier``, ``by_lexical``,
    ``disagreements``, ``ensembles`` and ``flags`` (values may be ``None`` or NaN).
    """
    students = release.roster.student_ids
    core = context.mask(release, context.CORE)
    consensus = release.consensus
    has_core = bool(present[core].any())
    has_ext = bool(present[~core].any())
    w_core = context.float_weights(release, context.CORE, resamples, seed)
    w_all = context.float_weights(release, context.ALL, resamples, seed) if has_ext else None
    flags: list[str] = []

    ref = _block(context.physician_reference(release, resamples, seed), present[core])
    ref.pop("coverage")
    ref.pop("n_items")
    core_block = None
    if has_core:
        agr = alignment.agreement(labels[core], consensus[core], students, _counts(w_core))
        core_block = _block(agr, present[core])
    else:
        flags.append(NO_CORE)
    full_block = None
    if has_ext:
        agr = alignment.agreement(labels, consensus, students, _counts(w_all))
        full_block = _block(agr, present)

    verdicts = {m: verdict(core_block, ref, m) if core_block else None for m in _METRICS}
    if verdicts["kappa"] == ABOVE:
        flags.append(ABOVE_CEILING)
    items = context.mask(release, context.ALL if has_ext else context.CORE)
    w_items = w_all if has_ext else w_core
    w_bias = context.bias_weights(release, resamples, seed)
    lab = labels[items]
    pres = present[items]
    cons = consensus[items]
    tiers = release.tier[items]
    lexical = release.lexical[items]
    scope_block = full_block if has_ext else core_block
    abst = abstention(lab, pres, tiers)
    groups = {f"tier{t}": tiers == t for t in vocab.TIERS}
    groups |= {"exact_match": lexical, "no_match": ~lexical}
    strata = grouped_agreement(lab, cons, groups, w_items)
    abst["split"] = "all" if has_ext else "core"
    abst["agreement_non_abstained"] = (
        None
        if scope_block is None
        else {k: scope_block[k] for k in ("kappa", "kappa_ci", "pa", "pa_ci", "pabak", "n")}
    )
    conf = {"core": confusion(labels[core], present[core], consensus[core]) if has_core else None}
    conf["all"] = confusion(labels, present, consensus) if has_ext else None
    return {
        "core": core_block,
        "full": full_block,
        "physician_reference": ref,
        "verdict": verdicts["kappa"],
        "verdicts": verdicts,
        "abstention": abst,
        "bias": (
            reference_bias(release, exclude_evaluator, w_bias, resamples, seed)
            if release_row and exclude_evaluator
            else bias(
                release,
                np.where(present, labels, vocab.MISSING_CODE).astype(np.int8),
                w_bias,
                family,
                model_id,
            )
        ),
        "confusion": conf,
        "by_tier": {str(t): strata[f"tier{t}"] for t in vocab.TIERS},
        "by_lexical": {k: strata[k] for k in ("exact_match", "no_match")},
        "disagreements": disagreements(release, labels, present, items),
        "ensembles": (
            ensembles(release, labels[core], w_core, exclude_evaluator) if has_core else None
        ),
        "flags": flags,
    }
