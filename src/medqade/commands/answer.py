"""``medqade answer``: ask any OpenAI-compatible model the cloze questions, write a submission
(on Inspect, :mod:`medqade.runners.inspect_run`)."""

from __future__ import annotations

import argparse
import time

from medqade.dataset.sources import open_release
from medqade.runners.options import ANSWER_MAX_TOKENS, add_run_arguments, runner_inputs
from medqade.runners.pool_source import pool_inputs
from medqade.runners.prompts import STUDENT_SYSTEM_PROMPT, load_prompt, student_user_message
from medqade.runners.student import (
    check_submission_path,
    earlier_answers,
    select_questions,
    submission_rows,
    write_submission,
)

NAME = "answer"
HELP = "Run an LLM as a MedQADE student: answer each cloze question, write a submission."


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_run_arguments(p, default_max_tokens=ANSWER_MAX_TOKENS)
    p.epilog = "Output: question_id, answer (.jsonl or UTF-8 .csv, chosen by the --out name)."


def run(args: argparse.Namespace) -> int:
    from medqade.runners import inspect_run as ir  # Inspect loads only when a command runs
    from medqade.runners import run_report, run_settings

    check_submission_path(args.out, runner_inputs(args))
    settings = run_settings.settings_of(args)
    system = load_prompt(args.prompt_file) if args.prompt_file else STUDENT_SYSTEM_PROMPT
    if args.split == "pool":  # the whole item pool (medqade.runners.pool_source)
        questions = pool_inputs(args.data, args.limit)[0]
    else:
        questions = select_questions(open_release(args.data).questions, args.split, args.limit)
    if questions.empty:
        raise ValueError(f"no questions in split {args.split!r} of this release")
    ids = [str(q) for q in questions["question_id"]]
    if args.dry_run:
        user = student_user_message(str(questions["question"].iloc[0]))
        print(
            run_report.dry_run_text(
                ids[0], [("system", system), ("user", user)], settings, len(ids)
            )
        )
        return 0
    key = run_settings.resume_key(settings, system=run_settings.text_hash(system))
    earlier = earlier_answers(args.out, key)
    todo = questions[~questions["question_id"].astype(str).isin(set(earlier))]
    start = time.perf_counter()
    asked = run_report.Asked()
    if not todo.empty:
        from medqade.runners.inspect_tasks import answer_run_task

        ir.check_server(settings)
        task = answer_run_task(todo, system, settings.generate_config())
        try:
            asked = ir.run_eval(task, settings)
        except KeyboardInterrupt:
            return run_report.interrupted(args.out)
    rows = submission_rows(ids, asked.rows, earlier)
    write_submission(args.out, rows, runner_inputs(args), settings=key)
    summary = run_report.summarise(rows, len(earlier), asked, run_report.timed(start))
    return run_report.report(summary, args.out, settings)
