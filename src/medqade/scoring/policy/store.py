"""The results folder: one JSON record per accepted submission plus the uploaded file.

The store the Space writes and ``medqade leaderboard`` / ``compare`` / ``score --results``
read and write (:mod:`medqade.scoring.policy.policy` decides what may be stored).

Layout (the whole folder is what the Hub mirror uploads)::

    records/<record id>.json     the result record of :func:`medqade.scoring.score`, plus a
                                 ``space`` object: ``account`` (a keyed hash of the submitting
                                 account, never the name; the Space's accounts module),
                                 ``submitted_at``, ``key`` (the duplicate key) and ``uploads``
                                 (stored file names)
    uploads/<sha256><suffix>     the submitted file, named by its content hash
    reference/<key>.json         cached reference records (paper evaluators, physicians, ...)
    verifications/<id>-<seed>.*  what ``medqade verify`` found when it asked the record's judge
                                 again, and its Inspect log (:mod:`~.verification`)

Every write is atomic (:func:`medqade.files.atomic.write_bytes`: temp file, fsync, rename). The
store keeps the records in memory behind one lock; :meth:`ResultsStore.add` re-checks the duplicate
and rate rules under that lock, so concurrent submissions never overwrite each other and never
slip past the limit. A user's file name is never used as a path.

**Several writers on one folder** (two Spaces, a Space and ``medqade rescore`` or ``medqade
score --results``) take turns per write: :meth:`ResultsStore.add` holds the folder's advisory
lock (:mod:`medqade.files.folder_lock`, the dotfile ``.lock`` with the holder's pid, host and
since when; the Hub mirror leaves it out) while it reads the records the others stored since
(:meth:`ResultsStore.refresh`), re-checks the duplicate key and the rate limit, and writes. So
the rules hold across processes, and no writer holds the folder longer than one write. A
reader calls :meth:`ResultsStore.refresh` (cheap: one listing of ``records/``) to see the
others' records; the Space does before it draws a board. The store writes only inside its
folder: ``records/`` or ``uploads/`` that is a link is refused, and a stored upload is read
only as a plain file inside ``uploads/`` (:meth:`ResultsStore.read_upload`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from medqade.files import atomic, folder_lock
from medqade.scoring.policy.results_folder import ENV_RESULTS_DIR as ENV_RESULTS_DIR
from medqade.scoring.policy.results_folder import MIRROR_IGNORE as MIRROR_IGNORE
from medqade.scoring.policy.results_folder import MIRROR_PATTERNS as MIRROR_PATTERNS
from medqade.scoring.policy.results_folder import RECORDS as RECORDS
from medqade.scoring.policy.results_folder import REFERENCE as REFERENCE
from medqade.scoring.policy.results_folder import SAFE_ID as SAFE_ID
from medqade.scoring.policy.results_folder import UPLOAD_NAME as UPLOAD_NAME
from medqade.scoring.policy.results_folder import UPLOAD_SUFFIXES as UPLOAD_SUFFIXES
from medqade.scoring.policy.results_folder import UPLOADS as UPLOADS
from medqade.scoring.policy.results_folder import RateLimit as RateLimit
from medqade.scoring.policy.results_folder import SubmissionRefused as SubmissionRefused
from medqade.scoring.policy.results_folder import check_results_folder as check_results_folder
from medqade.scoring.policy.results_folder import default_results_dir as default_results_dir
from medqade.scoring.policy.results_folder import on_space as on_space
from medqade.scoring.policy.results_folder import outside, read_stored_upload
from medqade.scoring.policy.results_folder import upload_sha256 as upload_sha256
from medqade.scoring.policy.results_folder import upload_suffix as upload_suffix
from medqade.scoring.record import ScoreRecord, SpaceEntry

log = logging.getLogger(__name__)


def _data_hash(record: ScoreRecord) -> str | None:
    """The data hash of the release ``record`` was scored on (``None``: not given)."""
    value = record.dataset.hash if record.dataset is not None else None
    return value if isinstance(value, str) else None


def _space(record: ScoreRecord) -> SpaceEntry:
    """The envelope of a stored record (every record the store keeps has one)."""
    return record.space if record.space is not None else SpaceEntry()


def _timestamp(value: object) -> float | None:
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        return None


class ResultsStore:
    """The submissions in ``root``, loaded once and kept current under a lock."""

    def __init__(
        self,
        root: Path,
        rate_limit: RateLimit,
        *,
        write_lock: AbstractContextManager[Any] | None = None,
        clock: Callable[[], float] = time.time,
        lock_wait_s: float = folder_lock.WAIT_S,
    ) -> None:
        self.root = Path(root)
        self.lock_wait_s = lock_wait_s
        """How long a write waits for another writer of the folder (then it is refused)."""
        self.rate_limit = rate_limit
        self.clock = clock
        self._lock = threading.RLock()
        self._write_lock: AbstractContextManager[Any] = write_lock or contextlib.nullcontext()
        self._records: dict[str, ScoreRecord] = {}
        self._by_hash: dict[str, list[str]] = {}
        self._seen: dict[str, tuple[int, int, int]] = {}
        self.version = 0
        self.reload()

    @property
    def records_dir(self) -> Path:
        return self.root / RECORDS

    @property
    def uploads_dir(self) -> Path:
        return self.root / UPLOADS

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        with self._lock:
            yield

    def reload(self) -> None:
        """Read every record from disk (a malformed file is skipped with a log line)."""
        with self._lock:
            self._seen = {}
            self._records = {}
            self._refresh()
            self.version += 1

    def refresh(self) -> bool:
        """Take in what other writers changed in ``records/`` since the last look: new
        records read, removed ones dropped, a file changed since read again (one listing of
        the folder with each file's size and times; the rest is read only when it changed).
        Return whether anything changed (:attr:`version` then moves on)."""
        with self._lock:
            changed = self._refresh()
            if changed:
                self.version += 1
            return changed

    def _listing(self) -> dict[str, tuple[int, int, int]]:
        try:
            entries = list(os.scandir(self.records_dir))
        except (FileNotFoundError, NotADirectoryError):
            return {}
        out: dict[str, tuple[int, int, int]] = {}
        for entry in entries:
            if not entry.name.endswith(".json") or entry.name.startswith("."):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):  # a link is not a record of this folder
                out[entry.name] = (st.st_ino, st.st_size, st.st_mtime_ns)
        return out

    def _refresh(self) -> bool:
        listing = self._listing()
        if listing == self._seen:
            return False
        records = {stem: r for stem, r in self._records.items() if listing.get(f"{stem}.json")}
        for name in sorted(listing):
            if self._seen.get(name) == listing[name]:
                continue
            stem = name[: -len(".json")]
            records.pop(stem, None)
            record = self._read(self.records_dir / name)
            if record is not None:
                records[stem] = record
        self._records = records
        self._seen = listing
        self._by_hash = {}
        for rid, r in records.items():
            if _space(r).key:
                self._by_hash.setdefault(str(_space(r).key), []).append(rid)
        return True

    @staticmethod
    def _read(path: Path) -> ScoreRecord | None:
        """The record in ``path``, read (and typed) once: the store keeps it typed."""
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            log.warning("skipping unreadable result record %s: %s", path.name, exc)
            return None
        if not isinstance(record, dict) or not isinstance(record.get("space"), dict):
            log.warning("skipping result record %s: not a MedQADE Space result", path.name)
            return None
        try:  # every section the library reads has its shape (a board never trips on it)
            return ScoreRecord.from_json(record)
        except TypeError as exc:
            log.warning("skipping result record %s: %s", path.name, exc)
            return None

    def records(self) -> list[ScoreRecord]:
        """Every stored record, oldest first."""
        with self._lock:
            rows = list(self._records.values())
        return sorted(rows, key=lambda r: (str(_space(r).submitted_at or ""), str(r.id)))

    def get(self, record_id: str) -> ScoreRecord | None:
        with self._lock:
            return self._records.get(record_id)

    def upload_paths(self, record: ScoreRecord) -> list[Path]:
        """The stored uploads of ``record`` (names that are not ours are ignored, and so is
        a link: a stored upload is a plain file inside ``uploads/``)."""
        space = record.space
        names = (space.uploads if space is not None else None) or ()
        paths = [self.uploads_dir / str(n) for n in names if UPLOAD_NAME.match(str(n))]
        if self._outside(self.uploads_dir):
            return []
        return [p for p in paths if p.is_file() and not p.is_symlink()]

    def _outside(self, folder: Path) -> bool:
        return outside(self.root, folder)

    def read_upload(self, name: str, max_bytes: int) -> bytes:
        """The bytes of the stored upload ``name`` (:func:`read_stored_upload`: a plain file
        inside ``uploads/``, never through a link, never more than ``max_bytes``)."""
        return read_stored_upload(self.root, name, max_bytes)

    def check(
        self,
        account: str,
        key: str,
        aliases: Collection[str] = (),
        data_hash: str | None = None,
    ) -> None:
        """Raise :class:`SubmissionRefused` if ``key`` is known (on the release ``data_hash``,
        when given) or ``account`` is at its limit.

        ``aliases`` are earlier stored forms of the same account (counted by the limit)."""
        with self._lock:
            self.check_duplicate(key, data_hash)
            refusal = self.rate_refusal(account, aliases)
            if refusal is not None:
                raise SubmissionRefused(refusal)

    def check_duplicate(self, key: str, data_hash: str | None = None) -> None:
        """Raise :class:`SubmissionRefused` if content with ``key`` was stored before: scored
        on the release with ``data_hash`` when given (the same content scored on another
        release is not on this release's board, so it may be scored again), else on any."""
        with self._lock:
            known = [
                rid
                for rid in self._by_hash.get(key, ())
                if data_hash is None or _data_hash(self._records[rid]) == data_hash
            ]
        if known:
            raise SubmissionRefused(self.duplicate_message(known[0]))

    @staticmethod
    def duplicate_message(record_id: str) -> str:
        """What a duplicate of the stored record ``record_id`` is told."""
        return (
            f"the same content was submitted before (record {record_id[:16]}); "
            "duplicates are not scored again"
        )

    def rate_refusal(self, account: str, aliases: Collection[str] = ()) -> str | None:
        """Why ``account`` (or one of its ``aliases``) may not submit now, or ``None``.

        Only stored records count: a dry run (*validate only*) stores nothing, so it neither
        counts nor is refused."""
        limit = self.rate_limit
        if limit.count <= 0:
            return None
        accounts = {account, *aliases}
        since = self.clock() - limit.window_s
        with self._lock:
            recent = [
                ts
                for r in self._records.values()
                if _space(r).account in accounts
                and (ts := _timestamp(_space(r).submitted_at)) is not None
                and ts >= since
            ]
        if len(recent) < limit.count:
            return None
        days = limit.window_s / 86_400
        again = datetime.fromtimestamp(sorted(recent)[-limit.count] + limit.window_s, UTC)
        return (
            f"rate limit: {limit.count} submissions per {days:g} days per account; "
            f"the next one is possible after {again.isoformat(timespec='minutes')}"
        )

    def add(
        self,
        record: ScoreRecord,
        space: SpaceEntry,
        uploads: Mapping[str, bytes],
        aliases: Collection[str] = (),
    ) -> ScoreRecord:
        """Store ``record`` with its envelope ``space`` and its uploads atomically; return the
        stored record (``record`` with ``space``, a new frozen record: nothing is changed).

        ``space`` must hold ``account``, ``key`` and ``submitted_at``; the stored envelope
        adds ``uploads`` (the stored names, which must match :data:`UPLOAD_NAME`) and
        ``upload_sha256`` (their bytes' hashes). The envelope lies outside the record's id
        (:data:`medqade.scoring.metrics.records.OUTSIDE_ID`). The rules of :meth:`check` are applied
        again here, under the lock and the folder's lock after reading what other writers
        stored (:meth:`refresh`), so racing submissions, also from other processes, cannot
        both pass; an existing record file is never replaced. A folder that is or lies inside
        a build or a raw release is refused (:func:`check_results_folder`).
        """
        for name in uploads:
            if not UPLOAD_NAME.match(name):
                raise ValueError(f"upload name {name!r} is not <hex digest>.<known suffix>")
        record_id = str(record.id or "")
        if not SAFE_ID.match(record_id):
            raise ValueError(f"record id {record_id!r} cannot be a file name")
        try:  # never inside a build or a raw release, also not through a link
            check_results_folder(self.root, "the results store")
        except ValueError as exc:
            raise SubmissionRefused(str(exc)) from None
        with self._lock, self._folder_lock():
            self.refresh()  # what other writers stored since: the rules count it too
            for folder in (self.records_dir, self.uploads_dir):
                if self._outside(folder):
                    raise SubmissionRefused(
                        f"the results folder's {folder.name}/ is a link or lies outside it; "
                        "the store writes only inside its folder: replace the link with a folder"
                    )
            data_hash = record.dataset.hash if record.dataset is not None else None
            self.check(str(space.account), str(space.key), aliases, data_hash)
            path = self.records_dir / f"{record_id}.json"
            if record_id in self._records or os.path.lexists(path):
                raise SubmissionRefused(f"a record with id {record_id[:16]} exists already")
            stored = replace(
                record,
                space=replace(
                    space,
                    uploads=tuple(sorted(uploads)),
                    upload_sha256={n: upload_sha256(d) for n, d in sorted(uploads.items())},
                ),
            )
            body = json.dumps(stored.to_json(), ensure_ascii=False, indent=1, allow_nan=True)
            with self._write_lock:
                for name, data in uploads.items():
                    atomic.write_bytes(self.uploads_dir / name, data)
                atomic.write_text(path, body + "\n")
            self._records[record_id] = stored
            self._by_hash.setdefault(str(space.key), []).append(record_id)
            listing = self._listing()  # our own file is known: not read again
            if f"{record_id}.json" in listing:
                self._seen[f"{record_id}.json"] = listing[f"{record_id}.json"]
            self.version += 1
        return stored

    @contextlib.contextmanager
    def _folder_lock(self) -> Iterator[None]:
        """The folder's lock across processes (:mod:`medqade.files.folder_lock`); a writer
        that holds it too long is a refusal naming it."""
        try:
            with folder_lock.hold(self.root, self.lock_wait_s):
                yield
        except folder_lock.FolderBusy as exc:  # said without the folder's path (a Space's)
            if exc.holder is None:
                raise SubmissionRefused(
                    f"the results folder's lock file {folder_lock.LOCK_NAME} is a link or not "
                    "a plain file, so nothing is stored; the maintainers must remove it"
                ) from None
            raise SubmissionRefused(
                f"the results folder is being written by {exc.holder.describe()}, for more "
                f"than {self.lock_wait_s:g} s; nothing was stored: try again in a minute"
            ) from None
