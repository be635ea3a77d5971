"""Model-answer scoring, anchored on the physicians' labels of the five student answers.

1. *Anchoring.* A submitted answer is normalised
(:func:`~medqade.scoring.intake.normalize.normalise`,
   articles stripped) and matched against the five physician-labelled answers of its item. One
   match, or several with the same consensus, inherits that consensus (an unresolved one stays
   unresolved). Several matches whose consensus differs pool their physician votes and take
   the majority (a tie is unresolved); these are counted as ``pooled_anchors``. When the
   submission names one of the paper's students (``model_id``), an answer equal (normalised)
   to that student's own answer *is* that physician-labelled answer and inherits its own
   consensus (``own_anchors``), so the paper students reproduce RQ2 exactly.
2. *Bounds.* Of the answered questions, ``A`` anchor to a resolved consensus (``C`` of them
   Richtig) and ``M`` match nothing; anchored-to-unresolved answers are left out, as
   unresolved slots are in the paper. ``anchored = C / A`` (Wilson CI), ``lower = C / (A+M)``
   (every unmatched answer wrong), ``upper = (C+M) / (A+M)`` (every unmatched answer right),
   ``coverage = A / (A+M)``.
3. *Judged estimate.* When a named judge labelled the answers, the unmatched ones take its
   label: ``(C + J_richtig) / (A + J)`` with ``J`` the unmatched answers it labelled Richtig or
   Falsch (Wilson CI). The judge's own core kappa is shown when known, and a judge of the
   student's family raises ``same_family_judge`` (the paper found +4 to +16 points of
   self/family inflation).

The same blocks are computed per difficulty tier and per lexical stratum.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.consensus import majority
from medqade.measures import Estimate, proportion
from medqade.scoring.intake import Settings, normalise
from medqade.scoring.metrics import context
from medqade.scoring.record import Accuracy, Judged, JudgeRef, Replicates, section

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Codes = npt.NDArray[np.int8]
SAME_FAMILY: Final = "same_family_judge"
SAME_FAMILY_WARNING: Final = (
    "the judge and the model share a family: the paper found +4 to +16 points of self/family "
    "inflation, so read the judged estimate with care"
)


@dataclass(frozen=True)
class Anchors:
    """Per item: answered, matched any labelled answer, consensus code (-1 unresolved or
    unmatched), pooled votes, number of matched answers."""

    answered: npt.NDArray[np.bool_]
    matched: npt.NDArray[np.bool_]
    code: Codes
    pooled: npt.NDArray[np.bool_]
    n_matches: npt.NDArray[np.int64]
    own: npt.NDArray[np.bool_]


def anchor(release: Release, answers: Sequence[str | None], own_slot: int | None = None) -> Anchors:
    """Match ``answers`` (one per item, ``None`` = not answered) to the labelled answers;
    ``own_slot`` is the slot of the submitting model when it is one of the paper's students."""
    keys = context.derived(release, "answer_keys")
    richtig, falsch = context.derived(release, "votes")
    consensus = release.consensus
    n = release.n_items
    answered = np.zeros(n, dtype=bool)
    matched = np.zeros(n, dtype=bool)
    pooled = np.zeros(n, dtype=bool)
    n_matches = np.zeros(n, dtype=np.int64)
    own = np.zeros(n, dtype=bool)
    code = np.full(n, vocab.MISSING_CODE, dtype=np.int8)
    for i, text in enumerate(answers):
        if text is None:
            continue
        answered[i] = True
        key = normalise(text, strip_articles=True)
        if own_slot is not None and keys[i, own_slot] == key:
            matched[i] = own[i] = True
            n_matches[i] = 1
            code[i] = consensus[i, own_slot]
            continue
        hits = [s for s in range(vocab.N_SLOTS) if keys[i, s] == key]
        if not hits:
            continue
        matched[i] = True
        n_matches[i] = len(hits)
        found = {int(consensus[i, s]) for s in hits}
        if len(found) == 1:
            code[i] = found.pop()
        else:
            pooled[i] = True
            code[i] = majority(richtig[i, hits].sum(), falsch[i, hits].sum())
    return Anchors(answered, matched, code, pooled, n_matches, own)


def _wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (float("nan"), float("nan"))
    low, high = stats.wilson_interval(k, n)
    return (float(low), float(high))


def _ratio(k: int, n: int) -> float:
    return k / n if n else float("nan")


def accuracy_block(
    anchors: Anchors, judge_labels: Codes | None, items: npt.NDArray[np.bool_]
) -> Accuracy:
    """Anchored accuracy, bounds, coverage and (with judge labels) the judged estimate."""
    answered = anchors.answered & items
    resolved = answered & anchors.matched & (anchors.code != vocab.MISSING_CODE)
    unresolved = answered & anchors.matched & (anchors.code == vocab.MISSING_CODE)
    unmatched = answered & ~anchors.matched
    a = int(resolved.sum())
    c = int((resolved & (anchors.code == vocab.RICHTIG_CODE)).sum())
    m = int(unmatched.sum())
    judged = None
    if judge_labels is not None:
        labelled = unmatched & (
            (judge_labels == vocab.RICHTIG_CODE) | (judge_labels == vocab.FALSCH_CODE)
        )
        j = int(labelled.sum())
        jr = int((labelled & (judge_labels == vocab.RICHTIG_CODE)).sum())
        judged = Judged.of(
            estimate=_ratio(c + jr, a + j),
            ci=_wilson(c + jr, a + j),
            n_judged=j,
            n_judged_richtig=jr,
            n_unjudged=m - j,
        )
    return Accuracy.of(
        anchored=_ratio(c, a),
        ci=_wilson(c, a),
        lower=_ratio(c, a + m),
        lower_ci=_wilson(c, a + m),
        upper=_ratio(c + m, a + m),
        upper_ci=_wilson(c + m, a + m),
        coverage=_ratio(a, a + m),
        pooled_anchors=int((anchors.pooled & answered).sum()),
        own_anchors=int((anchors.own & answered).sum()),
        n_answered=int(answered.sum()),
        n_anchored=a,
        n_correct=c,
        n_anchored_unresolved=int(unresolved.sum()),
        n_unmatched=m,
        n_items=int(items.sum()),
        judged=judged,
    )


def _strata(
    anchors: Anchors, judge_labels: Codes | None, release: Release, items: npt.NDArray[np.bool_]
) -> tuple[tuple[Accuracy | None, ...], dict[str, Accuracy | None]]:
    tiers: list[Accuracy | None] = []
    for t in vocab.TIERS:
        m = items & (release.tier == t)
        tiers.append(accuracy_block(anchors, judge_labels, m) if m.any() else None)
    lexical = release.lexical
    lex: dict[str, Accuracy | None] = {}
    for name, m in (("exact_match", items & lexical), ("no_match", items & ~lexical)):
        lex[name] = accuracy_block(anchors, judge_labels, m) if m.any() else None
    return tuple(tiers), lex


def accuracy(
    release: Release,
    anchors: Anchors,
    judge_labels: Codes | None,
    items: npt.NDArray[np.bool_],
) -> Accuracy | None:
    """The ``accuracy`` record block over ``items`` (with ``by_tier`` and ``by_lexical``)."""
    if not (anchors.answered & items).any():
        return None
    tiers, lexical = _strata(anchors, judge_labels, release, items)
    return accuracy_block(anchors, judge_labels, items).updated(by_tier=tiers, by_lexical=lexical)


def judge_info(
    release: Release,
    judge: Mapping[str, Any] | None,
    model_family: str | None,
    anchors: Anchors,
    judge_labels: Codes | None,
) -> tuple[JudgeRef | None, list[str]]:
    """The named judge of unmatched answers: identity, core kappa (from the release when it
    is a reference evaluator, else as submitted), family check and its agreement with the
    physician anchors. Returns the block and flags."""
    if judge_labels is None and not judge:
        return None, []
    info = JudgeRef.from_json(judge or {})  # the submitter's ``judge`` field, as given
    kappas: dict[str, float] = context.derived(release, "evaluator_core_kappa")
    model_id = info.model_id
    if model_id in kappas:
        info = info.updated(core_kappa=kappas[model_id], core_kappa_source="release")
        if "family" not in info.json_keys:
            info = info.updated(family=release.roster.family(model_id))
    elif "core_kappa" in info.json_keys:
        info = info.updated(core_kappa_source="submitted")
    else:
        info = info.updated(core_kappa=None, core_kappa_source=None)
    family = info.family
    same = bool(family and model_family and family.casefold() == model_family.casefold())
    check = None
    if judge_labels is not None:
        both = anchors.answered & anchors.matched & (anchors.code != vocab.MISSING_CODE)
        lab = np.where(both, judge_labels, vocab.MISSING_CODE).astype(np.int64)
        lab[(lab != vocab.RICHTIG_CODE) & (lab != vocab.FALSCH_CODE)] = stats.MISSING
        ref = np.where(both, anchors.code, stats.MISSING).astype(np.int64)
        if (lab != stats.MISSING).any():
            res = stats.compare_to_reference(lab, ref)
            check = {"pa": float(res.pa), "kappa": float(res.kappa), "n": int(res.n)}
    info = info.updated(same_family=same, agreement_on_anchored=check)
    return info, [SAME_FAMILY] if same else []


def accuracy_estimate(
    anchors: Anchors, items: npt.NDArray[np.bool_], weights: npt.ArrayLike | None
) -> Estimate:
    """Anchored accuracy over ``items`` with question-bootstrap replicates (the weights run
    over ``items``): what a model row is ranked on, paired with every other row."""
    resolved = anchors.answered & anchors.matched & (anchors.code != vocab.MISSING_CODE)
    correct = resolved & (anchors.code == vocab.RICHTIG_CODE)
    return proportion(correct[items], resolved[items], weights)


@dataclass(frozen=True)
class AnswerMetrics:
    """Every scored section of a model-answer record, typed (:func:`answer_metrics`)."""

    accuracy: Accuracy | None
    accuracy_core: Accuracy | None
    judge: JudgeRef | None
    replicates: Replicates | None
    flags: tuple[str, ...]
    warnings: tuple[str, ...]


def answer_metrics(
    release: Release,
    answers: Sequence[str | None],
    judge_labels: Codes | None = None,
    judge: Mapping[str, Any] | None = None,
    family: str | None = None,
    model_id: str | None = None,
    settings: Settings | None = None,
) -> AnswerMetrics:
    """The ``accuracy`` (all submitted items), ``accuracy_core``, ``judge`` and
    ``replicates`` sections, flags and warnings for one model's answers (one per item,
    ``None`` = no answer), bootstrapped with ``settings``."""
    settings = settings or Settings()
    resamples, seed = settings.resamples, settings.seed
    students = release.roster.student_ids
    own_slot = students.index(model_id) if model_id in students else None
    anchors = anchor(release, answers, own_slot)
    core = context.mask(release, context.CORE)
    everything = context.mask(release, context.ALL)
    info, flags = judge_info(release, judge, family, anchors, judge_labels)
    kept: dict[str, dict[str, Estimate | None] | None] = {
        "core": {
            "accuracy": accuracy_estimate(
                anchors, core, context.weights(release, context.CORE, resamples, seed)
            )
        },
        "full": {
            "accuracy": accuracy_estimate(
                anchors, everything, context.weights(release, context.ALL, resamples, seed)
            )
        },
    }
    return AnswerMetrics(
        accuracy=accuracy(release, anchors, judge_labels, everything),
        accuracy_core=accuracy(release, anchors, judge_labels, core),
        judge=info,
        replicates=section(kept, resamples, seed),
        flags=tuple(flags),
        warnings=(SAME_FAMILY_WARNING,) if flags else (),
    )
