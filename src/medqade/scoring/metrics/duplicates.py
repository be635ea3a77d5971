"""Copies of reference rows: a submission whose labels (or answers) are a reference row's.

A submission that repeats the labels of one of the paper's evaluators (or of a baseline
judge), or the answers of one of the paper's students, adds nothing to the leaderboard: its
scores are that row's scores. :func:`reference_match` compares a parsed submission with every
reference row on the slots (items, for answers) it covers:

* **duplicate** (flag ``duplicate_of_reference``): every usable label the submission has is
  the reference row's label on that slot (for answers: every given answer equals the
  student's, after the normalisation the scorer anchors with). Slots the submission leaves
  empty are not compared, so a copy with holes is still a copy. The Space refuses it, as it
  refuses the same content submitted twice; ``medqade score`` flags it.
* **near duplicate** (flag ``near_duplicate_of_reference``): at least
  :data:`NEAR_SHARE` of the compared slots agree. Distinct paper evaluators agree on at most
  about 85 % of the slots, and students on about 25 % of the answers, so this is far from two
  real judges agreeing; it is flagged and scored, never refused, because a threshold can be
  wrong for a genuine judge and a maintainer can look at the row.

Both need at least :data:`MIN_SLOTS` compared slots (:data:`MIN_ITEMS` answers), or all of a
release that is smaller: a tiny partial file matches some reference by chance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.scoring.intake import JUDGE, normalise
from medqade.scoring.metrics import context
from medqade.scoring.metrics.baselines import BASELINES, baseline_labels
from medqade.scoring.record import SubmissionInfo

if TYPE_CHECKING:
    from medqade.dataset.release import Release
    from medqade.scoring.intake import Submission

DUPLICATE_FLAG: Final = "duplicate_of_reference"
NEAR_FLAG: Final = "near_duplicate_of_reference"
NEAR_SHARE: Final = 0.99
MIN_SLOTS: Final = 200
MIN_ITEMS: Final = 50


@dataclass(frozen=True)
class ReferenceMatch:
    """The reference row a submission copies: its id, name and role, and how close it is."""

    model_id: str
    name: str
    role: str  # "paper evaluator" | "baseline judge" | "paper student"
    compared: int
    agreement: float

    @property
    def exact(self) -> bool:
        return self.agreement >= 1.0

    @property
    def flag(self) -> str:
        return DUPLICATE_FLAG if self.exact else NEAR_FLAG

    @property
    def unit(self) -> str:
        return "answers" if self.role == "paper student" else "labelled slots"

    def describe(self) -> str:
        return f"the {self.role} {self.name} ({self.model_id})"

    def marked(self, info: SubmissionInfo) -> SubmissionInfo:
        """The record's ``submission`` section ``info`` saying what the submission copies."""
        if self.exact:
            return info.updated(duplicate_of=self.model_id, duplicate_of_agreement=self.agreement)
        return info.updated(
            near_duplicate_of=self.model_id, near_duplicate_of_agreement=self.agreement
        )

    def note(self) -> str:
        """One line for the record's warnings (and the Space's refusal)."""
        if self.exact:
            return (
                f"duplicate of a reference row: every one of the {self.compared:,} {self.unit} "
                f"equals {self.describe()}; its scores are that row's"
            )
        return (
            f"near duplicate of a reference row: {self.agreement:.2%} of the "
            f"{self.compared:,} {self.unit} equal {self.describe()}; check that this is an "
            "independent run"
        )


def _best(
    candidates: list[tuple[str, str, str, npt.NDArray[np.bool_]]], compared: int
) -> ReferenceMatch | None:
    best: ReferenceMatch | None = None
    for model_id, name, role, same in candidates:
        share = float(same.sum()) / compared
        if share >= NEAR_SHARE and (best is None or share > best.agreement):
            best = ReferenceMatch(model_id, name, role, compared, share)
    return best


def _judge_match(release: Release, sub: Submission) -> ReferenceMatch | None:
    if sub.labels is None:
        return None
    mask = sub.present & (sub.labels != vocab.MISSING_CODE)
    compared = int(mask.sum())
    if compared < min(MIN_SLOTS, release.n_items * vocab.N_SLOTS):
        return None
    given = sub.labels[mask]
    roster = release.roster
    candidates = [
        (ev.id, ev.name, "paper evaluator", release.evaluator_labels[k][mask] == given)
        for k, ev in enumerate(roster.evaluators)
    ]
    candidates += [
        (b.id, b.name, "baseline judge", baseline_labels(release, b)[mask] == given)
        for b in BASELINES
    ]
    return _best(candidates, compared)


def _student_keys(release: Release) -> npt.NDArray[np.object_]:
    def compute() -> npt.NDArray[np.object_]:
        texts = release.answer_text
        keys = np.empty(texts.shape, dtype=object)
        for idx, a in np.ndenumerate(texts):
            keys[idx] = normalise(a, strip_articles=True) if isinstance(a, str) else None
        keys.setflags(write=False)
        return keys

    value: npt.NDArray[np.object_] = context.memo(release, "duplicates:student-keys", compute)
    return value


def _answers_match(release: Release, sub: Submission) -> ReferenceMatch | None:
    if sub.answers is None:
        return None
    items = [i for i, a in enumerate(sub.answers) if a is not None and bool(sub.present[i])]
    compared = len(items)
    if compared < min(MIN_ITEMS, release.n_items):
        return None
    given = np.array([normalise(str(sub.answers[i]), strip_articles=True) for i in items], object)
    keys = _student_keys(release)[items]
    candidates = [
        (st.id, st.name, "paper student", keys[:, s] == given)
        for s, st in enumerate(release.roster.students)
    ]
    return _best(candidates, compared)


def reference_match(release: Release, submission: Submission) -> ReferenceMatch | None:
    """The reference row that ``submission`` copies or nearly copies (module docstring)."""
    if submission.kind == JUDGE:
        return _judge_match(release, submission)
    return _answers_match(release, submission)
