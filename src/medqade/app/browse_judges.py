"""The judges Browse can filter by and show: the paper evaluators and the judges submitted to
the Space, each with its labels (items, 5) and, per item, whether it disagrees with the
physicians' consensus on some answer. Found by display name, by id (a paper evaluator's model
id, a submission's record id) or by a unique id prefix. Thread-safe: the Space adds a judge
while visitors filter.
"""

from __future__ import annotations

import threading
from typing import Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.dataset.release import Release

MIN_ID_PREFIX: Final = 8
"""The shortest record id prefix the judge filter accepts (as ``/compare``)."""
PAPER: Final = "paper evaluator"
SUBMITTED: Final = "submitted judge"

Codes = npt.NDArray[np.int8]
Mask = npt.NDArray[np.bool_]


def disagrees(labels: Codes, consensus: Codes) -> Mask:
    """Per item: some answer where ``labels`` (items, 5) is substantive and differs."""
    substantive = (labels == vocab.RICHTIG_CODE) | (labels == vocab.FALSCH_CODE)
    resolved = consensus != vocab.MISSING_CODE
    return np.asarray((substantive & resolved & (labels != consensus)).any(axis=1))


class BrowseJudges:
    """The paper evaluators of ``release`` and the judges added since (see the module
    docstring), disagreeing with ``consensus`` (default: the release's)."""

    def __init__(self, release: Release, consensus: Codes | None = None) -> None:
        self.consensus = release.consensus if consensus is None else consensus
        roster = release.roster
        ev = release.evaluator_labels
        self._lock = threading.Lock()
        self._paper: dict[str, Codes] = {
            roster.name(e): ev[k] for k, e in enumerate(roster.evaluator_ids)
        }
        self._submitted: dict[str, Codes] = {}
        # ids (a paper evaluator's model id, a submission's record id) -> display name: the
        # judge filter takes either, as /compare takes ids
        self._ids: dict[str, str] = {e: roster.name(e) for e in roster.evaluator_ids}
        self._disagree: dict[str, Mask] = {
            name: disagrees(codes, self.consensus) for name, codes in self._paper.items()
        }

    def choices(self) -> list[str]:
        """Every judge's display name: the paper evaluators, then the submitted judges."""
        with self._lock:
            return [*self._paper, *self._submitted]

    def name(self, judge: str | None) -> str:
        """The display name a judge filter value means: a display name as it is, else a paper
        evaluator's id, a submitted judge's record id or a unique prefix of at least
        :data:`MIN_ID_PREFIX` characters of one; ``""`` when it names no judge."""
        token = (judge or "").strip()
        with self._lock:
            if token in self._paper or token in self._submitted:
                return token
            if token in self._ids:
                return self._ids[token]
            if len(token) >= MIN_ID_PREFIX:
                hits = {n for i, n in self._ids.items() if i.startswith(token)}
                if len(hits) == 1:
                    return hits.pop()
        return ""

    def labels(self, judge: str | None) -> Codes | None:
        """The labels (items, 5) of a paper evaluator or submitted judge by display name (or
        id, see :meth:`name`)."""
        name = self.name(judge)
        with self._lock:
            return self._paper.get(name, self._submitted.get(name))

    def disagreement(self, judge: str | None) -> Mask | None:
        """Per item, whether the judge (see :meth:`name`) disagrees with the consensus on some
        answer; ``None`` when it names no judge."""
        name = self.name(judge)
        with self._lock:
            return self._disagree.get(name)

    def every(self) -> list[tuple[str, Codes, str]]:
        """``(name, labels, role)`` of every judge, the paper evaluators first (role
        :data:`PAPER`), then the submitted ones (:data:`SUBMITTED`)."""
        with self._lock:
            out = [(n, c, PAPER) for n, c in self._paper.items()]
            return out + [(n, c, SUBMITTED) for n, c in self._submitted.items()]

    def add(self, name: str, labels: Codes, record_id: str | None = None) -> str:
        """Register a submitted judge's labels (items, 5); returns the unique name it got
        (the filter also finds it by ``record_id``)."""
        if labels.shape != self.consensus.shape:
            raise ValueError(
                f"judge labels have shape {labels.shape}, expected {self.consensus.shape}"
            )
        mask = disagrees(labels, self.consensus)
        with self._lock:
            unique, k = name, 2
            while unique in self._paper or unique in self._submitted:
                unique, k = f"{name} ({k})", k + 1
            self._submitted[unique] = labels
            self._disagree[unique] = mask
            if record_id:
                self._ids.setdefault(record_id, unique)
        return unique
