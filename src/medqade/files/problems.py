"""Row-level problems found in user files, and the error that carries them.

Every parser that reads a user's file (raw release tables, submissions, Label Studio exports)
collects :class:`Problem` records instead of stopping at the first one, then raises a single
:class:`InputError` that lists them all (up to a cap), each naming file, row and value.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_LISTED = 50


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one place of one file.

    ``row`` is the 1-based line number in the file as an editor shows it (CSV: the header is
    line 1; ``row_kind`` is then ``"line"``), the 1-based row of a Parquet table (``"row"``), or
    ``None`` for problems that concern the whole file.
    """

    file: str
    row: int | None
    message: str
    column: str | None = None
    value: str | None = None
    fix: str | None = None
    row_kind: str = "line"

    def __str__(self) -> str:
        where = self.file if self.row is None else f"{self.file}, {self.row_kind} {self.row}"
        if self.column:
            where += f", column {self.column!r}"
        text = f"{where}: {self.message}"
        if self.value is not None:
            text += f" (value {self.value!r})"
        if self.fix:
            text += f"; {self.fix}"
        return text


class InputError(ValueError):
    """A user file (or folder) could not be used; ``problems`` lists every issue found."""

    def __init__(self, what: str, problems: list[Problem]) -> None:
        self.what = what
        self.problems = list(problems)
        shown = [f"  - {p}" for p in self.problems[:MAX_LISTED]]
        more = len(self.problems) - MAX_LISTED
        if more > 0:
            shown.append(f"  ... and {more} more problems")
        noun = "problem" if len(self.problems) == 1 else "problems"
        super().__init__(f"{what}: {len(self.problems)} {noun} found\n" + "\n".join(shown))


class ProblemLog:
    """Collects problems (and warnings) while a parser walks a file."""

    def __init__(self) -> None:
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []

    def error(self, problem: Problem) -> None:
        self.errors.append(problem)

    def warn(self, problem: Problem) -> None:
        self.warnings.append(problem)

    def raise_if_any(self, what: str) -> None:
        if self.errors:
            raise InputError(what, self.errors)
