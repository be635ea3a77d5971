"""The rows every leaderboard starts from: reference records, computed once per dataset.

The paper's evaluators, the physician leave-one-out row, the baselines and the paper's
students are scored like submissions (:func:`medqade.scoring.reference_records`). That takes
seconds, so the records are kept in ``<results>/reference/<key>.json``, keyed by the data
hash, resamples, seed, margin and scorer version. ``medqade leaderboard``, ``medqade
compare`` and the Space read the same file, so they show the same rows and numbers; a file
that does not parse is recomputed (and replaced atomically), never trusted half-read.

:func:`board_records` decides which records belong on the board of a release: the one rule
the CLI (``medqade leaderboard``/``compare``) and the Space both call, so the same results
folder gives the same board in both. A record scored on another release (another data hash)
is left out and counted; a record of an older schema or scorer on this release stays, shown
as ``stale`` by :func:`medqade.scoring.board.tables.status`.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

from medqade.files import atomic, guards
from medqade.scoring.intake import Settings
from medqade.scoring.metrics import SCORER_VERSION, reference_records
from medqade.scoring.record import ScoreRecord

if TYPE_CHECKING:
    from medqade.dataset.release import Release
    from medqade.scoring.policy import ResultsStore

log = logging.getLogger(__name__)

REFERENCE: Final = "reference"


def reference_path(
    folder: Path, release: Release, resamples: int, seed: int, margin: float
) -> Path:
    """Where the reference records of these settings are cached under ``folder``. A build
    with held-out labels keeps two entries, one scored on its public labels and one with the
    private part restored (both have the raw release's data hash)."""
    parts: list[object] = [release.data_hash, resamples, seed, margin]
    parts += [SCORER_VERSION, release.n_items]
    held = int(release.held_out.sum())
    if held:
        parts.append({"held_out": held, "restored": bool(release.restored)})
    key = json.dumps(parts)
    digest = hashlib.sha256(key.encode()).hexdigest()[:24]
    return Path(folder) / REFERENCE / f"{digest}.json"


def cached_reference_records(
    release: Release, folder: Path | None, resamples: int, seed: int, margin: float
) -> list[ScoreRecord]:
    """The reference records, read from the cache under ``folder`` or computed (and cached
    there when ``folder`` is given and can be written; a read-only or full folder only
    costs the computation next time; a folder that is or lies inside a build or a raw
    release, also through a link, is never written)."""
    path = None if folder is None else reference_path(folder, release, resamples, seed, margin)
    if path is not None and path.is_file():
        try:
            refs = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            log.warning("recomputing reference records: %s unreadable (%s)", path.name, exc)
        else:
            if isinstance(refs, list) and all(isinstance(r, dict) for r in refs):
                try:
                    return [ScoreRecord.from_json(r) for r in refs]
                except TypeError as exc:
                    log.warning("recomputing reference records: %s: %s", path.name, exc)
            else:
                log.warning("recomputing reference records: %s is not a list of records", path.name)
    refs = reference_records(release, Settings(resamples=resamples, seed=seed, margin=margin))
    inside = None if path is None else guards.guarded_within(path.parent)
    if inside is not None:  # never write into a build or a raw release (--results BUILD)
        log.warning("reference rows not cached: the results folder lies inside %s", inside[1])
    elif path is not None:
        try:
            text = json.dumps([r.to_json() for r in refs], ensure_ascii=False)
            atomic.write_text(path, text + "\n")
        except OSError as exc:  # a read-only or full folder: the rows are used uncached
            log.warning(
                "reference rows not cached in %s (%s); they are computed again next time",
                path.parent.name,
                exc.strerror or type(exc).__name__,
            )
    return refs


def scored_on(record: ScoreRecord, release: Release) -> bool:
    """Whether ``record`` was scored on ``release`` (the same data hash; a record without
    one is not comparable)."""
    return record.scored_on(release.data_hash)


@dataclass(frozen=True)
class BoardRecords:
    """The records a release's board shows (reference rows first, then stored ones, in
    their order) and how many stored records were left out as scored on another release."""

    records: list[ScoreRecord]
    stored: list[ScoreRecord]
    other_release: int
    uploads: Mapping[str, Path] = field(default_factory=dict)
    """The stored upload of each stored record by id (filled by :func:`open_board` when
    asked: ``medqade compare`` and the Space's Compare read them)."""

    @property
    def note(self) -> str:
        """One line for a maintainer: what was left out and why (empty when nothing was)."""
        n = self.other_release
        if not n:
            return ""
        return (
            f"{n} stored record{'s were' if n != 1 else ' was'} scored on another release "
            "(another data hash) and left out of this board; score the submission again on "
            "this release to show it (medqade rescore --results FOLDER --data RELEASE scores "
            "every stored upload again)"
        )


def board_records(
    release: Release,
    references: Iterable[ScoreRecord],
    stored: Iterable[ScoreRecord],
) -> BoardRecords:
    """Which records belong on the board of ``release``: the reference rows and the stored
    records scored on it (:func:`scored_on`). The one rule behind ``medqade leaderboard``,
    ``medqade compare`` and every list of the Space (leaderboard, Compare, Browse,
    Analysis); stale records of this release stay (shown as ``stale``, unranked)."""
    refs = [r for r in references if scored_on(r, release)]
    kept: list[ScoreRecord] = []
    other = 0
    for record in stored:
        if scored_on(record, release):
            kept.append(record)
        else:
            other += 1
    return BoardRecords([*refs, *kept], kept, other)


def open_board(
    release: Release,
    references: Iterable[ScoreRecord],
    store: ResultsStore | None,
    *,
    uploads: bool = False,
) -> BoardRecords:
    """The board of ``release``: the reference rows and the records of ``store`` (``None``:
    no results folder) chosen by :func:`board_records`, each read once, typed, by the store;
    with ``uploads``, the stored upload of each stored record. The one way ``medqade
    leaderboard`` / ``compare`` and the Space's :class:`~medqade.app.state.SpaceState`
    open a board."""
    chosen = board_records(release, references, [] if store is None else store.records())
    if not uploads or store is None:
        return chosen
    found: dict[str, Path] = {}
    for record in chosen.stored:
        paths = store.upload_paths(record)
        if paths:
            found[str(record.id)] = paths[0]
    return replace(chosen, uploads=found)
