"""Opening an Inspect log (``.eval``), bounded: which task it is of, its header, and its samples
one archive member at a time.

Every member of the archive is first decompressed as a stream and counted against
:class:`~medqade.scoring.intake.limits.Limits` (:mod:`~medqade.scoring.intake.log_archive`: a
member may not unpack to more than it declares, nor past its cap, nor the log past its total); only
then does Inspect read the header (``read_eval_log(header_only=True)``), and the samples are parsed
one member at a time, so a large log never sits parsed in memory whole."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from typing import Any, Final

from medqade.files.problems import InputError, Problem
from medqade.scoring.intake.limits import Limits
from medqade.scoring.intake.log_archive import (
    ArchiveCaps,
    CheckedArchive,
    check_archive,
    member_bytes,
)
from medqade.scoring.intake.log_samples import (
    LogSample,
    from_json,
)

EVAL_SUFFIX: Final = ".eval"


ZIP_MAGIC: Final = b"PK\x03\x04"


TASKS: Final = {"medqade/judge": "judge", "medqade/answer": "answers"}
"""The tasks a submitted log may be of, by the name Inspect records for the installed task
(``eval.task_registry_name``): the package's prefix is part of it, so ``other_pkg/judge`` and
a bare ``judge`` (the task run from a file) are refused."""


_SHORT_TASKS: Final = {"judge": "judge", "answer": "answers"}
_SAMPLE_NAME: Final = re.compile(r"^samples/(.+)_epoch_(\d+)\.json$")


DEFAULT_LIMITS: Final = Limits()


RUN_FIX: Final = (
    "run `inspect eval medqade/judge` or `inspect eval medqade/answer` and submit its log"
)


def is_eval_log(data: bytes, name: str) -> bool:
    """Whether an upload is an Inspect ``.eval`` log (by name, and a ZIP inside)."""
    return name.lower().endswith(EVAL_SUFFIX) and data.startswith(ZIP_MAGIC)


def log_problem(name: str, message: str, fix: str) -> InputError:
    """The one-problem error about the log ``name`` (no row: a log has none), with its fix."""
    return InputError(name, [Problem(name, None, message, fix=fix)])


def short_kind(task: str, name: str) -> str:
    """The kind of a log just run by ``medqade judge`` / ``answer`` (its task unregistered)."""
    short = task.rsplit("/", 1)[-1]
    if short in _SHORT_TASKS:
        return _SHORT_TASKS[short]
    raise log_problem(
        name, f"this Inspect log is of task {task!r}, not of {' or '.join(TASKS)}", RUN_FIX
    )


def task_name(log: Any) -> str:
    return str(getattr(log.eval, "task_registry_name", None) or log.eval.task)


def task_kind(log: Any, name: str) -> str:
    """The kind of a submitted log: its task in full (:data:`TASKS`), else refused."""
    task = task_name(log)
    if task in TASKS:
        return TASKS[task]
    hint = ""
    if task.rsplit("/", 1)[-1] in _SHORT_TASKS:
        hint = " (the name is the same after '/', but only the installed MedQADE tasks count)"
    raise log_problem(
        name,
        f"this Inspect log is of task {task!r}, not of {' or '.join(TASKS)} or the Hub task "
        f"(hf/ORG/NAME){hint}",
        RUN_FIX,
    )


def _caps(limits: Limits) -> ArchiveCaps:
    return ArchiveCaps(
        members=limits.max_log_members,
        header_bytes=limits.max_log_header_bytes,
        sample_bytes=limits.max_log_sample_bytes,
        other_bytes=limits.max_log_other_bytes,
        total_bytes=limits.max_log_unpacked_bytes,
    )


def read_log(data: bytes, name: str, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, CheckedArchive]:
    """The log's header (Inspect's ``EvalLog`` without samples) and its checked archive, or
    :class:`InputError` saying why not. Every member is decompressed and counted under
    ``limits`` first (:func:`~medqade.scoring.intake.log_archive.check_archive`); only then does
    Inspect read the header, whose members are bounded by then."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise log_problem(
            name,
            "reading an Inspect log needs the inspect_ai package, which is not installed",
            "pip install 'medqade[inspect]', or submit the labels as JSONL",
        ) from None
    archive = check_archive(data, name, _caps(limits))
    try:
        header = read_eval_log(io.BytesIO(data), header_only=True, format="eval")
    except Exception as exc:  # Inspect raises many kinds for a damaged log
        raise log_problem(
            name,
            f"not a readable Inspect log ({type(exc).__name__})",
            "submit the .eval file that `inspect eval` wrote, unchanged",
        ) from None
    return header, archive


def _sample_order(info_name: str) -> tuple[int, str]:
    found = _SAMPLE_NAME.match(info_name)
    return (int(found.group(2)), found.group(1)) if found else (0, info_name)


def log_samples(
    archive: CheckedArchive, name: str, limits: Limits
) -> Iterator[tuple[str, LogSample]]:
    """The samples of a checked archive, one parsed at a time (by epoch, then id, as Inspect
    sorts them), each with its member's name."""
    members = sorted(archive.sample_members(), key=lambda i: _sample_order(i.filename))
    for info in members:
        raw = member_bytes(archive, info, name, limits.max_log_sample_bytes)
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise log_problem(
                name,
                f"member {info.filename!r} is not valid JSON ({type(exc).__name__})",
                "submit the .eval file that `inspect eval` wrote, unchanged",
            ) from None
        del raw
        yield info.filename, from_json(obj, info.filename, name)


__all__ = [
    "DEFAULT_LIMITS",
    "EVAL_SUFFIX",
    "RUN_FIX",
    "TASKS",
    "ZIP_MAGIC",
    "is_eval_log",
    "log_problem",
    "log_samples",
    "read_log",
    "short_kind",
    "task_kind",
    "task_name",
]
