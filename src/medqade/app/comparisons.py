"""Compare's answers, kept: two judge rows compared on the leaderboard's resamples
(:func:`medqade.scoring.board.comparison.compare`), each comparison kept until the board changes.

Two stores: the last :data:`COMPARISONS_KEPT` a visitor asked for, and every board judge
against the physicians on the core, computed ahead after the start-up work and after each
stored submission (:meth:`Comparisons.warm`; what a *vs physicians* link and Compare's
default open, answered from memory). The board they are read from is the running Space's
(:class:`medqade.app.state.SpaceState`, seen here through :class:`Space`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Final, Protocol

from medqade import measures, scoring
from medqade.app.config import SpaceConfig
from medqade.app.held_out import hide_held_out, listed_limit
from medqade.dataset.release import Release
from medqade.scoring.board import (
    PHYSICIANS,
    VIEWS,
    BoardRecords,
    Comparison,
    check_token,
    compare,
    on_board,
    resolve,
)
from medqade.scoring.policy import ResultsStore

log = logging.getLogger(__name__)

COMPARISONS_KEPT: Final = 64
"""How many comparisons the Space keeps (each a few kB; a repeat answers at once)."""

Key = tuple[str, str, str, int, bool]
"""``(a, b, view, store version, reference rows loaded)``: one comparison on one board."""


class RankedJudges(Protocol):
    @property
    def judges_board(self) -> measures.RankedBoard | None: ...


class Space(Protocol):
    """What a comparison reads of the running Space: its releases (the public one shown, the
    one scored on: :mod:`medqade.app.held_out`), settings, store and board."""

    release: Release
    scoring_release: Release
    config: SpaceConfig
    store: ResultsStore
    limits: scoring.Limits

    @property
    def references_ready(self) -> bool: ...

    def board_records(self) -> BoardRecords: ...

    def board_judge_ids(self) -> set[str]: ...

    def boards(self, view: str) -> RankedJudges: ...


class Comparisons:
    """The comparisons of one running Space (see the module docstring)."""

    def __init__(self, space: Space) -> None:
        self.space = space
        self._lock = threading.Lock()
        self._asked: OrderedDict[Key, Comparison] = OrderedDict()
        self._versus: dict[Key, Comparison] = {}
        """Every board judge against the physicians on the core, for the current board only
        (:meth:`warm`; not among the last COMPARISONS_KEPT, so never pushed out)."""
        self.compared = threading.Event()
        """Set once :meth:`warm` has run after the start-up work."""

    @property
    def asked(self) -> Mapping[Key, Comparison]:
        """The comparisons computed on request and kept (the last :data:`COMPARISONS_KEPT`)."""
        return self._asked

    @property
    def ahead(self) -> Mapping[Key, Comparison]:
        """The board judges against the physicians, computed ahead by :meth:`warm`."""
        return self._versus

    def _key(self, a: str, b: str, view: str) -> Key:
        return (a, b, view, self.space.store.version, self.space.references_ready)

    def choices(self) -> list[tuple[str, str]]:
        """``(label, token)`` of every judge row a Compare view can pick: the physicians,
        the paper evaluators, the baselines and the stored judge submissions the leaderboard
        shows (those :meth:`get` accepts)."""
        space = self.space
        roster = space.release.roster
        out = [("Physicians (leave-one-out, core)", PHYSICIANS)]
        out += [(f"{m.name} (paper)", m.id) for m in roster.evaluators]
        out += [(f"{b.name} (baseline)", b.id) for b in scoring.BASELINES]
        for r in space.board_records().stored:
            if on_board(r) and space.store.upload_paths(r):
                name = str((r.meta and r.meta.name) or "submission")
                out.append((f"{name} (submitted, {str(r.id)[:8]})", str(r.id)))
        return out

    def get(self, a: str, b: str, view: str) -> Comparison:
        """Compare two judge rows on the same resamples as the leaderboard
        (:mod:`medqade.scoring.board.comparison`); raises ``ValueError`` with a readable message.

        ``a`` and ``b`` are row ids, looked up in a closed set: the paper evaluators, the
        physicians, the baselines and the judge rows the leaderboard shows (a stored record
        is compared through its stored upload, found by its id). They are never paths."""
        a, b = (check_token(str(t or "")) for t in (a, b))  # before any work
        # seeded, so the same rows on the same board give the same comparison: kept (the last
        # COMPARISONS_KEPT) until a submission or the reference rows change the board
        key = self._key(a, b, view)
        with self._lock:
            kept = self._versus.get(key)
            if kept is not None:
                return kept
            kept = self._asked.get(key)
            if kept is not None:
                self._asked.move_to_end(key)
                return kept
        made = self.fresh(a, b, view)
        with self._lock:
            self._asked[key] = made
            while len(self._asked) > COMPARISONS_KEPT:
                self._asked.popitem(last=False)
        return made

    def warm(self) -> None:
        """Compare every judge row the leaderboard shows with the physicians on the core
        (what its *vs physicians* link and Compare's default open) and keep them until the
        board changes, so a visitor's first such comparison is answered from memory (issue 39:
        a paired bootstrap at 1,000 resamples took 840 ms under load). Run after the start-up
        work and again after each stored submission; sets :attr:`compared`."""
        physicians = PHYSICIANS
        try:
            for _, token in self.choices():
                key = self._key(token, physicians, "core")
                if token == physicians or key in self._versus:
                    continue
                made = self.fresh(token, physicians, "core")
                with self._lock:
                    for old in [k for k in self._versus if k[3:] != key[3:]]:
                        del self._versus[old]  # an earlier board's
                    self._versus[key] = made
        except Exception:  # asked for, it is computed then (and its error shown)
            log.exception("the comparisons with the physicians could not be computed ahead")
        finally:
            self.compared.set()

    def fresh(self, a: str, b: str, view: str) -> Comparison:
        """The comparison of ``a`` and ``b`` computed now (neither kept nor looked up): its
        numbers on the release scored on, its answer list without a held-out label
        (:func:`medqade.app.held_out.hide_held_out`)."""
        space = self.space
        shown = space.board_judge_ids()
        # model-answer records stay, to be refused as "not a judge" by name
        chosen = space.board_records()
        records = [r for r in chosen.records if str(r.id) in shown or r.kind != "judge"]
        uploads = {
            str(r.id): paths[0]
            for r in chosen.stored
            if str(r.id) in shown and (paths := space.store.upload_paths(r))
        }
        scored = space.scoring_release
        side_a, side_b = (resolve(scored, t, records, uploads, space.limits) for t in (a, b))
        ranked = space.boards(view if view in VIEWS else "core").judges_board  # kappa
        made = compare(
            scored,
            side_a,
            side_b,
            view,
            space.config.resamples,
            space.config.seed,
            limit=listed_limit(space.release),
            ranked=ranked,
            records=records,
        )
        return hide_held_out(made, space.release)
