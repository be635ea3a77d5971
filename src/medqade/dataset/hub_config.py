"""The ``judge_hub`` config: one row per resolved answer, shaped for Inspect's ``hf/`` loader.

Inspect builds a task straight from the dataset's ``eval.yaml`` (``inspect eval hf/ORG/NAME``,
``inspect_ai/_eval/task/hf.py``) with built-in solvers and scorers only. The judge track's
Hub task (:data:`medqade.dataset.hub_eval.JUDGE_TASK`) is a two-choice question per answer:

``input``
    one answer to judge: the instruction, the cloze question, the reference answer as context
    and the student's answer (:func:`judge_input`);
``choices``
    ``["Richtig", "Falsch"]`` (:data:`CHOICES`; Inspect shows them as ``A)`` and ``B)``);
``target``
    the letter of the physician consensus (``A`` for ``Richtig``, ``B`` for ``Falsch``).

Only resolved answers are rows (an unresolved consensus has no target), in the release's order,
split ``core`` and ``extension`` like every other config. The built-in ``multiple_choice``
solver asks for the letter and the ``choice`` scorer marks it correct when it is the
consensus's, so the task's metric is the *accuracy against the physician consensus on the
resolved answers* (a reply without a letter, like a judge's abstention, counts as wrong).
``medqade score`` computes the same number from any judge's labels
(:func:`medqade.dataset.hub_eval.consensus_accuracy`). Kappa and the verdict against the
physicians need all five answers of an item and the physicians' own ratings: they are not a
built-in scorer, and live in the Space.
"""

from __future__ import annotations

from typing import Final

import pandas as pd

from medqade import vocab

CONFIG: Final = "judge_hub"
CHOICES: Final = (vocab.RICHTIG, vocab.FALSCH)
"""The answer options, in the order Inspect letters them (``A``, ``B``)."""
LETTERS: Final = {label: chr(ord("A") + k) for k, label in enumerate(CHOICES)}
COLUMNS: Final = ("answer_id", "question_id", "model", "input", "choices", "target")

INSTRUCTION: Final = (
    "Sie begutachten als Ärztin oder Arzt die Antwort eines Prüflings auf eine medizinische "
    "Lückentext-Frage. Die Musterlösung zeigt, worauf die Frage abzielt; sie ist kein "
    "Lösungsschlüssel: Eine anders formulierte, fachlich gleichwertige Antwort (Synonym, "
    "lateinischer Fachbegriff, gängige Abkürzung) ist ebenfalls richtig. Eine Antwort, die zu "
    "allgemein, unvollständig oder fachlich falsch ist, ist falsch."
)


def judge_input(question: str, reference: str, answer: str | None) -> str:
    """The ``input`` of one row: instruction, question, reference and the answer to judge."""
    shown = str(answer).strip() if answer is not None else ""
    return "\n".join(
        [
            INSTRUCTION,
            "",
            f"Frage: {str(question).strip()}",
            f"Musterlösung (nur zur Orientierung): {str(reference).strip()}",
            f"Antwort des Prüflings: {shown or vocab.EMPTY_ANSWER}",
            "",
            "Ist die Antwort des Prüflings richtig oder falsch?",
        ]
    )


def judge_hub_frame(questions: pd.DataFrame, answers: pd.DataFrame) -> pd.DataFrame:
    """The ``judge_hub`` rows from the built ``questions`` and ``answers`` frames (resolved
    answers only, in the answers' order), with ``split`` and ``canary``."""
    text = dict(zip(questions["question_id"], questions["question"], strict=True))
    reference = dict(zip(questions["question_id"], questions["reference_answer"], strict=True))
    resolved = answers[answers["consensus"].isin(CHOICES)]
    out = pd.DataFrame(
        {
            "answer_id": resolved["answer_id"].to_numpy(),
            "question_id": resolved["question_id"].to_numpy(),
            "model": resolved["model"].to_numpy(),
        }
    )
    out["input"] = [
        judge_input(str(text[qid]), str(reference[qid]), ans)
        for qid, ans in zip(resolved["question_id"], resolved["answer"], strict=True)
    ]
    out["choices"] = [list(CHOICES) for _ in range(len(out))]
    out["target"] = [LETTERS[c] for c in resolved["consensus"]]
    out["split"] = resolved["split"].to_numpy()
    out["canary"] = vocab.CANARY
    return out


__all__ = [
    "CHOICES",
    "COLUMNS",
    "CONFIG",
    "INSTRUCTION",
    "LETTERS",
    "judge_hub_frame",
    "judge_input",
]
