"""What a judge's outputs were: labels, abstentions, unparseable replies, or nothing.

Every answer the judge was asked about ends in exactly one of four kinds:

- **labelled**: a ``Richtig`` or ``Falsch`` label;
- **abstained**: ``Keine Angabe``, a valid reply that declines to label;
- **invalid**: the judge replied, but the reply could not be parsed into a label (marked by the
  caller's ``invalid`` mask; such an answer carries no code, ``-1``). An invalid reply is
  neither a label nor an abstention: counting it as an abstention would credit a broken output
  with clinical caution, and dropping it would hide it;
- **missing**: no reply at all (no row for the answer), ``-1`` without the mark.

The shares are counts over all answers given (items x slots), each with a 95% percentile
interval over question resamples (the ratio of the ``w``-weighted per-question counts,
:func:`medqade.measures.estimate.proportion`). ``invalid_of_replies`` is the parse-failure
rate among the replies the judge did give (labelled + abstained + invalid), the coverage
figure other judge boards report. None of these enters agreement: there an invalid or missing
label, like an abstention, counts as a disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures.estimate import Estimate, proportion

__all__ = ["KINDS", "OutputShares", "output_kinds", "output_shares"]

KINDS: Final = ("labelled", "abstained", "invalid", "missing")
"""The four kinds of output, in the order of :attr:`OutputShares.counts`."""


def output_kinds(codes: npt.ArrayLike, invalid: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The kind of every answer, an index into :data:`KINDS` (same shape as ``codes``).

    ``ValueError`` when an answer marked invalid carries a code (a label or an abstention: a
    reply is either parsed or not), or when a code is none of 0, 1, 2, -1."""
    c = np.asarray(codes, dtype=np.int64)
    bad = np.asarray(invalid, dtype=bool)
    if bad.shape != c.shape:
        raise ValueError("the invalid mask must have the shape of the codes")
    if (bad & (c != vocab.MISSING_CODE)).any():
        raise ValueError("an answer marked invalid carries a label or an abstention")
    known = (vocab.FALSCH_CODE, vocab.RICHTIG_CODE, vocab.ABSTAIN_CODE, vocab.MISSING_CODE)
    if not np.isin(c, known).all():
        raise ValueError(f"label codes must be among {known}")
    out = np.full(c.shape, KINDS.index("missing"), dtype=np.int64)
    out[(c == vocab.FALSCH_CODE) | (c == vocab.RICHTIG_CODE)] = KINDS.index("labelled")
    out[c == vocab.ABSTAIN_CODE] = KINDS.index("abstained")
    out[bad] = KINDS.index("invalid")
    return out


@dataclass(frozen=True, eq=False)
class OutputShares:
    """Counts and shares of the four kinds of output (module docstring)."""

    counts: tuple[int, int, int, int]
    shares: tuple[Estimate, Estimate, Estimate, Estimate]
    invalid_of_replies: Estimate
    n_items: int

    @property
    def total(self) -> int:
        return sum(self.counts)

    def count(self, kind: str) -> int:
        return self.counts[KINDS.index(kind)]

    def share(self, kind: str) -> Estimate:
        return self.shares[KINDS.index(kind)]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"answers": self.total, "n_items": self.n_items}
        for kind, n, est in zip(KINDS, self.counts, self.shares, strict=True):
            out[kind] = n
            out.update(est.to_dict(f"{kind}_share"))
        out.update(self.invalid_of_replies.to_dict("invalid_of_replies"))
        return out


def output_shares(
    codes: npt.ArrayLike, invalid: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> OutputShares:
    """:class:`OutputShares` of a judge's ``codes`` (items, slots) with its ``invalid`` mask
    (items, slots; :func:`output_kinds`); ``weights`` (R, items) question count weights
    (``None``: NaN bounds)."""
    kinds = output_kinds(codes, invalid)
    if kinds.ndim != 2:
        raise ValueError("codes must be (items, slots)")
    per_item = np.stack([(kinds == k).sum(axis=1) for k in range(len(KINDS))])  # (4, items)
    answers = per_item.sum(axis=0)
    shares = tuple(proportion(per_item[k], answers, weights) for k in range(len(KINDS)))
    replies = answers - per_item[KINDS.index("missing")]
    return OutputShares(
        counts=(
            int(per_item[0].sum()),
            int(per_item[1].sum()),
            int(per_item[2].sum()),
            int(per_item[3].sum()),
        ),
        shares=(shares[0], shares[1], shares[2], shares[3]),
        invalid_of_replies=proportion(per_item[KINDS.index("invalid")], replies, weights),
        n_items=int(kinds.shape[0]),
    )
