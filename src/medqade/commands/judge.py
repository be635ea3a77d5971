"""``medqade judge``: run any OpenAI-compatible model as an evaluator over the answer sets."""

from __future__ import annotations

import argparse

from medqade.runners.judge import (
    RESPONSE_FORMATS,
    check_judgment_path,
    judge_items,
    judge_jobs,
    judge_parser,
    judgment_rows,
    write_judgments,
)
from medqade.runners.options import (
    JUDGE_MAX_TOKENS,
    add_run_arguments,
    dry_run_text,
    execute,
    report,
    run_config,
    runner_inputs,
)
from medqade.runners.pool_source import pool_inputs
from medqade.runners.prompts import JUDGE_SYSTEM_PROMPT, load_prompt
from medqade.runners.student import select_questions
from medqade.sources import open_release

NAME = "judge"
HELP = "Run an LLM as a MedQADE evaluator: label the five answers of each question set."


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_run_arguments(p, default_max_tokens=JUDGE_MAX_TOKENS)
    p.add_argument(
        "--evaluator",
        default=None,
        help="evaluator id written to each line (default: --model)",
    )
    p.add_argument(
        "--response-format",
        choices=RESPONSE_FORMATS,
        default="json_schema",
        help="structured output to ask for first (default json_schema, strict); when the "
        "server refuses it, the run steps down once: json_object with the schema, "
        "json_object, none",
    )
    p.epilog = (
        'Output (.jsonl): {"evaluator", "question_id", "order", "resp_1".."resp_5", '
        '"difficulty"} per question; failures have null labels plus "error" and "raw".'
    )


def run(args: argparse.Namespace) -> int:
    check_judgment_path(args.out, runner_inputs(args))
    config = run_config(args, label=NAME)
    system = load_prompt(args.prompt_file) if args.prompt_file else JUDGE_SYSTEM_PROMPT
    if args.split == "pool":  # the whole item pool (medqade.runners.pool_source)
        questions, answers, students = pool_inputs(args.data, args.limit)
    else:
        release = open_release(args.data)
        questions = select_questions(release.questions, args.split, args.limit)
        answers, students = release.answers, release.roster.student_ids
    if questions.empty:
        raise ValueError(f"no questions in split {args.split!r} of this release")
    items = judge_items(questions, answers, students, args.seed)
    jobs = judge_jobs(items, system, args.response_format)
    if args.dry_run:
        print(dry_run_text(jobs[0], config, len(jobs)))
        return 0
    result = execute(jobs, judge_parser(len(students)), config)
    if result is None:
        return 130
    outcomes, summary = result
    write_judgments(
        args.out,
        judgment_rows(items, outcomes, args.evaluator or args.model),
        runner_inputs(args),
    )
    return report(summary, args.out, config)
