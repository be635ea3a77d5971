"""The parameters of the synthetic release's latent model (what each means:
:mod:`medqade.synthetic.simulate`): the design's exact margins, the students, the merit
mixture, the evaluators with their shared errors and family biases, and the physicians.
Fixed, not drawn, so every seed has the same panel and the same judges.
"""

from __future__ import annotations

from dataclasses import dataclass

N_CORE = 200
CORE_EXACT = 40
TIER_ITEMS = (1802, 1266, 572, 160)
TIER_EXACT = (489, 182, 73, 16)
TIER_LATENT = (0.2, 0.85, 1.35, 1.85)


@dataclass(frozen=True)
class Student:
    """A student model: skill, exact-match boost, share of verbatim answers, slope over
    difficulty, share of vague wrong answers and doubt on its correct ones (log-odds)."""

    skill: float
    lexical_boost: float
    verbatim: float
    slope: float = 0.9
    vague: float = 0.4
    doubt: float = 0.0


@dataclass(frozen=True)
class Evaluator:
    """An evaluator (judge) in merit units: own noise SD, loading on the weaker judges' shared
    error, leniency, extra leniency on its own answers, abstention by tier, invalid outputs."""

    noise: float
    loading: float
    bias: float
    self_bias: float
    abstain_by_tier: tuple[float, float, float, float]
    invalid: float = 0.0


STUDENTS: dict[str, Student] = {
    "gemini-2.5-flash": Student(skill=0.92, lexical_boost=2.3, verbatim=0.8, slope=1.0, vague=0.25),
    "gpt-5-nano": Student(skill=-0.10, lexical_boost=1.1, verbatim=0.30, vague=0.2),
    "gemma3:27b": Student(skill=-0.45, lexical_boost=1.0, verbatim=0.30, vague=0.2),
    "gemma3:4b": Student(skill=-1.5, lexical_boost=0.7, verbatim=0.25, vague=0.05, doubt=3.5),
    "qwen3:4b": Student(skill=-1.35, lexical_boost=0.8, verbatim=0.25, vague=0.05, doubt=3.5),
}
MERIT = {
    "verbatim": (4.0, 1.0),
    "equivalent": (1.9, 1.7),
    "vague": (-1.4, 1.7),
    "wrong": (-3.8, 1.2),
}
MERIT_SHRINK = 0.35

# Evaluators, in merit units: own noise SD, loading on the weaker judges' shared error,
# leniency, extra leniency on their own answers, abstention by tier.
EVALUATORS: dict[str, Evaluator] = {
    "gemini-3-flash-preview": Evaluator(0.05, 0.0, -0.15, 0.0, (0, 0, 0, 0)),
    "gemini-2.5-flash": Evaluator(0.4, 0.8, 0.12, 0.6, (0.001, 0.002, 0.003, 0.005)),
    "gemini-2.5-flash-lite": Evaluator(0.5, 0.9, 0.08, 0.0, (0.002, 0.003, 0.004, 0.006)),
    "gpt-5.4-mini": Evaluator(0.1, 0.5, -0.08, 0.0, (0, 0, 0, 0)),
    "gpt-5.4-nano": Evaluator(0.5, 0.9, 0.0, 0.0, (0.001, 0.001, 0.002, 0.004)),
    "gpt-5-nano": Evaluator(0.45, 0.85, -0.09, 0.85, (0.0008, 0.0008, 0.0021, 0.0138)),
    "gemma3:27b": Evaluator(0.6, 1.0, 0.2, 1.3, (0.002, 0.003, 0.005, 0.008)),
    "gemma3:4b": Evaluator(4.0, 1.0, 0.5, 0.0, (0.053, 0.068, 0.084, 0.105), invalid=0.002),
    "qwen3:4b": Evaluator(2.5, 1.0, -0.37, -0.75, (0.034, 0.045, 0.058, 0.074), invalid=0.002),
}
LLM_SHARED_NOISE = 1.8
WEAK_SHARED_NOISE = 1.5
FAMILY_BIAS: dict[tuple[str, str], float] = {
    ("gemini-3-flash-preview", "gemini-2.5-flash"): 0.55,
    ("gemini-2.5-flash-lite", "gemini-2.5-flash"): -0.72,
    ("gemma3:27b", "gemma3:4b"): 0.6,
    ("gemma3:4b", "gemma3:27b"): 0.75,
    ("gpt-5.4-nano", "gpt-5-nano"): 0.8,
    ("gpt-5.4-mini", "gpt-5-nano"): 0.5,
}

# Physicians P01..P10: how sharply each separates right from wrong, a leniency bias (log-odds)
# and an abstention multiplier. Fixed (not drawn) so every seed has the same panel.
PHYS_SHARPNESS = (1.38, 1.09, 1.45, 1.16, 1.3, 1.06, 1.52, 1.13, 1.41, 0.8)
PHYS_BIAS = (0.28, -0.84, 0.7, -0.28, 0.0, 1.12, -0.63, 0.49, -1.26, 0.0)
PHYS_ABSTAIN_SCALE = (1.0, 0.8, 1.25, 0.9, 1.1, 0.85, 1.2, 1.0, 0.95, 1.0)
PHYS_ITEM_ABSTAIN = (0.006, 0.022, 0.045, 0.07)
PHYS_ANSWER_ABSTAIN = (0.024, 0.04, 0.055, 0.065)
ADJUDICATOR_ABSTAIN_SCALE = 1.6
# Extension raters rate 800 items each (core: 200): a little less sharp there.
EXTENSION_SHARPNESS = 0.9
MISSING_RATE = 0.002
DIFF_SIGMA = 0.8
