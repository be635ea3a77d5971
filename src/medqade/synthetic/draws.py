"""The draws of the synthetic release's latent model (:mod:`medqade.synthetic.simulate`): the
items' strata and facts, the answers and their merit, the physicians' labels and difficulty
ratings, and the evaluators' labels. Each takes the one generator of the run, so the order of
the calls fixes every number.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.synthetic.facts import Fact
from medqade.synthetic.parameters import (
    ADJUDICATOR_ABSTAIN_SCALE,
    CORE_EXACT,
    DIFF_SIGMA,
    EVALUATORS,
    EXTENSION_SHARPNESS,
    FAMILY_BIAS,
    LLM_SHARED_NOISE,
    MERIT,
    MERIT_SHRINK,
    MISSING_RATE,
    N_CORE,
    PHYS_ABSTAIN_SCALE,
    PHYS_ANSWER_ABSTAIN,
    PHYS_BIAS,
    PHYS_ITEM_ABSTAIN,
    PHYS_SHARPNESS,
    STUDENTS,
    TIER_EXACT,
    TIER_ITEMS,
    WEAK_SHARED_NOISE,
)

FloatArray = npt.NDArray[np.float64]


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


def assign_strata(
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


def choose_items(
    facts: tuple[Fact, ...], n: int, rng: np.random.Generator
) -> list[tuple[Fact, str]]:
    """``n`` distinct (fact, phrasing) pairs, at most five phrasings of a fact."""
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


def extension_pairs(n_ext: int) -> npt.NDArray[np.int64]:
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
    pairs = extension_pairs(len(ext_idx))
    assigned[pairs[:, 0], ext_idx] = True
    assigned[pairs[:, 1], ext_idx] = True
    primary = np.where(assigned[:, :, None], labels, vocab.MISSING_CODE).astype(np.int8)
    r = (primary == vocab.RICHTIG_CODE).sum(axis=0)
    f = (primary == vocab.FALSCH_CODE).sum(axis=0)
    adjudicate = (~core) & (r == f).any(axis=1)
    primary[9, adjudicate] = labels[9, adjudicate]
    return primary, labels, adjudicate


def draw_difficulty(
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
