"""Bootstrap replicates kept in a result record, so that rows can be compared pairwise later.

A record keeps the replicates of the statistics its leaderboard row is ranked on (judges:
macro kappa and PA per view; models: accuracy per view) as little-endian float64 in base64, with
the resamples and seed they came from. A new submission is then compared with every stored row
on the same resamples without rescoring any of them. Decoding checks the shape and refuses
anything else (a hand-edited record cannot inject a wrong-sized array).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade.measures import Estimate
from medqade.scoring.record.json_object import JsonView, convert, json_value

FloatArray = npt.NDArray[np.float64]
DTYPE: Final = "<f8"


@dataclass(frozen=True, kw_only=True)
class Encoded(JsonView):
    """``{"dtype": "<f8", "n": R, "base64": ...}``: R replicates of one statistic."""

    dtype: str | None = None
    n: int | None = None
    base64: str | None = None


def _read_view(value: Any) -> Any:
    return {m: Encoded.from_json(b) if isinstance(b, Mapping) else b for m, b in value.items()}


VIEW: Final = convert(_read_view, json_value)


@dataclass(frozen=True, kw_only=True)
class Replicates(JsonView):
    """A record's ``replicates``: the resamples and seed, and per view (``core``, ``full``)
    the :class:`Encoded` replicates of each ranked metric."""

    resamples: int | None = None
    seed: int | None = None
    core: Mapping[str, Encoded] | None = field(default=None, metadata=VIEW)
    full: Mapping[str, Encoded] | None = field(default=None, metadata=VIEW)


def encode(values: npt.ArrayLike) -> Encoded:
    """The :class:`Encoded` replicates of a (R,) float array (NaN kept)."""
    x = np.ascontiguousarray(np.asarray(values, dtype=DTYPE))
    if x.ndim != 1:
        raise ValueError(f"replicates must be one-dimensional, got shape {x.shape}")
    return Encoded.of(dtype=DTYPE, n=int(x.size), base64=base64.b64encode(x.tobytes()).decode())


def decode(block: object) -> FloatArray | None:
    """The array of :func:`encode`, or ``None`` when ``block`` is absent or malformed."""
    if not isinstance(block, Mapping) or block.get("dtype") != DTYPE:
        return None
    n, text = block.get("n"), block.get("base64")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1 or not isinstance(text, str):
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != 8 * n:
        return None
    out: FloatArray = np.frombuffer(raw, dtype=DTYPE).astype(np.float64)
    return out


def section(
    estimates: Mapping[str, Mapping[str, Estimate | None] | None], resamples: int, seed: int
) -> Replicates | None:
    """The record's ``replicates`` (:class:`Replicates`) from ``{VIEW: {METRIC: Estimate |
    None}}`` (views ``core`` and ``full``); ``None`` without a bootstrap."""
    if resamples == 0:
        return None
    views: dict[str, Any] = {}
    for view, metrics in estimates.items():
        if metrics is None:
            continue
        views[view] = {
            m: encode(e.replicates)
            for m, e in metrics.items()
            if e is not None and e.replicates is not None
        }
    return Replicates.of(resamples=resamples, seed=seed, **views)


def of_record(record: Mapping[str, Any], view: str, metric: str) -> FloatArray | None:
    """The stored replicates of ``metric`` in ``view`` of ``record`` (``None``: none kept)."""
    return of_block(record.get("replicates"), view, metric)


def of_block(block: object, view: str, metric: str) -> FloatArray | None:
    """The replicates of ``metric`` in ``view`` of a record's ``replicates`` section."""
    if not isinstance(block, Mapping):
        return None
    metrics = block.get(view)
    if not isinstance(metrics, Mapping):
        return None
    return decode(metrics.get(metric))
