"""The latent model behind the synthetic MedQADE release.

The real archive is embargoed; this simulator writes a *raw release* with the paper's design
(methods digest sections 1-5) and statistics close to the paper's. Everything random flows from
one ``numpy.random.Generator`` seeded by ``seed``, so a seed gives byte-identical files.

Design (exact where the paper gives numbers)
    3,800 items: core 200 (40 exact-match / 160 not), extension 3,600 (720 / 2,880). Each item
    gets a target difficulty tier so that tiers hold exactly 1,802 / 1,266 / 572 / 160 items
    with 489 / 182 / 73 / 16 exact-match items. Items are drawn from the hand-written facts
    (each fact backs at most five items, each with a different phrasing). Core items are rated
    by all ten physicians; extension items by two of P01..P09 assigned by a round-robin offset
    (800 items each); P10 rates all five answers of an extension item whose primary ratings
    leave any answer without a majority.

Latent model
    *Answers.* Student ``m`` gives a correct-type answer with probability
    ``sigmoid(skill_m - slope_m * (d_i - 0.75) + lexical_boost_m * exact_i)`` where ``d_i`` is
    the item's latent difficulty (0-2, from its tier). A correct-type answer is the reference
    verbatim (probability ``verbatim_m``) or an *equivalent* variant; an incorrect one is a
    *vague* variant (probability ``vague_m``) or a *wrong* one. In exact-match items one
    student (drawn by skill) is forced to the verbatim reference; in no-match items a verbatim
    draw becomes an equivalent (or vague, if the fact has none). Answers are the fact's strings,
    so text and labels agree.

    *Merit.* Each answer has a latent log-odds of being judged correct, drawn by type:
    verbatim ``N(4.0, 1.0)``, equivalent ``N(1.9, 1.7)``, vague ``N(-1.4, 1.7)``, wrong
    ``N(-3.8, 1.2)``, lowered by ``doubt_m`` for a student's correct-type answers and shrunk
    toward 0 by ``MERIT_SHRINK * d_i / 2`` on hard items. Answers near 0 are the ones
    physicians disagree on.

    *Physicians.* Physician ``r`` says Richtig with probability ``sigmoid(sharp_r * z + bias_r)``
    (``sharp_r`` times ``EXTENSION_SHARPNESS`` on extension items, 800 per rater against 200);
    abstains on a whole item with a probability that rises with the tier (scaled per physician),
    and on single answers at a lower rate; a small share of ratings is missing. Difficulty
    ratings are ``round(d_i + offset_r + N(0, sigma))`` clipped to 0-2, then minimally repaired
    so the mean lands in the item's target tier.

    *Evaluators.* Evaluator ``e`` says Richtig when
    ``z + u + loading_e * w + N(0, noise_e) + bias_e + self_e [own answers] + family_{e,m}
    [a sibling's answers] > 0`` and abstains at its own rate per tier (see :data:`EVALUATORS`).
    ``u ~ N(0, LLM_SHARED_NOISE)`` is drawn once per answer and shared by every evaluator;
    ``w ~ N(0, WEAK_SHARED_NOISE)`` is a second error shared by every evaluator but Gemini 3
    Flash (``loading`` 0), whose own noise is also the smallest. Identical answers to one item
    get identical labels (a judge sees the same text), but abstention is drawn per answer: it
    is a sampled refusal, and with only a handful of abstentions per tier, tying them to
    copies would make the per-tier rates swing with how often students agree verbatim.

How the paper's findings arise (``medqade synthesize --check`` checks each one)
    - *Ensembles gain little and Gemini 3 Flash is the best single judge* (RQ3): the judges'
      errors are mostly shared (``u``), which no vote removes, and the other judges also share
      ``w``; a majority of them therefore cannot correct Gemini 3 Flash, which carries neither
      ``w`` nor much own noise. The best subset for PA and PABAK is Gemini 3 Flash alone, and
      the best kappa subset differs from it by about 0, within the paper's interval. Gemini 3
      Flash is slightly strict (``bias`` -0.15), chosen by the seed sweep: it widens Gemini 3
      Flash's kappa lead over the runner-up from 1.4 to 1.7 seed-to-seed SDs without lifting
      it above the leave-one-out physicians.
    - *Why the RQ3 chain is fragile across seeds*: GPT-5.4 Mini < Gemini 3 Flash < the
      leave-one-out physicians, with Mini's CI still overlapping the physicians', must fit in
      about 0.1 kappa on 200 core items, where each gap's seed-to-seed SD is 0.02-0.04. No
      choice of parameters makes all three gaps hold in nearly every seed;
      ``bench/calibration_seeds.py`` prints each gap's mean over its SD.
    - *Physicians agree near 0.6 and the leave-one-out ceiling near 0.71* (RQ1, RQ3): physician
      sharpness and the merit mixture set how many answers lie near 0; the spread of the
      physicians' leniency (``PHYS_BIAS``) makes alpha, which pools the raters' marginals,
      come out below the mean pairwise Cohen's kappa, as in the paper.
    - *Gemma 3 4B and Qwen3-4B have the highest PA but not the highest kappa* (RQ1): few of
      their answers are correct (low prevalence), their wrong answers are mostly clearly wrong,
      and their few right ones are doubtful (``doubt``), so agreement is high but chance-
      corrected agreement is not.
    - *Accuracy falls with difficulty, most for Gemini 2.5 Flash, and exact-match items are
      easier* (RQ2): ``slope_m`` and ``lexical_boost_m``, plus the exact-match share that falls
      from 27% of T1 items to 10% of T4 items, and merit that shrinks toward 0 on hard items
      (which also leaves more T4 answers unresolved).
    - *Self and family bias* (RQ4): the additive shifts ``self_e`` and ``family_{e,m}``; the
      peer mean that RQ4 subtracts shares ``u`` (and ``w``), so the measured bias is the shift.
    - *Abstention* (RQ5) and the *adjudication flow* (section 3) follow from the per-tier
      abstention rates, the primary pairs' disagreement and the adjudicator's own rates. The
      paper's 2,770 initially unresolved extension slots need more disagreement between two
      primary raters than its core kappa of 0.61 implies for equally careful raters; the model
      gets both by making raters slightly less sharp on the extension (``EXTENSION_SHARPNESS``).

What it cannot reproduce: anything about the real questions' content (the items reuse about
a thousand hand-written facts), the real answers' wording, which specialties are hard, or the
paper's exact per-item numbers; only the distributional findings above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from medqade import vocab
from medqade.synthetic.facts import Fact

FloatArray = npt.NDArray[np.float64]

N_CORE = 200
CORE_EXACT = 40
TIER_ITEMS = (1802, 1266, 572, 160)
TIER_EXACT = (489, 182, 73, 16)
TIER_LATENT = (0.2, 0.85, 1.35, 1.85)


@dataclass(frozen=True)
class Student:
    skill: float
    lexical_boost: float
    verbatim: float
    slope: float = 0.9
    vague: float = 0.4
    doubt: float = 0.0


@dataclass(frozen=True)
class Evaluator:
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


def _sigmoid(x: FloatArray) -> FloatArray:
    return 1.0 / (1.0 + np.exp(-x))


def same_text(texts: list[list[str]]) -> npt.NDArray[np.int64]:
    """Per item and slot, the first slot of the item with the identical answer text."""
    return np.array([[row.index(a) for a in row] for row in texts], dtype=np.int64)


def tie(x: npt.NDArray[Any], same: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
    """Copy draws (..., items, 5) from the first slot with identical text to its duplicates.

    A physician or a judge who sees the same answer twice in one question set labels it the
    same way, so identical strings of one item share their merit and their labels' draws.
    """
    index = np.broadcast_to(same, x.shape)
    return np.take_along_axis(x, index, axis=-1)


def _assign_strata(
    rng: np.random.Generator,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Tier, exact-match flag and core flag per item, with the paper's exact margins."""
    tiers = np.concatenate([np.full(n, t + 1, dtype=np.int8) for t, n in enumerate(TIER_ITEMS)])
    exact = np.concatenate([np.arange(n) < e for n, e in zip(TIER_ITEMS, TIER_EXACT, strict=True)])
    core = np.zeros(len(tiers), dtype=bool)
    for flag, n_core in ((True, CORE_EXACT), (False, N_CORE - CORE_EXACT)):
        pool = np.flatnonzero(exact == flag)
        core[rng.choice(pool, size=n_core, replace=False)] = True
    order = np.concatenate(
        [rng.permutation(np.flatnonzero(core)), rng.permutation(np.flatnonzero(~core))]
    )
    return tiers[order], exact[order], core[order]


def _choose_items(
    facts: tuple[Fact, ...], n: int, rng: np.random.Generator
) -> list[tuple[Fact, str]]:
    pool = [(f, q) for f in facts for q in f.phrasings[:5]]
    if len(pool) < n:
        raise ValueError(
            f"{len(facts)} facts give {len(pool)} phrasings; {n} items need more facts"
        )
    pick = rng.choice(len(pool), size=n, replace=False)
    return [pool[i] for i in pick]


def draw_answers(
    items: list[tuple[Fact, str]],
    d: FloatArray,
    exact: npt.NDArray[np.bool_],
    rng: np.random.Generator,
) -> tuple[list[list[str]], npt.NDArray[np.str_]]:
    """Answer strings and their variant types, shape (items, 5)."""
    n = len(items)
    params = list(STUDENTS.values())
    skill = np.array([s.skill for s in params])
    boost = np.array([s.lexical_boost for s in params])
    verbatim = np.array([s.verbatim for s in params])
    slope = np.array([s.slope for s in params])
    vague = np.array([s.vague for s in params])
    p_ok = _sigmoid(
        skill[None, :] - slope[None, :] * (d[:, None] - 0.75) + boost[None, :] * exact[:, None]
    )
    ok = rng.random((n, 5)) < p_ok
    kind = np.where(
        ok,
        np.where(rng.random((n, 5)) < verbatim[None, :], "verbatim", "equivalent"),
        np.where(rng.random((n, 5)) < vague[None, :], "vague", "wrong"),
    ).astype("<U10")
    weights = _sigmoid(skill)
    texts: list[list[str]] = []
    pick = rng.random((n, 5))
    anchor = [int(rng.choice(5, p=weights / weights.sum())) for _ in range(n)]
    for i, (fact, _q) in enumerate(items):
        row = kind[i]
        if exact[i]:
            if not (row == "verbatim").any():
                row[anchor[i]] = "verbatim"
        else:
            row[row == "verbatim"] = "equivalent"
        if not fact.equivalent:
            row[row == "equivalent"] = "vague" if not exact[i] else "verbatim"
            if not exact[i]:
                row[row == "verbatim"] = "vague"
        out = []
        for s in range(5):
            k = row[s]
            options = {
                "verbatim": (fact.reference,),
                "equivalent": fact.equivalent,
                "vague": fact.vague,
                "wrong": fact.wrong,
            }[str(k)]
            out.append(options[int(pick[i, s] * len(options))])
        texts.append(out)
    return texts, kind


def draw_merit(kind: npt.NDArray[np.str_], d: FloatArray, rng: np.random.Generator) -> FloatArray:
    """Latent merit (items, 5): drawn by answer type, shrunk toward 0 on harder items."""
    z = np.empty(kind.shape)
    for k, (mu, sd) in MERIT.items():
        m = kind == k
        z[m] = rng.normal(mu, sd, size=int(m.sum()))
    doubt = np.array([s.doubt for s in STUDENTS.values()])
    right = (kind == "verbatim") | (kind == "equivalent")
    z = z - np.where(right, doubt[None, :], 0.0)
    return z * (1.0 - MERIT_SHRINK * d[:, None] / 2.0)


def _extension_pairs(n_ext: int) -> npt.NDArray[np.int64]:
    """Round-robin offset: item j gets primary raters j mod 9 and (j + 1 + (j // 9) mod 8) mod 9."""
    j = np.arange(n_ext)
    a = j % 9
    b = (a + 1 + (j // 9) % 8) % 9
    return np.stack([a, b], axis=1)


def draw_physician_labels(
    z: FloatArray,
    tiers: npt.NDArray[np.int8],
    core: npt.NDArray[np.bool_],
    same: npt.NDArray[np.int64],
    rng: np.random.Generator,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Codes (10, items, 5) with -1 = not rated; round (0 primary / 1 adjudication) per item."""
    n = len(z)
    n_phys = 10
    sharp = np.asarray(PHYS_SHARPNESS)
    bias = np.asarray(PHYS_BIAS)
    scale = np.asarray(PHYS_ABSTAIN_SCALE)
    scale[9] *= ADJUDICATOR_ABSTAIN_SCALE
    t = tiers - 1
    p_item = np.asarray(PHYS_ITEM_ABSTAIN)[t][None, :] * scale[:, None]
    p_ans = np.asarray(PHYS_ANSWER_ABSTAIN)[t][None, :] * scale[:, None]
    yes = tie(rng.random((n_phys, n, 5)), same) < _sigmoid(
        sharp[:, None, None] * np.where(core, 1.0, EXTENSION_SHARPNESS)[None, :, None] * z[None]
        + bias[:, None, None]
    )
    labels = np.where(yes, vocab.RICHTIG_CODE, vocab.FALSCH_CODE).astype(np.int8)
    abstain = (rng.random((n_phys, n, 1)) < p_item[:, :, None]) | (
        tie(rng.random((n_phys, n, 5)), same) < p_ans[:, :, None]
    )
    labels[abstain] = vocab.ABSTAIN_CODE
    labels[rng.random(labels.shape) < MISSING_RATE] = vocab.MISSING_CODE
    assigned = np.zeros((n_phys, n), dtype=bool)
    assigned[:, core] = True
    ext_idx = np.flatnonzero(~core)
    pairs = _extension_pairs(len(ext_idx))
    assigned[pairs[:, 0], ext_idx] = True
    assigned[pairs[:, 1], ext_idx] = True
    primary = np.where(assigned[:, :, None], labels, vocab.MISSING_CODE).astype(np.int8)
    r = (primary == vocab.RICHTIG_CODE).sum(axis=0)
    f = (primary == vocab.FALSCH_CODE).sum(axis=0)
    adjudicate = (~core) & (r == f).any(axis=1)
    primary[9, adjudicate] = labels[9, adjudicate]
    return primary, labels, adjudicate


def _difficulty(
    d: npt.NDArray[np.float64],
    tiers: npt.NDArray[np.int8],
    raters: npt.NDArray[np.bool_],
    rng: np.random.Generator,
) -> npt.NDArray[np.int8]:
    """Difficulty codes (10, items), -1 where not rated; the mean lands in the target tier."""
    n_phys, n = raters.shape
    offset = np.asarray(rng.normal(0.0, 0.2, size=n_phys))
    d = np.asarray(d, dtype=np.float64)
    raw = np.rint(d[None, :] + offset[:, None] + rng.normal(0.0, DIFF_SIGMA, size=(n_phys, n)))
    scores = np.clip(raw, 0, 2).astype(np.int8)
    scores[~raters] = -1
    for i in range(n):
        col = scores[:, i]
        who = np.flatnonzero(col >= 0)
        while True:
            mean = col[who].mean()
            tier = int(vocab.tier_of(mean))
            if tier == tiers[i]:
                break
            step = 1 if tier < tiers[i] else -1
            movable = who[(col[who] < 2) if step > 0 else (col[who] > 0)]
            col[int(rng.choice(movable))] += step
    return np.asarray(scores, dtype=np.int8)


def draw_evaluators(
    z: FloatArray,
    tiers: npt.NDArray[np.int8],
    d: FloatArray,
    same: npt.NDArray[np.int64],
    rng: np.random.Generator,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """Evaluator label codes (9, items, 5) (-1 = unparseable output) and difficulty (9, items)."""
    students = list(STUDENTS)
    n = len(z)
    shared = tie(rng.normal(0.0, LLM_SHARED_NOISE, size=z.shape), same)
    weak = tie(rng.normal(0.0, WEAK_SHARED_NOISE, size=z.shape), same)
    labels = np.empty((len(EVALUATORS), n, 5), dtype=np.int8)
    diff = np.empty((len(EVALUATORS), n), dtype=np.int8)
    for e, (eid, p) in enumerate(EVALUATORS.items()):
        shift = np.full(5, p.bias)
        for s, sid in enumerate(students):
            if sid == eid:
                shift[s] += p.self_bias
            shift[s] += FAMILY_BIAS.get((eid, sid), 0.0)
        noise = tie(rng.normal(0.0, p.noise, size=z.shape), same)
        x = z + shared + p.loading * weak + noise + shift[None, :]
        lab = np.where(x > 0, vocab.RICHTIG_CODE, vocab.FALSCH_CODE)
        abstain = rng.random(z.shape) < np.asarray(p.abstain_by_tier)[tiers - 1][:, None]
        lab[abstain] = vocab.ABSTAIN_CODE
        lab[rng.random(z.shape) < p.invalid] = vocab.MISSING_CODE
        labels[e] = lab
        diff[e] = np.clip(np.rint(d + rng.normal(0.0, 0.7, size=n) - 0.2), 0, 2)
    return labels, diff


def simulate(facts: tuple[Fact, ...], seed: int) -> dict[str, Any]:
    """Run the latent model; return the raw tables as frames/records (see :func:`synthesize`)."""
    rng = np.random.default_rng(seed)
    roster = vocab.DEFAULT_ROSTER
    tiers, exact, core = _assign_strata(rng)
    n = len(tiers)
    d = np.clip(np.asarray(TIER_LATENT)[tiers - 1] + rng.normal(0.0, 0.12, size=n), 0.0, 2.0)
    items = _choose_items(facts, n, rng)
    texts, kind = draw_answers(items, d, exact, rng)
    same = same_text(texts)
    z = tie(draw_merit(kind, d, rng), same)
    ratings, _all, adjudicated = draw_physician_labels(z, tiers, core, same, rng)
    rated_item = np.asarray((ratings >= 0).any(axis=2), dtype=bool)
    diff = _difficulty(d, tiers, rated_item, rng)
    ev_labels, ev_diff = draw_evaluators(z, tiers, d, same, rng)

    n_core = int(core.sum())
    qids = [f"MQ-C{i + 1:04d}" if i < n_core else f"MQ-E{i - n_core + 1:04d}" for i in range(n)]
    questions = pd.DataFrame(
        {
            "question_id": qids,
            "split": np.where(core, vocab.CORE, vocab.EXTENSION),
            "question": [q for _f, q in items],
            "reference_answer": [f.reference for f, _q in items],
            "specialty": [f.specialty for f, _q in items],
            "fact_id": [f.fact_id for f, _q in items],
        }
    )
    students = roster.student_ids
    answers = pd.DataFrame(
        {
            "question_id": np.repeat(qids, 5),
            "model": np.tile(students, n),
            "answer": [a for row in texts for a in row],
        }
    )
    r_idx, i_idx, s_idx = np.nonzero(ratings >= 0)
    labels = ratings[r_idx, i_idx, s_idx]
    is_adj = (r_idx == 9) & adjudicated[i_idx]
    ratings_frame = pd.DataFrame(
        {
            "question_id": np.asarray(qids)[i_idx],
            "rater": np.asarray(roster.physicians)[r_idx],
            "model": np.asarray(students)[s_idx],
            "label": np.asarray([vocab.CODE_LABELS[c] for c in (0, 1, 2)])[labels],
            "round": np.where(is_adj, vocab.ADJUDICATION, vocab.PRIMARY),
        }
    )
    dr, di = np.nonzero(diff.T >= 0)
    difficulty = pd.DataFrame(
        {
            "question_id": np.asarray(qids)[dr],
            "rater": np.asarray(roster.physicians)[di],
            "difficulty": np.asarray(vocab.DIFFICULTIES)[diff.T[dr, di]],
        }
    )
    judgments = []
    label_text = {0: vocab.FALSCH, 1: vocab.RICHTIG, 2: vocab.KEINE_ANGABE, -1: None}
    for e, eid in enumerate(roster.evaluator_ids):
        perms = rng.permuted(np.tile(np.arange(5), (n, 1)), axis=1)
        for i in range(n):
            order = perms[i]
            rec: dict[str, Any] = {
                "evaluator": eid,
                "question_id": qids[i],
                "order": [students[s] for s in order],
            }
            for k, s in enumerate(order, start=1):
                rec[f"resp_{k}"] = label_text[int(ev_labels[e, i, s])]
            rec["difficulty"] = vocab.DIFFICULTIES[int(ev_diff[e, i])]
            judgments.append(rec)
    return {
        "questions": questions,
        "answers": answers,
        "ratings": ratings_frame,
        "difficulty": difficulty,
        "judgments": judgments,
    }
