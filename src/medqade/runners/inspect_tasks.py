"""MedQADE as Inspect tasks: ``inspect eval medqade/judge`` and ``inspect eval medqade/answer``.

Registered as an Inspect extension (``[project.entry-points.inspect_ai] medqade = ...`` in
``pyproject.toml``), so after ``pip install 'medqade[inspect]'``::

    inspect eval medqade/judge --model openai-api/local/smollm2 -T split=core -T seed=0
    inspect eval medqade/answer --model ollama/qwen3:4b --model-role grader=openai/gpt-5.4-mini

Task arguments (``-T``): ``data`` (a ``--data`` source: build folder, raw release or Hub repo
id; default the synthetic release), ``split`` (``core``, ``extension``, ``all`` or ``pool``),
``seed`` (the presentation order, as ``medqade judge --seed``), ``prompt_file`` (a UTF-8 system
prompt), ``response_format`` (judge: ``json_schema``, ``json_object`` or ``none``) and
``max_tokens``.

The judge task has one sample per question set, the five answers in the order
:func:`~medqade.runners.judge.answer_order` draws from ``seed`` (epoch 1; a later epoch draws
its own order from ``seed`` and the epoch, so repeated runs show each set in a new order). Its
scorer parses the reply with :func:`~medqade.runners.parsing.parse_judge_output`: an unusable
reply is invalid (no labels), never a label, and the raw reply stays in the score's metadata.
Its metric (:mod:`~medqade.runners.inspect_metrics`) scores the labels exactly as
``medqade score`` does. The answer task has one sample per question; its metric is the
anchored accuracy with its bounds, and the judged estimate when a ``grader`` model role labels
the answers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import pandas as pd
from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
    model_roles,
)
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from medqade.dataset.sources import open_release
from medqade.runners.inspect_metrics import answer_accuracy, judge_agreement, valid_share
from medqade.runners.judge import JudgeItem, answer_order, judge_items
from medqade.runners.options import ANSWER_MAX_TOKENS, JUDGE_MAX_TOKENS, ORDER_SEED
from medqade.runners.output_formats import Ladder, format_ladder, refused_format
from medqade.runners.parsing import InvalidOutput, parse_judge_output, parse_student_output
from medqade.runners.pool_source import pool_inputs
from medqade.runners.prompts import (
    JUDGE_SYSTEM_PROMPT,
    STUDENT_SYSTEM_PROMPT,
    judge_user_message,
    load_prompt,
    student_user_message,
)
from medqade.runners.student import select_questions
from medqade.schema import POOL_SPLIT

SPLITS: Final = ("core", "extension", "all", POOL_SPLIT)
GRADER_ROLE: Final = "grader"
"""The model role (``--model-role grader=PROVIDER/MODEL``) that labels a student's answers."""


def epoch_seed(seed: int, epoch: int) -> int:
    """The order seed of ``epoch``: ``seed`` itself in epoch 1 (the order ``medqade judge``
    uses), a seed drawn from ``seed`` and the epoch after it."""
    if epoch < 1:
        raise ValueError(f"epoch must be at least 1, got {epoch}")
    if epoch == 1:
        return seed
    digest = hashlib.sha256(f"medqade-epoch:{seed}:{epoch}".encode()).hexdigest()
    return int(digest[:12], 16)


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"-T split must be one of {', '.join(SPLITS)}, got {split!r}")


def _system(prompt_file: str | None, default: str) -> str:
    return load_prompt(Path(prompt_file)) if prompt_file else default


@solver
def judge_solver(
    system: str,
    students: Sequence[str],
    seed: int,
    response_format: str = "json_schema",
    extra_body: Mapping[str, Any] | None = None,
    orders: Mapping[str, Sequence[str]] | None = None,
) -> Solver:
    """Build the item in this epoch's order and ask for the labels, stepping down the
    structured-output ladder once for the run when the server refuses a shape (a rung's
    ``response_format`` is merged into ``extra_body``, the run's own extra request keys).
    ``orders``: a question's order in epoch 1 given (``medqade verify`` shows the stored one)."""
    ladder = Ladder(format_ladder(response_format, len(students)), extra_body)
    roster = tuple(students)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        qid = str(meta["question_id"])
        given = (orders or {}).get(qid) if state.epoch == 1 else None
        order = tuple(given) if given else answer_order(qid, roster, epoch_seed(seed, state.epoch))
        texts: Mapping[str, str | None] = meta["answers"]
        user = judge_user_message(meta["question"], meta["reference"], [texts[s] for s in order])
        messages: list[ChatMessage] = [
            ChatMessageSystem(content=system),
            ChatMessageUser(content=user),
        ]
        state.messages = messages
        state.metadata["order"] = list(order)
        probed = False  # this sample's probe failed for another reason than the format
        while not (ladder.confirmed or probed or ladder.rungs[ladder.level].name == "none"):
            async with ladder.lock:  # one probe at a time until a shape is answered
                level = ladder.level
                rung = ladder.rungs[level]
                if ladder.confirmed or rung.name == "none":
                    break
                try:  # no retries: a refused shape is known at once
                    state = await generate(state, **{**rung.config, "max_retries": 0})
                except Exception as exc:
                    state.messages = messages
                    if not (refused_format(exc) and ladder.step_down(level)):
                        probed = True  # a transient failure: ask again with retries
                    continue
                ladder.confirmed = True
                state.metadata["response_format"] = rung.name
                return state
        rung = ladder.rungs[ladder.level]
        state = await generate(state, **rung.config)
        state.metadata["response_format"] = rung.name
        return state

    return solve


@scorer(metrics=[])
def judge_scorer(n: int) -> Scorer:
    """Parse the reply: the labels in presentation order, or invalid with the reason."""

    async def score(state: TaskState, target: Target) -> Score:
        raw = state.output.completion
        meta = {
            "question_id": state.metadata["question_id"],
            "order": state.metadata.get("order"),
            "epoch": state.epoch,
            "response_format": state.metadata.get("response_format"),
        }
        try:
            verdict = parse_judge_output(raw, n)
        except InvalidOutput as exc:
            return Score(
                value=0.0,
                answer=None,
                explanation=f"invalid: {exc}",
                metadata={**meta, "labels": None, "difficulty": None, "raw": raw},
            )
        return Score(
            value=1.0,
            answer=", ".join(verdict.labels),
            metadata={
                **meta,
                "labels": list(verdict.labels),
                "difficulty": verdict.difficulty,
                "raw": raw,
            },
        )

    return score


def judge_samples(data: str | None, split: str, seed: int) -> tuple[list[Sample], tuple[str, ...]]:
    """One sample per question set of ``split``; its input is the epoch-1 item."""
    _check_split(split)
    if split == POOL_SPLIT:
        questions, answers, students = pool_inputs(data)
    else:
        release = open_release(data)
        questions = select_questions(release.questions, split)
        answers, students = release.answers, tuple(release.roster.student_ids)
    if questions.empty:
        raise ValueError(f"no questions in split {split!r} of this release")
    return item_samples(judge_items(questions, answers, students, seed)), tuple(students)


def item_samples(items: Sequence[JudgeItem]) -> list[Sample]:
    """One judge sample per item (its input the item as shown in epoch 1)."""
    samples = []
    for item in items:
        by_student = dict(zip(item.order, item.answers, strict=True))
        samples.append(
            Sample(
                id=item.question_id,
                input=judge_user_message(item.question, item.reference, item.answers),
                metadata={
                    "question_id": item.question_id,
                    "question": item.question,
                    "reference": item.reference,
                    "answers": by_student,
                },
            )
        )
    return samples


@task
def judge(
    data: str | None = None,
    split: str = "all",
    seed: int = ORDER_SEED,
    prompt_file: str | None = None,
    response_format: str = "json_schema",
    max_tokens: int = JUDGE_MAX_TOKENS,
    resamples: int = 1000,
    epochs: int = 1,
) -> Task:
    """MedQADE judge: label the five answers of each question set (Richtig / Falsch /
    Keine Angabe) against the physicians' consensus."""
    system = _system(prompt_file, JUDGE_SYSTEM_PROMPT)
    samples, students = judge_samples(data, split, seed)
    metrics: list[Any] = [valid_share()]
    if split != POOL_SPLIT:
        metrics.append(judge_agreement(data=data, resamples=resamples))
    return Task(
        dataset=MemoryDataset(samples, name=f"medqade-{split}"),
        solver=judge_solver(system, students, seed, response_format),
        scorer=judge_scorer(len(students)),
        metrics=metrics,
        config=GenerateConfig(max_tokens=max_tokens, temperature=0.0),
        epochs=Epochs(epochs),
        name="judge",
        metadata={"medqade": {"kind": "judge", "split": split, "seed": seed}},
    )


@solver
def student_solver(system: str) -> Solver:
    """Ask the cloze question with the student prompt."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.messages = [
            ChatMessageSystem(content=system),
            ChatMessageUser(content=student_user_message(state.input_text)),
        ]
        return await generate(state)

    return solve


@scorer(metrics=[])
def answer_scorer(grader_system: str = JUDGE_SYSTEM_PROMPT) -> Scorer:
    """The parsed answer (or invalid); with a ``grader`` model role, its label of the answer."""

    async def score(state: TaskState, target: Target) -> Score:
        raw = state.output.completion
        meta: dict[str, Any] = {"question_id": state.metadata["question_id"], "raw": raw}
        try:
            answer = parse_student_output(raw)
        except InvalidOutput as exc:
            return Score(value=0.0, explanation=f"invalid: {exc}", metadata=meta)
        meta["answer"] = answer
        grader = _grader()
        if grader is not None:
            reply = await grader.generate(
                [
                    ChatMessageSystem(content=grader_system),
                    ChatMessageUser(
                        content=judge_user_message(state.input_text, target.text, [answer])
                    ),
                ]
            )
            meta["grader_raw"] = reply.completion
            try:
                meta["label"] = parse_judge_output(reply.completion, 1).labels[0]
            except InvalidOutput as exc:
                meta["label"] = None
                meta["grader_error"] = str(exc)
        return Score(value=1.0, answer=answer, metadata=meta)

    return score


def _grader() -> Model | None:
    """The ``grader`` role's model, or ``None`` when the run names none."""
    if model_roles().get(GRADER_ROLE) is None:
        return None
    return get_model(role=GRADER_ROLE)


def answer_samples(data: str | None, split: str) -> list[Sample]:
    """One sample per question of ``split``; the target is the reference answer."""
    _check_split(split)
    if split == POOL_SPLIT:
        questions = pool_inputs(data)[0]
    else:
        questions = select_questions(open_release(data).questions, split)
    if questions.empty:
        raise ValueError(f"no questions in split {split!r} of this release")
    return question_samples(questions)


def question_samples(questions: pd.DataFrame) -> list[Sample]:
    """One answer sample per question (``question_id, question, reference_answer``)."""
    return [
        Sample(
            id=str(qid),
            input=str(question),
            target=str(reference),
            metadata={"question_id": str(qid)},
        )
        for qid, question, reference in zip(
            questions["question_id"],
            questions["question"],
            questions["reference_answer"],
            strict=True,
        )
    ]


@task
def answer(
    data: str | None = None,
    split: str = "all",
    prompt_file: str | None = None,
    max_tokens: int = ANSWER_MAX_TOKENS,
    resamples: int = 1000,
) -> Task:
    """MedQADE student: answer each cloze question; scored by anchored accuracy."""
    system = _system(prompt_file, STUDENT_SYSTEM_PROMPT)
    metrics: list[Any] = [valid_share()]
    if split != POOL_SPLIT:
        metrics.append(answer_accuracy(data=data, resamples=resamples))
    return Task(
        dataset=MemoryDataset(answer_samples(data, split), name=f"medqade-{split}"),
        solver=student_solver(system),
        scorer=answer_scorer(),
        metrics=metrics,
        config=GenerateConfig(max_tokens=max_tokens, temperature=0.0),
        name="answer",
        metadata={"medqade": {"kind": "answers", "split": split}},
    )


def judge_run_task(
    items: Sequence[JudgeItem],
    students: Sequence[str],
    system: str,
    seed: int,
    response_format: str,
    config: GenerateConfig,
    given_orders: bool = False,
) -> Task:
    """The judge task of ``medqade judge``: the items it asks, its generate settings, and only
    the valid share as metric (the command writes the labels; ``medqade score`` scores them).
    ``given_orders``: each item is shown in its own ``order`` (``medqade verify``), not in the
    one ``seed`` draws."""
    orders = {item.question_id: item.order for item in items} if given_orders else None
    return Task(
        dataset=MemoryDataset(item_samples(items), name="medqade-judge"),
        solver=judge_solver(system, students, seed, response_format, config.extra_body, orders),
        scorer=judge_scorer(len(students)),
        metrics=[valid_share()],
        config=config,
        name="judge",
        metadata={"medqade": {"kind": "judge", "seed": seed}},
    )


def answer_run_task(questions: pd.DataFrame, system: str, config: GenerateConfig) -> Task:
    """The answer task of ``medqade answer`` (as :func:`judge_run_task`)."""
    return Task(
        dataset=MemoryDataset(question_samples(questions), name="medqade-answer"),
        solver=student_solver(system),
        scorer=answer_scorer(),
        metrics=[valid_share()],
        config=config,
        name="answer",
        metadata={"medqade": {"kind": "answers"}},
    )
