"""Run any OpenAI-compatible LLM as a MedQADE student or judge, on Inspect.

The library behind ``medqade answer`` and ``medqade judge``.

Modules: :mod:`~medqade.runners.prompts` (the German prompts and the judge's JSON Schema),
:mod:`~medqade.runners.parsing` (reply text -> answer or verdict, or ``InvalidOutput``),
:mod:`~medqade.runners.student` and :mod:`~medqade.runners.judge` (items in, output rows out,
resume from an earlier output), :mod:`~medqade.runners.options` (the commands' options).

The requests run on Inspect (``inspect_ai``, imported on first use, not here):
:mod:`~medqade.runners.inspect_tasks` (``inspect eval medqade/judge``, ``medqade/answer``:
dataset, solvers with the structured-output fallback, scorers; the extension's entry point),
:mod:`~medqade.runners.inspect_metrics` (MedQADE's metrics through :mod:`medqade.scoring`) and
:mod:`~medqade.runners.inspect_run` (the commands' options mapped onto ``inspect_ai.eval``,
with the server check, resume and exit status Inspect lacks). The test servers (a stub and
llama-cpp-python) live in the repository's ``tests/servers``.
"""

from medqade.runners.judge import (
    JudgeItem,
    answer_order,
    judge_items,
    judgment_rows,
    write_judgments,
)
from medqade.runners.parsing import InvalidOutput, Verdict, parse_judge_output, parse_student_output
from medqade.runners.prompts import (
    JUDGE_SYSTEM_PROMPT,
    STUDENT_SYSTEM_PROMPT,
    judge_schema,
    judge_user_message,
    load_prompt,
    student_user_message,
)
from medqade.runners.student import select_questions, submission_rows, write_submission

__all__ = [
    "JUDGE_SYSTEM_PROMPT",
    "STUDENT_SYSTEM_PROMPT",
    "InvalidOutput",
    "JudgeItem",
    "Verdict",
    "answer_order",
    "judge_items",
    "judge_schema",
    "judge_user_message",
    "judgment_rows",
    "load_prompt",
    "parse_judge_output",
    "parse_student_output",
    "select_questions",
    "student_user_message",
    "submission_rows",
    "write_judgments",
    "write_submission",
]
