"""Leaderboard tables from result records, ranked by simultaneous paired intervals.

:func:`leaderboard` returns a :class:`Board`: the typed rows of judges and models
(:mod:`medqade.scoring.board.row_types`), sorted best first on the view's metric, and
:meth:`Board.to_frame` their export table (the columns below). Every row was scored on the same
question resamples (the record keeps the replicates of its ranking metrics,
:mod:`medqade.scoring.record.replicates`), so rows are compared pairwise with simultaneous 95%
intervals over all ranked pairs, each pair scaled by its own bootstrap standard error (studentized
max-T, :mod:`medqade.measures.ranking`): a row's **rank** is 1 + the number of ranked rows
significantly better than it (the best rank it can claim), **rank_worst** is K - the number of
ranked rows significantly worse than it (K ranked rows). Rows that cannot be told apart share a
rank. Only *verified* rows scored with the board's resamples and seed are ranked; the
string-matching baselines (source ``baseline``), unverified, partial and flagged rows and the
physician reference are shown without a rank, so they cannot change a ranked row's interval. The
board also keeps each ranking and its :class:`~medqade.measures.ranking.Resolution` (the smallest
difference it can resolve, in the ranking metric's own unit).

The **verdict** of a judge is the record's one verdict (:mod:`medqade.measures.verdicts`):
the interval of its headline kappa ``d`` (judge minus physicians, like for like, core and
extension pooled, over questions and physicians) read at the board's margin on kappa, one of
:data:`medqade.measures.paired.VERDICTS`, the same in both views and for every ranking metric.
The per-design differences and the alternative annotator test are shown as evidence. A judge
flagged ``core_above_extension`` is not ranked. Records of an older schema are shown as
``stale``: no rank, no verdict.

Judges (``view="core"``: the ``core`` block; ``"full"``: the ``full`` block, rows without one
are left out, except the physician reference, which exists only on the core and is kept with
``scope`` ``core``):

=========== ====================================================================================
rank        best rank, see above; ``<NA>`` for rows that are not ranked
rank_worst  worst rank of the row's rank interval (``rank`` to ``rank_worst``); ``<NA>`` likewise
name        display name; model_id, family, source (paper, baseline, physicians, submission)
status      ``stale`` (older record schema), ``verified``, ``unverified`` (submitted, not
            checked by a maintainer), ``partial``
            (partial coverage), ``above_physician_ceiling`` (flagged, never ranked),
            ``contamination`` (the held-out check flagged it: no verdict, never ranked) or
            ``reference`` (the physician leave-one-out row, shown for comparison)
scope       the items the row's numbers come from: ``core`` or ``full``
kappa, kappa_low, kappa_high, pa, pa_low, pa_high, pabak, pabak_low, pabak_high
            macro-mean agreement with the physician consensus and its 95% bootstrap CI, an
            abstention or missing label counting as a disagreement (what the rank reads)
n           answer slots with a resolved consensus
coverage    share of the view's answer slots the judge has a row for
abstention  share of the view's answer slots the judge abstained on
kappa_rated, pa_rated, pabak_rated, n_rated
            the paper's agreement when rated (abstentions dropped pairwise), secondary, and
            the answers it rests on
d, d_low, d_high
            the kappa difference judge minus physicians the one verdict is decided on
            (:mod:`medqade.measures.verdicts`), interval over questions and physicians
margin      the board's margin on kappa
verdict     from that d and margin: the same word whatever metric ranks the board
decided_on  ``pooled`` (core and extension), ``core`` or ``extension``
d_physicians, d_physicians_low, d_physicians_high
            evidence: the core's like-for-like kappa difference (each physician's place)
d_extension, d_extension_low, d_extension_high
            evidence: the same on the extension (each primary physician's place)
alt_test_winning_rate, alt_test_rho, alt_test_passed
            the alternative annotator test on the core, answers as instances: the winning
            rate omega (pass at 0.5, epsilon 0.2), the average advantage probability rho;
            evidence beside the verdict, not a verdict
self_bias, self_bias_low, self_bias_high, self_bias_significant
            the judge's self bias (own student model) and whether its CI excludes 0
caution_slope, caution_vs_physicians (_low, _high), self_kappa (_low, _high),
physicians_self_kappa, position_p, tokens_per_1000, eur_per_1000
            the record's ``behaviour`` (:mod:`medqade.scoring.board.behaviour_columns`), NaN where
            absent; shown beside agreement, never part of the rank
tau, tau_low, tau_high
            ranking fidelity: Kendall's tau-b between the five students ordered by the judge's
            accuracy and by the physicians', with its 95% interval over the record's question
            resamples, on the record's items (all when it covers the extension, else the core;
            :mod:`medqade.measures.fidelity`); NaN for records scored before it, never part of
            the rank
flags       the record's flags, ``;``-separated; id = record id
=========== ====================================================================================

Models (``view="core"``: ``accuracy_core``; ``"full"``: ``accuracy`` of submissions with any
extension answer), ranked on anchored accuracy by the same rule (``rank``, ``rank_worst``):

=========== ====================================================================================
accuracy, accuracy_low, accuracy_high   anchored accuracy with its Wilson CI
lower, upper, lower_low, upper_high     accuracy bounds (unmatched answers all wrong / right)
coverage    share of answers anchored to a physician-labelled answer
judged, judged_low, judged_high, judge  judged estimate with its Wilson CI, and the judge's name
n           answers anchored to a resolved consensus; verdict is empty (physicians do not
            answer the questions); status, flags, id as for judges
=========== ====================================================================================

Export with :func:`medqade.scoring.intake.upload.csv_text`, which neutralises spreadsheet formulas.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

import pandas as pd

from medqade.measures import DEFAULT_MARGIN, RankedBoard, Ranker, Resolution, check_margin
from medqade.scoring.board.record_rows import JUDGE_METRICS as JUDGE_METRICS
from medqade.scoring.board.record_rows import MODEL_METRICS as MODEL_METRICS
from medqade.scoring.board.record_rows import STALE as STALE
from medqade.scoring.board.record_rows import VIEWS as VIEWS
from medqade.scoring.board.record_rows import Ranked, judge_row, model_row
from medqade.scoring.board.record_rows import on_board as on_board
from medqade.scoring.board.record_rows import settings_of as settings_of
from medqade.scoring.board.record_rows import status as status
from medqade.scoring.board.row_types import JUDGE_COLUMNS, MODEL_COLUMNS, JudgeRow, ModelRow, Row
from medqade.scoring.metrics import PHYSICIAN_FLAG
from medqade.scoring.record import (
    ScoreRecord,
    read_record,
)

MARGIN_STEP: Final = 0.01
"""The step of the margins a board offers (:func:`board_margin`): 0, 0.01, ..., 1."""
MARGIN_DIGITS: Final = 2


def board_margin(margin: Any) -> float:
    """``margin`` as a margin the board offers: a number in [0, 1]
    (:func:`medqade.measures.paired.check_margin`) on the grid of :data:`MARGIN_STEP`,
    returned rounded to it, so every value the board can be asked for is one of 101 (the
    Space keys its tables and downloads by it); else ``ValueError`` naming the value."""
    value = check_margin(margin)
    steps = value / MARGIN_STEP
    if abs(steps - round(steps)) > 1e-6:
        raise ValueError(
            f"the margin must be a multiple of {MARGIN_STEP:g} between 0 and 1 "
            f"(e.g. {DEFAULT_MARGIN:g}), got {margin!r}"
        )
    return round(round(steps) * MARGIN_STEP, MARGIN_DIGITS)


UNRANKED_SOURCES: Final = ("baseline",)
"""Sources shown on the board but never in its ranked family (string matching, not judges)."""

Record = ScoreRecord | Mapping[str, Any]
"""A result record, typed or as its JSON object: :func:`leaderboard` reads a JSON object once
(:func:`read_record`); everything below it takes the typed record."""


KINDS: Final = ("judges", "models")
"""The two tables of a board."""


@dataclass(frozen=True, eq=False)
class Board:
    """What :func:`leaderboard` returns: the ranked rows of one view, best first (judges
    ranked on ``metric``, verdicts read at ``margin``), each board's ranking (``None`` when
    nothing is ranked) and its resolution in the ranking metric's unit (PABAK, ranked through
    PA, in PABAK's: twice PA's). :meth:`to_frame` is the one place rows become a table: the
    CSV and JSON exports and the Space's ``/leaderboard`` endpoint read it."""

    view: str
    metric: str
    margin: float
    judges: tuple[JudgeRow, ...]
    models: tuple[ModelRow, ...]
    judges_board: RankedBoard | None = None
    models_board: RankedBoard | None = None
    judges_resolution: Resolution | None = None
    models_resolution: Resolution | None = None

    def to_frame(self, kind: str) -> pd.DataFrame:
        """The ``judges`` or ``models`` rows as a frame of their export columns
        (:data:`JUDGE_COLUMNS`, :data:`MODEL_COLUMNS`; ranks as nullable integers)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        judges = kind == "judges"
        rows_: tuple[Row, ...] = self.judges if judges else self.models
        columns = list(JUDGE_COLUMNS if judges else MODEL_COLUMNS)
        if not rows_:
            return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
        frame = pd.DataFrame([r.to_json() for r in rows_], columns=columns)
        for column in ("rank", "rank_worst"):
            frame[column] = pd.array(frame[column].tolist(), dtype="Int64")
        return frame

    def judges_frame(self) -> pd.DataFrame:
        """:meth:`to_frame` of the judges."""
        return self.to_frame("judges")

    def models_frame(self) -> pd.DataFrame:
        """:meth:`to_frame` of the models."""
        return self.to_frame("models")


def board_key(record_id: Any, view: str, metric: str) -> tuple[Any, str, str]:
    """The key of a record's row on a ranked board (:attr:`Board.judges_board`)."""
    return (record_id, view, metric)


def _ranked(
    rows_: list[Ranked],
    ranker: Ranker,
    tag: tuple[str, str],
    settings: tuple[int, int] | None,
) -> tuple[list[Row], RankedBoard | None]:
    """The rows with their ranks, best first (among equal values the ranked rows before the
    unranked ones, then by name; rows without a value last), and their ranked board."""
    if not rows_:
        return [], None
    ranked = [
        i
        for i, r in enumerate(rows_)
        if r.row.status == "verified"
        and r.row.source not in UNRANKED_SOURCES
        and not math.isnan(r.key)
        and r.reps is not None
        and settings is not None
        and r.settings == settings
        and r.reps.shape == (settings[0],)
    ]
    # the point estimate on the replicates' scale (PABAK is ranked through PA = (PABAK + 1) / 2)
    scale = "pa" if tag[1] == "pabak" else tag[1]
    board = ranker.rank_board(
        [
            (board_key(r.row.id, *tag), getattr(r.row, scale).value, r.reps)
            for r in (rows_[i] for i in ranked)
            if r.reps is not None
        ]
    )
    rank_of = dict(zip(ranked, board.intervals, strict=True))

    def order(i: int) -> tuple[bool, float, bool, str]:
        key = rows_[i].key
        missing = math.isnan(key)
        return (missing, 0.0 if missing else -key, i not in rank_of, rows_[i].row.name)

    out: list[Row] = []
    for i in sorted(range(len(rows_)), key=order):
        interval = rank_of.get(i)
        out.append(
            replace(
                rows_[i].row,
                rank=None if interval is None else interval.best,
                rank_worst=None if interval is None else interval.worst,
            )
        )
    return out, (board if board.keys else None)


def board_settings(records: Iterable[ScoreRecord]) -> tuple[int, int] | None:
    """The ``(resamples, seed)`` a board ranks with: the physician reference's when present,
    else the most common among the records (rows scored otherwise cannot be paired)."""
    found = [(settings_of(r), r.has_flag(PHYSICIAN_FLAG)) for r in records]
    for s, is_reference in found:
        if is_reference and s is not None:
            return s
    counts = Counter(s for s, _ in found if s is not None)
    return counts.most_common(1)[0][0] if counts else None


def leaderboard(
    records: Iterable[Record],
    view: str = "core",
    metric: str = "kappa",
    margin: float = DEFAULT_MARGIN,
    ranker: Ranker | None = None,
) -> Board:
    """The :class:`Board` of ``records`` for ``view`` (``core`` or ``full``): judges ranked
    and sorted on ``metric`` (``kappa``, ``pa`` or ``pabak``), verdicts with ``margin``,
    models on anchored accuracy; columns in the module docstring. Records with the same id
    appear once. Pass one ``ranker`` to successive calls to reuse the ranks of an unchanged
    board."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
    if metric not in JUDGE_METRICS:
        raise ValueError(f"metric must be one of {', '.join(JUDGE_METRICS)}, got {metric!r}")
    margin = check_margin(margin)
    ranker = ranker if ranker is not None else Ranker()
    seen: set[Any] = set()
    unique = []
    for rec in map(read_record, records):  # the one read of a JSON object (a typed record: as is)
        rid = rec.id
        if rid is not None and rid in seen:
            continue
        seen.add(rid)
        unique.append(rec)
    settings = board_settings(unique)
    judges: list[Ranked] = []
    models: list[Ranked] = []
    for rec in unique:
        row = None
        if rec.kind == "judge":
            row = judge_row(rec, view, metric, margin)
            target = judges
        elif rec.kind == "answers":
            row = model_row(rec, view)
            target = models
        if row is not None:
            target.append(row)
    judge_rows, judge_board = _ranked(judges, ranker, (view, metric), settings)
    model_rows, model_board = _ranked(models, ranker, (view, "accuracy"), settings)
    unit = 2.0 if metric == "pabak" else 1.0  # PABAK = 2 PA - 1, ranked on PA's replicates
    return Board(
        view,
        metric,
        margin,
        tuple(r for r in judge_rows if isinstance(r, JudgeRow)),
        tuple(r for r in model_rows if isinstance(r, ModelRow)),
        judge_board,
        model_board,
        None if judge_board is None else judge_board.resolution.scaled(unit),
        None if model_board is None else model_board.resolution,
    )


def rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a leaderboard frame as JSON-ready dicts, numbers unrounded (NaN and
    missing as ``None``): what the CLI's ``--format json`` and the Space's export write."""
    out = []
    for row in frame.to_dict("records"):
        clean: dict[str, Any] = {}
        for key, value in row.items():
            missing = value is None or value is pd.NA
            if missing or (isinstance(value, float) and math.isnan(value)):
                clean[str(key)] = None
            elif hasattr(value, "item"):
                clean[str(key)] = value.item()
            else:
                clean[str(key)] = value
        out.append(clean)
    return out
