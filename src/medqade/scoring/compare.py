"""Two labellers compared on the same questions: ``medqade compare`` and the Space's Compare.

A side is a paper evaluator (its id), ``physicians`` (the leave-one-out reference), a
baseline judge (its id or name) or a judge row of the caller's board (its record id, or a
unique prefix of at least 8 characters): :func:`resolve` looks a token up in that closed set
only and never treats it as a path, so a token that names a file on the server is refused like
any other unknown id. A token longer than :data:`MAX_TOKEN` characters is refused before any
work. A stored record is compared through its stored upload, read by the caller's path (never
one a token names); when that upload cannot be read or parsed, the message says so without
quoting the file. A judge file the *local* user names is not a token either: the command layer
(``medqade compare``) parses it and passes the :class:`Side` of :func:`submission_side`. Both
sides are scored against the physician consensus on the view's items with the *same* question
resamples (the seeds of :mod:`medqade.measures.seeds`), so the difference A - B of every
statistic has a paired percentile interval (:func:`medqade.measures.paired.difference`): the
macro difference equals ``kappa(A) - kappa(B)`` as ``medqade score`` and the leaderboard show
them, to the last digit. Per slot and per difficulty tier likewise; the answers on which the
two sides give different substantive labels are listed with the consensus.

Against ``physicians`` the judge is put in each physician's place in turn, against the same
majority of the other nine (:func:`medqade.measures.in_place.judge_in_place`): the difference
is then the verdict's ``d``, reported with its verdict (default margin) and the alternative
annotator test (``versus_physicians``). Abstentions count as disagreements throughout, as in
``score`` and the leaderboard. The physician reference exists only on the core (all ten
physicians rated it); comparing with it in the full view is refused with a message saying so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import agreement as measured
from medqade.measures import breakdown as measured_breakdown
from medqade.measures import paired
from medqade.measures.estimate import Estimate
from medqade.measures.in_place import InPlace, judge_in_place
from medqade.measures.ranking import RankedBoard
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.schema import answer_id
from medqade.scoring import context
from medqade.scoring import judge as judge_scoring
from medqade.scoring.baselines import BASELINES, baseline_labels
from medqade.scoring.leaderboard import VIEWS, board_key
from medqade.scoring.record import RecordMeta, ScoreRecord
from medqade.scoring.settings import Settings
from medqade.scoring.simultaneous import BoardPair, board_pair
from medqade.scoring.submission import (
    DEFAULT_LIMITS,
    JUDGE,
    Limits,
    Submission,
    parse_submission,
)

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Codes = npt.NDArray[np.int8]
PHYSICIANS: Final = "physicians"
MIN_PREFIX: Final = 8
MAX_TOKEN: Final = 200
METRICS: Final = measured.METRICS


class CompareError(ValueError):
    """A side that cannot be resolved or compared; the message says what to pass instead."""


@dataclass(frozen=True, eq=False)
class Side:
    """One side of a comparison: its name, what it is, and its labels (items, slots).

    ``labels`` is ``None`` for the physicians (their numbers are the leave-one-out
    reference); absent answer slots are ``MISSING``.
    """

    token: str
    name: str
    source: str
    labels: Codes | None
    present: npt.NDArray[np.bool_] | None = None
    """The answer slots the side has a row for (``None``: every slot, as for the paper
    evaluators and the baselines, whose missing judgments are missing labels)."""

    @property
    def is_physicians(self) -> bool:
        return self.labels is None

    def to_dict(self) -> dict[str, Any]:
        return {"token": self.token, "name": self.name, "source": self.source}


def check_token(token: str) -> str:
    """``token`` without surrounding blanks; :class:`CompareError` when it is longer than
    :data:`MAX_TOKEN` characters (no row id is), before anything is looked up."""
    if len(token) > MAX_TOKEN:
        raise CompareError(
            f"a judge row id has at most {MAX_TOKEN} characters, got {len(token):,}; pick a "
            "row from the list (a paper evaluator id, 'physicians', a baseline id or a record id)"
        )
    return token.strip()


def _record_side(
    release: Release,
    token: str,
    records: Sequence[ScoreRecord],
    uploads: Mapping[str, Path],
    limits: Limits,
) -> Side | None:
    if len(token) < MIN_PREFIX:
        return None
    found = [r for r in records if str(r.id or "").startswith(token)]
    ids = {str(r.id) for r in found}
    if len(ids) > 1:
        raise CompareError(f"{token!r} is the prefix of {len(ids)} records; give more characters")
    if not found:
        return None
    record = found[0]
    rid = str(record.id)
    meta = record.meta or RecordMeta()
    name = str(record.name)
    if record.kind != JUDGE:
        raise CompareError(f"record {rid[:16]} ({name}) is a model's answers, not a judge")
    source = str(meta.source or "submission")
    if source == PHYSICIANS:
        return Side(token, name, PHYSICIANS, None)
    model_id = meta.model_id
    if source == "paper" and model_id in release.roster.evaluator_ids:
        return _evaluator_side(release, token, str(model_id))
    if source == "baseline":
        base = next((b for b in BASELINES if b.id == model_id), None)
        if base is not None:
            return Side(token, base.name, "baseline", baseline_labels(release, base))
    path = uploads.get(rid)
    if path is None:
        raise CompareError(f"record {rid[:16]} ({name}) has no stored upload to compare")
    try:
        sub = parse_submission(path.read_bytes(), f"stored{path.suffix}", release, JUDGE, limits)
    except (OSError, ValueError) as exc:  # InputError is a ValueError; never quote the file
        raise CompareError(
            f"the stored upload of record {rid[:16]} ({name}) cannot be read as judge labels "
            f"({type(exc).__name__}); compare another row, or ask the Space's maintainers"
        ) from None
    return submission_side(token, sub, name)


def _evaluator_side(release: Release, token: str, evaluator: str) -> Side:
    k = release.roster.evaluator_ids.index(evaluator)
    return Side(token, release.roster.name(evaluator), "paper", release.evaluator_labels[k])


def submission_side(token: str, sub: Submission, name: str) -> Side:
    """The :class:`Side` of a parsed judge submission (a stored record's upload, or a file the
    local user named on the command line, parsed there); ``name`` is shown unless the
    submission's own metadata names it."""
    if sub.labels is None:
        raise CompareError(f"{name} holds model answers, not judge labels; compare a judge")
    labels = np.where(sub.present, sub.labels, vocab.MISSING_CODE).astype(np.int8)
    return Side(token, name, "submission", labels, np.asarray(sub.present, dtype=bool))


def resolve(
    release: Release,
    token: str,
    records: Sequence[ScoreRecord] = (),
    uploads: Mapping[str, Path] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    also: str = "",
) -> Side:
    """The :class:`Side` that ``token`` names (module docstring for what it may be).

    ``records`` are the rows of the caller's board (reference rows and stored submissions; a
    record not among them cannot be named) and ``uploads`` the stored upload of each record
    id. ``token`` is only ever compared with those ids and names, never opened. Raises
    :class:`CompareError` with a message naming what is accepted (and ``also``, what the
    caller accepts besides, e.g. the CLI's local judge file).
    """
    token = check_token(token)
    roster = release.roster
    if token.casefold() == PHYSICIANS:
        return Side(token, "Physicians (leave-one-out)", PHYSICIANS, None)
    if token in roster.evaluator_ids:
        return _evaluator_side(release, token, token)
    for base in BASELINES:
        if token.casefold() in (base.id.casefold(), base.name.casefold()):
            return Side(token, base.name, "baseline", baseline_labels(release, base))
    side = _record_side(release, token, records, uploads or {}, limits)
    if side is not None:
        return side
    accepted = [
        f"a paper evaluator ({', '.join(roster.evaluator_ids)})",
        f"'{PHYSICIANS}'",
        f"a baseline ({', '.join(b.id for b in BASELINES)})",
        "the record id of a judge row on the leaderboard (at least 8 characters)",
        *([also] if also else []),
    ]
    raise CompareError(
        f"{token!r} is not {', '.join(accepted[:-1])} or {accepted[-1]}; give one of these"
    )


@dataclass(frozen=True, eq=False)
class Difference:
    """A - B for kappa, PA and PABAK (paired intervals) on one group of answers."""

    a: measured.Agreement
    b: measured.Agreement
    kappa: Estimate
    pa: Estimate
    pabak: Estimate

    @classmethod
    def of(cls, a: measured.Agreement, b: measured.Agreement) -> Difference:
        return cls(
            a,
            b,
            paired.difference(a.kappa, b.kappa),
            paired.difference(a.pa, b.pa),
            paired.difference(a.pabak, b.pabak),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for m in METRICS:
            est: Estimate = getattr(self, m)
            out |= est.to_dict(m)
            out[f"{m}_significant"] = est.excludes_zero()
        out["a"] = {m: self.a.metric(m).value for m in METRICS} | {"n": self.a.n}
        out["b"] = {m: self.b.metric(m).value for m in METRICS} | {"n": self.b.n}
        return out


@dataclass(frozen=True, eq=False)
class Comparison:
    """Everything ``medqade compare`` prints (see :meth:`to_dict` for the JSON shape)."""

    a: Side
    b: Side
    view: str
    n_items: int
    resamples: int
    seed: int
    overall: Difference
    slots: Mapping[str, Difference]
    tiers: Mapping[int, Difference | None]
    disagreements: tuple[dict[str, Any], ...]
    n_disagreements: int
    n_both: int
    versus_physicians: Mapping[str, Any] | None = None
    breakdowns: Mapping[str, Mapping[str, Difference | None]] | None = None
    """Two judges: the paired differences per group of every breakdown dimension but the tier
    (specialty, lexical; :mod:`medqade.measures.breakdown`)."""
    board: BoardPair | None = None
    """Two judges ranked on the same board (kappa, this view): the board's simultaneous test
    of the pair beside the paired one (:mod:`medqade.scoring.simultaneous`)."""
    against_consensus: measured.Agreement | None = None
    """A judge against the physicians: the judge's agreement with the consensus of all ten,
    as ``score`` and the leaderboard show it (the ``overall`` numbers of the judge are its
    agreement *in each physician's place*, a different quantity)."""

    @property
    def judge_side(self) -> str | None:
        """``a`` or ``b``: the judge compared with the physicians (``None``: two judges)."""
        if self.a.is_physicians == self.b.is_physicians:
            return None
        return "b" if self.a.is_physicians else "a"

    @property
    def better(self) -> str | None:
        """``a`` or ``b`` when its kappa is significantly higher on the paired test, else
        ``None``."""
        k = self.overall.kappa
        if not k.excludes_zero():
            return None
        return "a" if k.low > 0 else "b"

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "view": self.view,
            "n_items": self.n_items,
            "settings": {"resamples": self.resamples, "seed": self.seed, "confidence": 0.95},
            "difference": self.overall.to_dict(),
            "better": self.better,
            "slots": {name: d.to_dict() for name, d in self.slots.items()},
            "tiers": {str(t): None if d is None else d.to_dict() for t, d in self.tiers.items()},
            "disagreements": {
                "n": self.n_disagreements,
                "n_both_labelled": self.n_both,
                "answers": list(self.disagreements),
            },
            "versus_physicians": None
            if self.versus_physicians is None
            else dict(self.versus_physicians),
            "breakdowns": None
            if self.breakdowns is None
            else {
                dim: {g: None if d is None else d.to_dict() for g, d in found.items()}
                for dim, found in self.breakdowns.items()
            },
            "board": None if self.board is None else self.board.to_dict(),
            "judge_against_consensus": None
            if self.against_consensus is None
            else {m: self.against_consensus.metric(m).value for m in METRICS}
            | {"n": self.against_consensus.n, "side": self.judge_side},
        }


def _paired(
    a: Mapping[str, measured.Agreement | None], b: Mapping[str, measured.Agreement | None]
) -> dict[str, Difference | None]:
    """Group by group: the paired difference, ``None`` where either side has none."""
    out: dict[str, Difference | None] = {}
    for g, x in a.items():
        y = b.get(g)
        out[g] = None if x is None or y is None else Difference.of(x, y)
    return out


def _slot_agreement(agr: measured.Agreement, name: str) -> measured.Agreement:
    slot = agr.slots[name]
    return measured.Agreement(kappa=slot.kappa, pa=slot.pa, n=slot.n, slots={})


def _consensus_name(code: int) -> str:
    return {vocab.RICHTIG_CODE: vocab.RICHTIG, vocab.FALSCH_CODE: vocab.FALSCH}.get(
        int(code), "unresolved"
    )


def _label_name(code: int) -> str:
    names = {
        vocab.RICHTIG_CODE: vocab.RICHTIG,
        vocab.FALSCH_CODE: vocab.FALSCH,
        vocab.ABSTAIN_CODE: vocab.KEINE_ANGABE,
    }
    return names.get(int(code), "missing")


def compare(
    release: Release,
    a: Side,
    b: Side,
    view: str = "core",
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    limit: int = 500,
    ranked: RankedBoard | None = None,
    records: Sequence[ScoreRecord] = (),
) -> Comparison:
    """Compare two sides on ``view`` (``core`` or ``full``); see the module docstring.

    ``limit`` caps the listed disagreements (their number is always complete). ``ranked``:
    the board's ranking on kappa in this view and ``records`` its rows; when both sides are
    ranked there, the comparison says whether the board separates them too
    (:attr:`Comparison.board`).
    """
    if view not in VIEWS:
        raise CompareError(f"view must be one of {', '.join(VIEWS)}, got {view[:20]!r}")
    if resamples < 1:
        raise CompareError(f"a paired comparison needs resamples >= 1, got {resamples}")
    if view == "full" and (a.is_physicians or b.is_physicians):
        raise CompareError(
            "the physician reference exists only on the core (the 200 items all ten "
            "physicians rated); compare with physicians in the core view (--view core)"
        )
    scope = context.CORE if view == "core" else context.ALL
    items = context.mask(release, scope)
    w = context.weights(release, scope, resamples, seed)
    slots = release.roster.student_ids
    consensus = release.consensus[items]
    tiers = release.tier[items]
    groups = {f"tier{t}": tiers == t for t in vocab.TIERS}

    def scored(side: Side) -> tuple[measured.Agreement, dict[str, measured.Agreement | None]]:
        # a judge's abstentions count as disagreements, as in score's core/full and the
        # leaderboard; the physicians are scored on the answers each rated (the paper's LOO)
        if side.labels is None:
            loo = context.physicians_in_place(release, resamples, seed).agreement
            by_tier = measured.grouped_leave_one_out(
                release.physician_labels[:, items], groups, slots, w
            )
            return loo, by_tier
        lab = side.labels[items]
        return (
            measured.agreement(lab, consensus, slots, w, abstain_disagrees=True),
            measured.grouped_agreement(lab, consensus, groups, slots, w, abstain_disagrees=True),
        )

    judge_side = None
    if a.is_physicians != b.is_physicians:  # a judge against the physicians: like for like
        judge_side = b if a.is_physicians else a
    if judge_side is not None and judge_side.labels is not None:
        phys = release.physician_labels[:, items]
        lab = judge_side.labels[items]

        def in_place(mask: npt.NDArray[np.bool_] | None) -> InPlace:
            if mask is None:
                return judge_in_place(
                    lab,
                    phys,
                    slots,
                    w,
                    physicians=context.physicians_in_place(release, resamples, seed),
                )
            sub_w = None if w is None else w[:, mask]
            return judge_in_place(lab[mask], phys[:, mask], slots, sub_w)

        def ordered(place: InPlace) -> Difference:
            if a.is_physicians:
                return Difference.of(place.physicians, place.judge)
            return Difference.of(place.judge, place.physicians)

        place = in_place(None)
        overall = ordered(place)
        by_tier = {
            t: ordered(in_place(groups[f"tier{t}"])) if groups[f"tier{t}"].any() else None
            for t in vocab.TIERS
        }
        consensus_agreement = measured.agreement(lab, consensus, slots, w, abstain_disagrees=True)
        found = judge_scoring.against_physicians(
            release,
            judge_side.labels,
            np.ones(judge_side.labels.shape, dtype=bool)
            if judge_side.present is None
            else judge_side.present,
            Settings(resamples=resamples, seed=seed),
        )
        versus: dict[str, Any] | None = (found.core.to_json() if found.core else {}) | {
            "verdict": found.verdict,
            "headline": found.headline.to_json(),
            "alt_test": None if found.alt_test is None else found.alt_test.to_json(),
        }
    else:
        agr_a, tiers_a = scored(a)
        agr_b, tiers_b = scored(b)
        overall = Difference.of(agr_a, agr_b)
        by_tier = {}
        for t in vocab.TIERS:
            ta, tb = tiers_a[f"tier{t}"], tiers_b[f"tier{t}"]
            by_tier[t] = None if ta is None or tb is None else Difference.of(ta, tb)
        versus = None
        consensus_agreement = None
    parts = None
    if a.labels is not None and b.labels is not None:
        dims = measured_breakdown.dimensions(
            release.questions[items].reset_index(drop=True), tiers, release.lexical[items]
        )
        dims.pop(measured_breakdown.TIER)  # the tiers are above
        found_a, found_b = (
            measured_breakdown.breakdowns(lab[items], consensus, dims, slots, w).groups
            for lab in (a.labels, b.labels)
        )
        parts = {dim: _paired(found_a[dim], found_b[dim]) for dim in found_a}
    lab_a = release.consensus if a.labels is None else a.labels
    lab_b = release.consensus if b.labels is None else b.labels
    sub_a = measured.substantive(lab_a) >= 0
    sub_b = measured.substantive(lab_b) >= 0
    both = sub_a & sub_b & items[:, None]
    differ = both & (lab_a != lab_b)
    listed: list[dict[str, Any]] = []
    for i, s in zip(*np.nonzero(differ), strict=True):
        if len(listed) >= limit:
            break
        listed.append(
            {
                "answer_id": answer_id(str(release.item_ids[i]), slots[s]),
                "a": _label_name(lab_a[i, s]),
                "b": _label_name(lab_b[i, s]),
                "consensus": _consensus_name(release.consensus[i, s]),
            }
        )
    return Comparison(
        a=a,
        b=b,
        view=view,
        n_items=int(items.sum()),
        resamples=resamples,
        seed=seed,
        overall=overall,
        slots={
            name: Difference.of(_slot_agreement(overall.a, name), _slot_agreement(overall.b, name))
            for name in slots
        },
        tiers=by_tier,
        disagreements=tuple(listed),
        n_disagreements=int(differ.sum()),
        n_both=int(both.sum()),
        versus_physicians=versus,
        breakdowns=parts,
        board=board_pair(
            ranked,
            _board_row(a, records, view),
            _board_row(b, records, view),
            overall.kappa,
        ),
        against_consensus=consensus_agreement,
    )


def _board_row(side: Side, records: Sequence[ScoreRecord], view: str) -> Any:
    """The board key (kappa, ``view``) of the record ``side`` names, ``None`` when none
    does (the physicians, a local file)."""
    if side.is_physicians:
        return None
    judges = [r for r in records if r.kind == JUDGE]
    if len(side.token) >= MIN_PREFIX:
        found = {str(r.id) for r in judges if str(r.id or "").startswith(side.token)}
        if len(found) == 1:
            return board_key(found.pop(), view, "kappa")
    for r in judges:
        meta = r.meta or RecordMeta()
        if meta.source != side.source or side.source not in ("paper", "baseline"):
            continue
        if meta.model_id == side.token or r.name == side.name:
            return board_key(str(r.id), view, "kappa")
    return None


__all__ = [
    "MAX_TOKEN",
    "PHYSICIANS",
    "CompareError",
    "Comparison",
    "Difference",
    "Side",
    "check_token",
    "compare",
    "resolve",
    "submission_side",
]
