"""Position bias: does the place an answer is shown at change the judge's label?

A judge sees the five answers of a question in a randomised order (position 1-5). Per position
``p``, over the questions whose five positions are known (a permutation of 1..5):

- ``richtig``: the share of ``Richtig`` among the substantive labels (``Richtig`` or
  ``Falsch``) at ``p``;
- ``agreement``: the share of the answers at ``p`` with a resolved physician consensus on
  which the judge gives the consensus label (an abstention or a missing label counts as a
  disagreement, as in the headline agreement);

each with a 95% percentile interval from the question bootstrap weights of the view (the
ratio of the weighted counts, :func:`medqade.measures.estimate.proportion`).

**One position-effect statistic**: Pearson's chi-square of the 5 x 2 table position x
(``Richtig``, ``Falsch``) of the substantive labels, with Cramér's V (``sqrt(chi2 / N)``) as its
size. Its p-value comes from a **permutation test within questions** that uses the randomised
order itself: under the null hypothesis that the position does not change the label, every
order of a question's five answers was equally likely to be shown and would have received the
same labels, so each replicate shuffles the five positions of every question independently
(uniformly over the 120 orders) and recomputes the chi-square. The p-value is
``(1 + #{chi2* >= chi2}) / (1 + B)`` over ``B`` permutations. The answers stay with their
question and their labels, so differences in quality between the students (slot effects) are
not mistaken for position effects. The draws come from
:data:`~medqade.measures.seeds.STREAM_POSITION` (:func:`permuted_counts` draws them per
multiset of labels, the same distribution at a fraction of the cost), in a stream of the
judge's own: :func:`~medqade.measures.seeds.keyed_generator` of the seed, that stream and the
**test's input** (:func:`permutation_key`: the position-ordered label codes of the complete
questions, with their shape), so two judges' p-values are not computed on the same
permutations, and the same labels at the same positions give the same p-value. The key is the
labels rather than a record id or a name: it exists before any record does, names can be
chosen, and a judge whose input is identical gets the identical test. Its first 16 hex digits
are stored as ``permutation_key``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from itertools import permutations
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.measures.estimate import Estimate, ratio
from medqade.measures.seeds import BOOTSTRAP_SEED, STREAM_POSITION, keyed_generator, stream_key

Codes = npt.NDArray[np.int8]

N_POSITIONS: Final = vocab.N_SLOTS
ORDERS: Final = tuple(permutations(range(N_POSITIONS)))
"""The 120 orders of five positions; a permutation draw is an index into this tuple."""
PERMUTATIONS: Final = 1000
"""Permutations of the position-effect test by default."""
_ORDER_ARRAY = np.array(ORDERS, dtype=np.int64)


def complete(positions: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Questions (rows) whose five positions are a permutation of 1..5."""
    pos = np.asarray(positions)
    out: npt.NDArray[np.bool_] = np.all(
        np.sort(pos, axis=1) == np.arange(1, N_POSITIONS + 1), axis=1
    )
    return out


def by_position(values: npt.ArrayLike, positions: npt.ArrayLike) -> npt.NDArray[Any]:
    """``values`` (items, slots) rearranged so column ``k`` holds the answer at position
    ``k + 1`` (rows must be complete)."""
    v = np.asarray(values)
    order = np.argsort(np.asarray(positions), axis=1, kind="stable")
    return np.take_along_axis(v, order, axis=1)


def chi_square(richtig: npt.ArrayLike, falsch: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Pearson's chi-square of the table position x (Richtig, Falsch) along the last axis
    (cells with zero expected count are left out; NaN when no substantive label)."""
    r = np.asarray(richtig, dtype=np.float64)
    f = np.asarray(falsch, dtype=np.float64)
    n_pos = r + f
    total = n_pos.sum(axis=-1, keepdims=True)
    col_r = r.sum(axis=-1, keepdims=True)
    col_f = f.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        e_r = n_pos * col_r / total
        e_f = n_pos * col_f / total
        t_r = np.where(e_r > 0, (r - e_r) ** 2 / np.where(e_r > 0, e_r, 1.0), 0.0)
        t_f = np.where(e_f > 0, (f - e_f) ** 2 / np.where(e_f > 0, e_f, 1.0), 0.0)
    out = (t_r + t_f).sum(axis=-1)
    return np.where(total[..., 0] > 0, out, np.nan)


@dataclass(frozen=True, eq=False)
class PositionBias:
    """A judge's labels by presentation position (module docstring)."""

    richtig: tuple[Estimate, ...]
    agreement: tuple[Estimate, ...]
    n_labelled: tuple[int, ...]
    n_resolved: tuple[int, ...]
    chi2: float
    cramers_v: float
    p_value: float
    permutations: int
    n_items: int
    permutation_key: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "positions": list(range(1, N_POSITIONS + 1)),
            "richtig": [e.value for e in self.richtig],
            "richtig_ci": [list(e.ci) for e in self.richtig],
            "agreement": [e.value for e in self.agreement],
            "agreement_ci": [list(e.ci) for e in self.agreement],
            "n_labelled": list(self.n_labelled),
            "n_resolved": list(self.n_resolved),
            "statistic": "chi2 position x (Richtig, Falsch)",
            "chi2": self.chi2,
            "cramers_v": self.cramers_v,
            "p_value": self.p_value,
            "test": "permutation of the five positions within each question",
            "permutations": self.permutations,
            "permutation_key": self.permutation_key,
            "n_items": self.n_items,
        }


def permutation_key(codes: npt.NDArray[np.int64]) -> bytes:
    """The key of a judge's permutation stream: its position-ordered codes (questions, 5; 0
    other, 1 Richtig, 2 Falsch) as little-endian int8 bytes after their shape."""
    arr = np.ascontiguousarray(codes, dtype="<i1")
    return np.asarray(arr.shape, dtype="<i8").tobytes() + arr.tobytes()


def permuted_counts(
    codes: npt.NDArray[np.int64], n_permutations: int, rng: np.random.Generator
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Richtig and Falsch counts per position (B, 5) under ``n_permutations`` draws of an
    independent uniform order per question, for position-ordered ``codes`` (questions, 5;
    0 other, 1 Richtig, 2 Falsch).

    A uniformly shuffled question shows each distinct arrangement of its five labels with equal
    probability, and questions with the same multiset of labels are exchangeable, so a draw is,
    per multiset of ``m`` questions, multinomial counts of ``m`` over its distinct arrangements
    (at most 21 multisets and 30 arrangements each): the same distribution as shuffling every
    question, in O(B) work per multiset rather than O(B x questions)."""
    b = int(n_permutations)
    r = np.zeros((b, N_POSITIONS))
    f = np.zeros((b, N_POSITIONS))
    key = np.sort(codes, axis=1) @ (3 ** np.arange(N_POSITIONS))
    keys, sizes = np.unique(key, return_counts=True)
    for code, m in zip(keys.tolist(), sizes.tolist(), strict=True):
        is_r, is_f = _arrangements(int(code))
        k = is_r.shape[0]
        if k == 1:
            r += m * is_r[0]
            f += m * is_f[0]
            continue
        n = rng.multinomial(m, np.full(k, 1.0 / k), size=b).astype(np.float64)
        r += n @ is_r
        f += n @ is_f
    return r, f


@cache
def _arrangements(code: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The distinct arrangements (K, 5) of the sorted labels encoded in base 3 by ``code``,
    as Richtig and Falsch indicators, in lexicographic order (deterministic)."""
    labels = (code // 3 ** np.arange(N_POSITIONS)) % 3
    arrangements = np.unique(labels[_ORDER_ARRAY], axis=0)
    return (arrangements == 1).astype(np.float64), (arrangements == 2).astype(np.float64)


def _shares(
    hits: npt.NDArray[np.bool_], counted: npt.NDArray[np.bool_], weights: npt.ArrayLike | None
) -> tuple[tuple[Estimate, ...], tuple[Estimate, ...]]:
    """Column shares ``sum(hits) / sum(counted)`` with replicates ``(w @ hits) / (w @ counted)``
    (one product for all columns), split into the first and second five columns."""
    value = ratio(hits.sum(axis=0), counted.sum(axis=0))
    reps = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        reps = ratio(w @ hits.astype(np.float64), w @ counted.astype(np.float64))
        ci = stats.percentile_ci(reps)
        low, high = np.asarray(ci.low), np.asarray(ci.high)
        undefined = np.isnan(reps).sum(axis=0)
    out = []
    for k in range(hits.shape[1]):
        if reps is None:
            out.append(Estimate.from_replicates(float(value[k]), None))
        else:
            bounds = (float(low[k]), float(high[k]))
            out.append(Estimate(float(value[k]), *bounds, reps[:, k], int(undefined[k])))
    return tuple(out[:N_POSITIONS]), tuple(out[N_POSITIONS:])


def position_bias(
    labels: npt.ArrayLike,
    positions: npt.ArrayLike,
    consensus: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
    permutations: int = PERMUTATIONS,
    seed: int = BOOTSTRAP_SEED,
) -> PositionBias | None:
    """Position bias of ``labels`` (items, 5) shown at ``positions`` (items, 5; 1-5, 0 when
    unknown) against ``consensus`` (items, 5); ``weights`` (R, items) question bootstrap
    weights; ``permutations`` of the test (0: no test) from ``seed``'s
    :data:`~medqade.measures.seeds.STREAM_POSITION`, keyed by the judge's input
    (:func:`permutation_key`). ``None`` when no question has all five positions."""
    lab = np.asarray(labels)
    pos = np.asarray(positions)
    cons = np.asarray(consensus)
    full = complete(pos)
    if not full.any():
        return None
    safe = np.where(full[:, None], pos, np.arange(1, N_POSITIONS + 1))
    lab_p = np.where(full[:, None], by_position(lab, safe), vocab.MISSING_CODE)
    cons_p = np.where(full[:, None], by_position(cons, safe), vocab.MISSING_CODE)
    richtig = lab_p == vocab.RICHTIG_CODE
    falsch = lab_p == vocab.FALSCH_CODE
    labelled = richtig | falsch
    resolved = cons_p >= 0
    agree = resolved & (lab_p == cons_p)
    share, agr = _shares(
        np.concatenate([richtig, agree], axis=1),
        np.concatenate([labelled, resolved], axis=1),
        weights,
    )
    r_k = richtig.sum(axis=0)
    f_k = falsch.sum(axis=0)
    chi2 = float(chi_square(r_k, f_k))
    n_lab = int(r_k.sum() + f_k.sum())
    v = math.sqrt(chi2 / n_lab) if n_lab and not math.isnan(chi2) else math.nan
    p_value = math.nan
    n_perm = 0
    key = None
    if permutations and not math.isnan(chi2):
        codes = (richtig.astype(np.int64) + 2 * falsch.astype(np.int64))[full]
        data = permutation_key(codes)
        rng = keyed_generator(seed, STREAM_POSITION, data)
        perm = chi_square(*permuted_counts(codes, permutations, rng))
        n_perm = int(permutations)
        key = f"{stream_key(data):032x}"[:16]
        # a tolerance so that a permutation equal to the data up to rounding counts as ">="
        hits = int(np.sum(perm >= chi2 - 1e-9 * max(1.0, chi2)))
        p_value = (1 + hits) / (1 + n_perm)
    return PositionBias(
        richtig=share,
        agreement=agr,
        n_labelled=tuple(int(x) for x in labelled.sum(axis=0)),
        n_resolved=tuple(int(x) for x in resolved.sum(axis=0)),
        chi2=chi2,
        cramers_v=v,
        p_value=p_value,
        permutations=n_perm,
        n_items=int(full.sum()),
        permutation_key=key,
    )


def release_positions(
    judgments: Any, slot_index: dict[str, tuple[int, int]], evaluators: tuple[str, ...], n: int
) -> npt.NDArray[np.int8]:
    """Positions (evaluators, items, 5) from the ``judgments`` table (0 where none)."""
    import pandas as pd

    out = np.zeros((len(evaluators), n * N_POSITIONS), dtype=np.int8)
    flat = np.array([i * N_POSITIONS + s for i, s in slot_index.values()], dtype=np.int64)
    where = pd.Index(list(slot_index)).get_indexer(judgments["answer_id"])
    ev = pd.Index(list(evaluators)).get_indexer(judgments["evaluator"])
    ok = (where >= 0) & (ev >= 0)
    out[ev[ok], flat[where[ok]]] = judgments["position"].to_numpy()[ok]
    return out.reshape(len(evaluators), n, N_POSITIONS)
