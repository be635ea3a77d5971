"""``medqade judge``: run any OpenAI-compatible model as an evaluator over the answer sets
(on Inspect, :mod:`medqade.runners.inspect_run`)."""

from __future__ import annotations

import argparse
import time

from medqade.dataset.sources import open_release
from medqade.runners.judge import (
    RESPONSE_FORMATS,
    check_judgment_path,
    earlier_judgments,
    judge_items,
    judgment_rows,
    response_format,
    write_judgments,
)
from medqade.runners.options import JUDGE_MAX_TOKENS, add_run_arguments, runner_inputs
from medqade.runners.pool_source import pool_inputs
from medqade.runners.prompts import JUDGE_SYSTEM_PROMPT, judge_user_message, load_prompt
from medqade.runners.student import select_questions

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
    from medqade.runners import inspect_run as ir  # Inspect loads only when a command runs
    from medqade.runners import run_report, run_settings

    check_judgment_path(args.out, runner_inputs(args))
    settings = run_settings.settings_of(args)
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
    shape = response_format(args.response_format, len(students))
    if args.dry_run:
        first = items[0]
        user = judge_user_message(first.question, first.reference, first.answers)
        messages = [("system", system), ("user", user)]
        print(run_report.dry_run_text(first.question_id, messages, settings, len(items), shape))
        return 0
    evaluator = args.evaluator or args.model
    key = run_settings.resume_key(
        settings,
        system=run_settings.text_hash(system),
        seed=args.seed,
        response_format=args.response_format,
        evaluator=evaluator,
    )
    earlier = earlier_judgments(args.out, key, items)
    todo = [item for item in items if item.question_id not in earlier]
    start = time.perf_counter()
    asked = run_report.Asked()
    if todo:
        from medqade.runners.inspect_tasks import judge_run_task

        ir.check_server(settings)
        task = judge_run_task(
            todo, students, system, args.seed, args.response_format, settings.generate_config()
        )
        try:
            asked = ir.run_eval(task, settings)
        except KeyboardInterrupt:
            return run_report.interrupted(args.out)
    rows = judgment_rows(items, asked.rows, earlier, evaluator)
    write_judgments(args.out, rows, runner_inputs(args), settings=key)
    summary = run_report.summarise(rows, len(earlier), asked, run_report.timed(start))
    return run_report.report(summary, args.out, settings)
