"""How close a release lands to the paper's published figures (the calibration table).

``medqade synthesize --check`` prints this table for a freshly built synthetic release; the
tests in ``tests/synthetic/`` recompute every row with independent implementations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.consensus import majority_of_codes
from medqade.release import Release


@dataclass(frozen=True)
class Target:
    quantity: str
    paper: float
    tolerance: float
    value: float

    @property
    def ok(self) -> bool:
        return bool(abs(self.value - self.paper) <= self.tolerance)


def _substantive(codes: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    out = codes.astype(np.int64)
    out[out == vocab.ABSTAIN_CODE] = stats.MISSING
    return out


def physician_kappa_alpha(rel: Release) -> tuple[float, float]:
    core = rel.physician_labels[:, rel.is_core]
    kappas, alphas = [], []
    for s in range(vocab.N_SLOTS):
        x = _substantive(core[:, :, s])
        kappas.append(float(stats.pairwise_panel(x).mean_kappa))
        alphas.append(stats.krippendorff_alpha(x, level="nominal", k=2))
    return float(np.mean(kappas)), float(np.mean(alphas))


def loo_kappa(rel: Release) -> float:
    core = _substantive(rel.physician_labels[:, rel.is_core])
    per_phys = []
    for p in range(core.shape[0]):
        others = np.delete(core, p, axis=0)
        ref = majority_of_codes(others, axis=0).astype(np.int64)
        per_phys.append(np.nanmean([stats.cohen_kappa(core[p, :, s], ref[:, s]) for s in range(5)]))
    return float(np.mean(per_phys))


def evaluator_kappa(rel: Release, evaluator: str) -> float:
    e = rel.roster.evaluator_ids.index(evaluator)
    lab = _substantive(rel.evaluator_labels[e, rel.is_core])
    ref = rel.consensus[rel.is_core].astype(np.int64)
    return float(np.mean([stats.cohen_kappa(lab[:, s], ref[:, s]) for s in range(5)]))


def accuracies(rel: Release) -> dict[str, float]:
    c = rel.consensus
    return {
        m: float((c[:, s] == 1).sum() / (c[:, s] >= 0).sum())
        for s, m in enumerate(rel.roster.student_ids)
    }


def bias(rel: Release, evaluator: str, student: str) -> float:
    """Mean of S(A, r) - out-of-family peer mean over ``student``'s answers (RQ4)."""
    ids = rel.roster.evaluator_ids
    fam = rel.roster.family(evaluator)
    a = ids.index(evaluator)
    s = rel.roster.student_ids.index(student)
    lab = rel.evaluator_labels[:, :, s].astype(float)
    lab[(lab < 0) | (lab == vocab.ABSTAIN_CODE)] = np.nan
    peers = [i for i, e in enumerate(ids) if rel.roster.family(e) != fam]
    peer_mean = np.nanmean(lab[peers], axis=0)
    diff = lab[a] - peer_mean
    return float(np.nanmean(diff))


def initially_unresolved(rel: Release) -> tuple[int, int]:
    """Extension slots unresolved by the primary pair, and how many of those P10 resolved."""
    ext = ~rel.is_core
    adj = rel.roster.physicians.index(rel.roster.adjudicator)
    primary = np.delete(rel.physician_labels[:, ext], adj, axis=0)
    initial = majority_of_codes(primary, axis=0) == vocab.MISSING_CODE
    final = rel.consensus[ext] >= 0
    return int(initial.sum()), int((initial & final).sum())


def physician_abstention_medians(rel: Release) -> tuple[float, float]:
    lab = rel.physician_labels
    out = []
    for t in (1, 4):
        m = rel.tier == t
        x = lab[:, m]
        rated = (x >= 0).sum(axis=(1, 2))
        rates = (x == vocab.ABSTAIN_CODE).sum(axis=(1, 2)) / np.maximum(rated, 1)
        out.append(float(np.median(rates[rated > 0])))
    return out[0], out[1]


def evaluator_abstention(rel: Release, evaluator: str) -> float:
    e = rel.roster.evaluator_ids.index(evaluator)
    x = rel.evaluator_labels[e]
    return float((x == vocab.ABSTAIN_CODE).sum() / x.size)


def difficulty_alpha(rel: Release) -> float:
    d = rel.physician_difficulty[:, rel.is_core].astype(np.int64)
    return stats.krippendorff_alpha(d, level="interval", k=3)


def calibration_table(rel: Release) -> list[Target]:
    kappa, alpha = physician_kappa_alpha(rel)
    acc = accuracies(rel)
    init, resolved = initially_unresolved(rel)
    t1, t4 = physician_abstention_medians(rel)
    rows = [
        Target("physician mean pairwise kappa, core", 0.612, 0.04, kappa),
        Target("physician Krippendorff alpha mean, core", 0.598, 0.04, alpha),
        Target("difficulty alpha (squared distance), core", 0.208, 0.05, difficulty_alpha(rel)),
        Target("student accuracy, lowest", 0.178, 0.03, min(acc.values())),
        Target("student accuracy, highest", 0.660, 0.03, max(acc.values())),
        Target("unresolved slots after adjudication", 374, 40, int((rel.consensus < 0).sum())),
        Target("initially unresolved extension slots", 2770, 150, init),
        Target("resolved by the adjudicator", 2537, 150, resolved),
        Target("LOO physician kappa, core", 0.709, 0.04, loo_kappa(rel)),
        Target(
            "Gemini 3 Flash kappa, core",
            0.694,
            0.04,
            evaluator_kappa(rel, "gemini-3-flash-preview"),
        ),
        Target("Qwen3-4B kappa, core", 0.444, 0.05, evaluator_kappa(rel, "qwen3:4b")),
        Target("Gemma 3 4B kappa, core", 0.327, 0.05, evaluator_kappa(rel, "gemma3:4b")),
        Target("Gemma 3 4B abstention", 0.0641, 0.01, evaluator_abstention(rel, "gemma3:4b")),
        Target("Qwen3-4B abstention", 0.0423, 0.01, evaluator_abstention(rel, "qwen3:4b")),
        Target("physician median abstention T1", 0.0268, 0.015, t1),
        Target("physician median abstention T4", 0.1374, 0.015, t4),
    ]
    for student in rel.roster.student_ids:
        if student in rel.roster.evaluator_ids:
            sign = -1.0 if student == "qwen3:4b" else 1.0
            v = bias(rel, student, student)
            rows.append(Target(f"self bias sign, {student}", sign, 0.0, float(np.sign(v))))
    for (ev, st), sign in {
        ("gemini-3-flash-preview", "gemini-2.5-flash"): 1.0,
        ("gemini-2.5-flash-lite", "gemini-2.5-flash"): -1.0,
        ("gemma3:27b", "gemma3:4b"): 1.0,
        ("gemma3:4b", "gemma3:27b"): 1.0,
        ("gpt-5.4-nano", "gpt-5-nano"): 1.0,
        ("gpt-5.4-mini", "gpt-5-nano"): 1.0,
    }.items():
        rows.append(
            Target(f"family bias sign, {ev} on {st}", sign, 0.0, float(np.sign(bias(rel, ev, st))))
        )
    return rows


def format_table(rows: list[Target]) -> str:
    """A plain-text table: quantity, the paper's figure, this release's value, tolerance, ok."""
    width = max([len("quantity"), *(len(r.quantity) for r in rows)])
    lines = [f"{'quantity':{width}} {'paper':>8} {'value':>8} {'tol':>6}  ok"]
    for r in rows:
        lines.append(
            f"{r.quantity:{width}} {r.paper:8.4g} {r.value:8.4g} {r.tolerance:6.3g}  "
            + ("yes" if r.ok else "NO")
        )
    return "\n".join(lines)
