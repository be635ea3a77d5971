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
    [a sibling's answers] > 0`` and abstains at its own rate per tier (see
    :data:`~medqade.synthetic.parameters.EVALUATORS`).
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

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from medqade import vocab
from medqade.synthetic.draws import (
    assign_strata,
    choose_items,
    draw_answers,
    draw_difficulty,
    draw_evaluators,
    draw_merit,
    draw_physician_labels,
    same_text,
    tie,
)
from medqade.synthetic.facts import Fact
from medqade.synthetic.parameters import TIER_LATENT


def simulate(facts: tuple[Fact, ...], seed: int) -> dict[str, Any]:
    """Run the latent model; return the raw tables as frames/records (see :func:`synthesize`)."""
    rng = np.random.default_rng(seed)
    roster = vocab.DEFAULT_ROSTER
    tiers, exact, core = assign_strata(rng)
    n = len(tiers)
    d = np.clip(np.asarray(TIER_LATENT)[tiers - 1] + rng.normal(0.0, 0.12, size=n), 0.0, 2.0)
    items = choose_items(facts, n, rng)
    texts, kind = draw_answers(items, d, exact, rng)
    same = same_text(texts)
    z = tie(draw_merit(kind, d, rng), same)
    ratings, _all, adjudicated = draw_physician_labels(z, tiers, core, same, rng)
    rated_item = np.asarray((ratings >= 0).any(axis=2), dtype=bool)
    diff = draw_difficulty(d, tiers, rated_item, rng)
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
    judgments = _judgment_records(qids, students, roster.evaluator_ids, ev_labels, ev_diff, rng)
    return {
        "questions": questions,
        "answers": answers,
        "ratings": ratings_frame,
        "difficulty": difficulty,
        "judgments": judgments,
    }


def _judgment_records(
    qids: list[str],
    students: tuple[str, ...],
    evaluators: tuple[str, ...],
    labels: npt.NDArray[np.int8],
    difficulty: npt.NDArray[np.int8],
    rng: np.random.Generator,
) -> list[dict[str, Any]]:
    """One record per evaluator and item: the students in a drawn order, the labels as
    ``resp_1..5`` in that order, and the difficulty."""
    n = len(qids)
    judgments = []
    label_text = {0: vocab.FALSCH, 1: vocab.RICHTIG, 2: vocab.KEINE_ANGABE, -1: None}
    for e, eid in enumerate(evaluators):
        perms = rng.permuted(np.tile(np.arange(5), (n, 1)), axis=1)
        for i in range(n):
            order = perms[i]
            rec: dict[str, Any] = {
                "evaluator": eid,
                "question_id": qids[i],
                "order": [students[s] for s in order],
            }
            for k, s in enumerate(order, start=1):
                rec[f"resp_{k}"] = label_text[int(labels[e, i, s])]
            rec["difficulty"] = vocab.DIFFICULTIES[int(difficulty[e, i])]
            judgments.append(rec)
    return judgments
