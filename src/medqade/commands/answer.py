"""``medqade answer``: ask any OpenAI-compatible model the cloze questions, write a submission."""

from __future__ import annotations

import argparse

from medqade.runners.options import (
    ANSWER_MAX_TOKENS,
    add_run_arguments,
    dry_run_text,
    execute,
    report,
    run_config,
    runner_inputs,
)
from medqade.runners.parsing import parse_student_output
from medqade.runners.pool_source import pool_inputs
from medqade.runners.prompts import STUDENT_SYSTEM_PROMPT, load_prompt
from medqade.runners.student import (
    check_submission_path,
    select_questions,
    student_jobs,
    submission_rows,
    write_submission,
)
from medqade.sources import open_release

NAME = "answer"
HELP = "Run an LLM as a MedQADE student: answer each cloze question, write a submission."


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_run_arguments(p, default_max_tokens=ANSWER_MAX_TOKENS)
    p.epilog = "Output: question_id, answer (.jsonl or UTF-8 .csv, chosen by the --out name)."


def run(args: argparse.Namespace) -> int:
    check_submission_path(args.out, runner_inputs(args))
    config = run_config(args, label=NAME)
    system = load_prompt(args.prompt_file) if args.prompt_file else STUDENT_SYSTEM_PROMPT
    if args.split == "pool":  # the whole item pool (medqade.runners.pool_source)
        questions = pool_inputs(args.data, args.limit)[0]
    else:
        questions = select_questions(open_release(args.data).questions, args.split, args.limit)
    if questions.empty:
        raise ValueError(f"no questions in split {args.split!r} of this release")
    jobs = student_jobs(questions, system)
    if args.dry_run:
        print(dry_run_text(jobs[0], config, len(jobs)))
        return 0
    result = execute(jobs, parse_student_output, config)
    if result is None:
        return 130
    outcomes, summary = result
    write_submission(args.out, submission_rows(outcomes), runner_inputs(args))
    return report(summary, args.out, config)
