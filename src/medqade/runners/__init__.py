"""Run any OpenAI-compatible LLM as a MedQADE student or judge.

The library behind ``medqade answer`` and ``medqade judge``.

Modules: :mod:`~medqade.runners.prompts` (the German prompts and the judge's JSON Schema),
:mod:`~medqade.runners.parsing` (reply text -> answer or verdict, or ``InvalidOutput``),
:mod:`~medqade.runners.settings` (frozen run settings), :mod:`~medqade.runners.cache` (the
resumable response cache), :mod:`~medqade.runners.jobs` (job, outcome and summary records),
:mod:`~medqade.runners.engine` (concurrent, bounded requests; the only module that imports
``openai``, loaded on first use),
:mod:`~medqade.runners.student` and :mod:`~medqade.runners.judge` (items in, rows out),
:mod:`~medqade.runners.stub_server` (an OpenAI-compatible server for tests and benchmarks),
:mod:`~medqade.runners.llama_server` (a real one, llama-cpp-python, started for the
integration test and the throughput figures).

The same tasks as Inspect tasks (``inspect eval medqade/judge``, ``medqade/answer``; needs
``medqade[inspect]``, not imported here): :mod:`~medqade.runners.inspect_tasks` (dataset,
solvers, scorers; the extension's entry point) and :mod:`~medqade.runners.inspect_metrics`
(MedQADE's metrics through :mod:`medqade.scoring`).
"""

from typing import TYPE_CHECKING, Any

from medqade.runners.jobs import Job, Outcome, RunAborted, RunSummary
from medqade.runners.judge import (
    JudgeItem,
    answer_order,
    judge_items,
    judge_jobs,
    judge_parser,
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
from medqade.runners.settings import Endpoint, RetryPolicy, RunConfig, Sampling
from medqade.runners.student import (
    select_questions,
    student_jobs,
    submission_rows,
    write_submission,
)

if TYPE_CHECKING:
    from medqade.runners.engine import arun_jobs, run_jobs


def __getattr__(name: str) -> Any:
    # the engine (and with it the openai client) is imported on first use only
    if name in ("run_jobs", "arun_jobs"):
        from medqade.runners import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "JUDGE_SYSTEM_PROMPT",
    "STUDENT_SYSTEM_PROMPT",
    "Endpoint",
    "InvalidOutput",
    "Job",
    "JudgeItem",
    "Outcome",
    "RetryPolicy",
    "RunAborted",
    "RunConfig",
    "RunSummary",
    "Sampling",
    "Verdict",
    "answer_order",
    "arun_jobs",
    "judge_items",
    "judge_jobs",
    "judge_parser",
    "judge_schema",
    "judge_user_message",
    "judgment_rows",
    "load_prompt",
    "parse_judge_output",
    "parse_student_output",
    "run_jobs",
    "select_questions",
    "student_jobs",
    "student_user_message",
    "submission_rows",
    "write_judgments",
    "write_submission",
]
