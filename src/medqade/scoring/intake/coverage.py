"""What a submission covers, and the content hashes that identify it.

Scope is ``full`` (every item), ``core`` (exactly the core items) or ``partial``; coverage is
the share of present items or slots in the core, the extension and all. Content hashes are
SHA-256 over canonical lines in release order, so the same content hashes the same whatever
the file format.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from medqade.files.problems import Problem
from medqade.scoring.intake.kinds import JUDGE

if TYPE_CHECKING:
    from medqade.dataset.release import Release


def scope_of(present_items: npt.NDArray[np.bool_], is_core: npt.NDArray[np.bool_]) -> str:
    if present_items.all():
        return "full"
    if present_items[is_core].all() and not present_items[~is_core].any():
        return "core"
    return "partial"


def _share(x: npt.NDArray[np.bool_]) -> float:
    return float(x.mean()) if x.size else float("nan")


def coverage_of(present: npt.NDArray[np.bool_], is_core: npt.NDArray[np.bool_]) -> dict[str, float]:
    return {
        "core": _share(present[is_core]),
        "extension": _share(present[~is_core]),
        "all": _share(present),
    }


def hash_lines(lines: Iterable[str]) -> str:
    return hashlib.sha256("".join(f"{line}\n" for line in lines).encode("utf-8")).hexdigest()


def judge_content_hash(
    release: Release, labels: npt.NDArray[np.int8], present: npt.NDArray[np.bool_]
) -> str:
    """SHA-256 of the labelled slots (release order): the same labels hash the same in any
    file format, and equal the hash of a reference row with these labels."""
    aids = release.item_ids
    students = release.roster.student_ids
    return hash_lines(
        f"judge\t{aids[i]}/{students[s]}\t{int(labels[i, s])}"
        for i, s in zip(*np.nonzero(present), strict=True)
    )


def answers_content_hash(
    release: Release, answers: Sequence[str | None], present: npt.NDArray[np.bool_]
) -> str:
    """SHA-256 of the submitted answers (release order)."""
    return hash_lines(
        f"answers\t{release.item_ids[i]}\t{json.dumps(answers[int(i)], ensure_ascii=False)}"
        for i in np.flatnonzero(present)
    )


def coverage_note(name: str, kind: str, coverage: Mapping[str, float]) -> Problem:
    unit = "answer slots" if kind == JUDGE else "questions"
    counted = (
        "unscored answer slots count as disagreements in kappa, PA, PABAK and the verdict "
        "(the agreement when rated leaves them out)"
        if kind == JUDGE
        else f"unscored {unit} are not counted as wrong"
    )
    return Problem(
        name,
        None,
        f"partial coverage: {coverage['all']:.1%} of all {unit} "
        f"({coverage['core']:.1%} of the core); {counted}",
        fix="submit the core (200 questions) or all questions to be ranked",
    )
