"""What scoring derives from a release alone, computed once per loaded release and reused.

Bootstrap weights, the leave-one-out physician reference, normalised answer keys, physician
vote counts and the reference evaluators' ensembles do not depend on the submission. They are
kept in a cache keyed weakly by the :class:`~medqade.dataset.release.Release` object, so a Space
that scores many submissions against one release pays for them once; a new release gets a new
entry and a dropped release frees its entry.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import (
    BOOTSTRAP_SEED,
    STREAM_ALL,
    STREAM_BIAS,
    STREAM_CORE,
    Agreement,
    ExtensionPairs,
    PerRater,
    agreement,
    physician_weights,
    question_weights,
    quiet_leave_one_out,
)
from medqade.measures import extension_pairs as measure_extension_pairs
from medqade.measures import physicians_in_place as measure_physicians_in_place
from medqade.scoring.intake import normalise

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Weights = npt.NDArray[np.int64]
CORE = "core"
ALL = "all"


@dataclass
class _Entry:
    weights: dict[tuple[str, int, int], Weights] = field(default_factory=dict)
    loo: dict[tuple[int, int], Agreement] = field(default_factory=dict)
    derived: dict[str, Any] = field(default_factory=dict)


_CACHE: weakref.WeakKeyDictionary[Release, _Entry] = weakref.WeakKeyDictionary()


def _entry(release: Release) -> _Entry:
    entry = _CACHE.get(release)
    if entry is None:
        entry = _Entry()
        _CACHE[release] = entry
    return entry


def clear(release: Release | None = None) -> None:
    """Forget cached values (of one release, or of all)."""
    if release is None:
        _CACHE.clear()
    else:
        _CACHE.pop(release, None)


def mask(release: Release, scope: str) -> npt.NDArray[np.bool_]:
    """Items of ``scope``: ``core`` (the core split) or ``all``."""
    if scope == CORE:
        return np.asarray(release.is_core, dtype=bool)
    return np.ones(release.n_items, dtype=bool)


def weights(release: Release, scope: str, resamples: int, seed: int) -> Weights | None:
    """Question bootstrap weights (R, items of ``scope``), exactly
    ``seeds.question_weights(n, resamples, seed, stream)`` with the core stream for ``core``
    and the all-items stream for ``all``; ``None`` when ``resamples == 0``."""
    if resamples == 0:
        return None
    entry = _entry(release)
    key = (scope, resamples, seed)
    if key not in entry.weights:
        n = int(mask(release, scope).sum())
        stream = STREAM_CORE if scope == CORE else STREAM_ALL
        w = question_weights(n, resamples, seed, stream)
        w.setflags(write=False)
        entry.weights[key] = w
    return entry.weights[key]


def float_weights(
    release: Release, scope: str, resamples: int, seed: int
) -> npt.NDArray[np.float64] | None:
    """:func:`weights` as float64 (the same counts, for matrix products)."""
    w = weights(release, scope, resamples, seed)
    if w is None:
        return None
    value: npt.NDArray[np.float64] = memo(
        release, f"float-weights:{scope}:{resamples}:{seed}", lambda: w.astype(np.float64)
    )
    return value


def bias_weights(release: Release, resamples: int, seed: int) -> npt.NDArray[np.float64] | None:
    """The RQ4 bias weights of ``medqade reproduce`` (all items, stream ``STREAM_BIAS``)."""
    if resamples == 0:
        return None

    def compute() -> npt.NDArray[np.float64]:
        w = question_weights(release.n_items, resamples, seed, STREAM_BIAS)
        return w.astype(np.float64)

    value: npt.NDArray[np.float64] = memo(release, f"bias-weights:{resamples}:{seed}", compute)
    return value


def physician_reference(release: Release, resamples: int, seed: int) -> Agreement:
    """The leave-one-out physician reference on the core, with the core weights."""
    entry = _entry(release)
    key = (resamples, seed)
    if key not in entry.loo:
        core = mask(release, CORE)
        entry.loo[key] = quiet_leave_one_out(
            release.physician_labels[:, core],
            release.roster.student_ids,
            weights(release, CORE, resamples, seed),
        )
    return entry.loo[key]


def physicians_in_place(release: Release, resamples: int, seed: int) -> PerRater:
    """The physicians' side of the like-for-like verdict on the core, with the core weights:
    :func:`medqade.measures.in_place.physicians_in_place`."""

    def compute() -> PerRater:
        core = mask(release, CORE)
        return measure_physicians_in_place(
            release.physician_labels[:, core],
            release.roster.student_ids,
            weights(release, CORE, resamples, seed),
        )

    value: PerRater = memo(release, f"in-place:{resamples}:{seed}", compute)
    return value


def panel_weights(release: Release, resamples: int, seed: int) -> Weights | None:
    """The physician weights (R, physicians) of the two-way bootstrap behind every verdict
    (:func:`medqade.measures.seeds.physician_weights`), shared by every judge; ``None``
    without resamples."""
    if resamples < 1:
        return None

    def compute() -> Weights:
        n = int(release.physician_labels.shape[0])
        return physician_weights(n, resamples, seed)

    value: Weights = memo(release, f"panel-weights:{resamples}:{seed}", compute)
    return value


def extension_pairs(release: Release) -> ExtensionPairs:
    """The extension's two primary physicians of every item
    (:func:`medqade.measures.verdicts.extension_pairs`)."""

    def compute() -> ExtensionPairs:
        roster = release.roster
        adj = roster.physicians.index(roster.adjudicator)
        return measure_extension_pairs(release.physician_labels, adj, mask(release, CORE))

    value: ExtensionPairs = memo(release, "extension-pairs", compute)
    return value


def prepare(release: Release, resamples: int = 1000, seed: int = BOOTSTRAP_SEED) -> None:
    """Compute the per-release values now (e.g. when a Space starts), so that the first
    submission is as fast as the later ones."""
    for scope in (CORE, ALL):
        float_weights(release, scope, resamples, seed)
    bias_weights(release, resamples, seed)
    physician_reference(release, resamples, seed)
    physicians_in_place(release, resamples, seed)
    panel_weights(release, resamples, seed)
    extension_pairs(release)
    for name in ("answer_keys", "votes", "evaluator_core_kappa"):
        derived(release, name)


def derived(release: Release, name: str) -> Any:
    """Named per-release arrays (see the branches), computed on first use."""
    entry = _entry(release)
    if name in entry.derived:
        return entry.derived[name]
    value: Any
    if name == "answer_keys":
        value = np.array(
            [
                None if not isinstance(a, str) else normalise(a, strip_articles=True)
                for a in release.answer_text.ravel()
            ],
            dtype=object,
        ).reshape(release.answer_text.shape)
    elif name == "votes":
        p = release.physician_labels
        value = (
            (p == vocab.RICHTIG_CODE).sum(axis=0).astype(np.int64),
            (p == vocab.FALSCH_CODE).sum(axis=0).astype(np.int64),
        )
    elif name == "evaluator_core_kappa":
        core = mask(release, CORE)
        value = {
            e: agreement(
                release.evaluator_labels[k][core],
                release.consensus[core],
                release.roster.student_ids,
            ).kappa.value
            for k, e in enumerate(release.roster.evaluator_ids)
        }
    else:
        raise KeyError(name)
    entry.derived[name] = value
    return value


def memo(release: Release, key: str, compute: Any) -> Any:
    """``compute()`` once per release and ``key`` (for values built by other modules)."""
    entry = _entry(release)
    if key not in entry.derived:
        entry.derived[key] = compute()
    return entry.derived[key]
