"""Detection of a copied public consensus by the contamination check (issue 35).

Usage: python bench/contamination.py [--seeds K] [--hold-out N ...] [--splits B]
       [--shares 0,5,10,25,50] [--judges all|ID,ID]

On the synthetic default release (seed 6, built once into the cache), for each hold-out size
``N`` and each seed ``s`` in ``0..K-1``: the held-out items are the ones ``medqade build
--hold-out N --hold-out-seed s`` withholds (:func:`medqade.dataset.holdout.choose` on the
built questions; the build itself is checked to give the same labels back with its private
part in tests/dataset/test_holdout.py). Each paper judge's labels are then *contaminated*: on
``share`` x 1,000 of its core answers (5% = 50 answers) the label is replaced by the published
consensus. The attacker can only copy what is published, and gains most by copying where the
judge disagrees, so the answers are the public core answers whose judge label differs from a
resolved consensus, in a seeded random order (all of them when there are fewer; share 0 is the
honest judge). The check (:func:`medqade.measures.holdout_drop.contamination`) runs twice,
on the core items alone (where the copying happens and every physician rated every answer)
and on all items, each a permutation test with ``B`` re-draws of the held-out set within its
strata (:func:`~medqade.measures.holdout_drop.permuted_splits`, seed ``BOOTSTRAP_SEED + s``);
a judge record is flagged when either p value is at most 0.025 (Bonferroni over the two
scopes, :func:`medqade.measures.holdout_drop.combined_p`), the row ``either``.

Printed per (hold-out, scope, share): the share of (judge, seed) runs flagged (for ``core``
and ``all`` at p <= 0.05, each scope alone), with its Monte-Carlo standard error, the mean
excess and the mean number of answers changed. The nine judges of one seed share its held-out
set, so the standard error treats the seeds as the independent units (the standard deviation
of the per-seed flag share over seeds / sqrt(K)). Share 0 is the false-positive rate on the
nine honest paper judges (nominal at most 5%).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from medqade.dataset.holdout import HoldOut, choose
from medqade.dataset.release import Release, load_release
from medqade.dataset.sources import default_build
from medqade.measures import BOOTSTRAP_SEED
from medqade.measures.holdout_drop import (
    ALPHA,
    combined_p,
    contamination,
    holdout_strata,
    permuted_splits,
    physician_side,
)

CORE_ANSWERS = 1000


def copied(
    labels: np.ndarray, consensus: np.ndarray, public_core: np.ndarray, k: int, seed: int
) -> tuple[np.ndarray, int]:
    """``labels`` with the consensus copied onto ``k`` public core answers where the judge
    disagrees with a resolved consensus (seeded order); also how many labels changed."""
    out = labels.copy()
    wrong = public_core[:, None] & (consensus >= 0) & (labels != consensus)
    where = np.flatnonzero(wrong.ravel())
    pick = np.random.default_rng([seed, 35]).permutation(where)[:k]
    out.ravel()[pick] = consensus.ravel()[pick]
    return out, len(pick)


SCOPES = ("core", "all")


Rows = dict[tuple[str, int], list[tuple[int, float, float, int]]]


def run(release: Release, n: int, seeds: int, shares: list[int], judges: list[str], b: int) -> Rows:
    """Per (scope, share): (seed, p value, excess, answers changed) of every (seed, judge) run."""
    rows: Rows = {(scope, s): [] for scope in SCOPES for s in shares}
    slots = release.roster.student_ids
    strata = holdout_strata(release.is_core, release.tier)
    for seed in range(seeds):
        held = choose(release.questions, HoldOut(n, seed))
        public_core = release.is_core & ~held
        for scope in SCOPES:
            items = release.is_core if scope == "core" else np.ones(release.n_items, bool)
            splits = permuted_splits(held[items], strata[items], b, seed=BOOTSTRAP_SEED + seed)
            cons, phys = release.consensus[items], release.physician_labels[:, items]
            side = physician_side(phys, cons, held[items], slots, None, splits)
            for judge in judges:
                base = release.evaluator_labels[release.roster.evaluator_ids.index(judge)]
                for share in shares:
                    k = round(share / 100 * CORE_ANSWERS)
                    lab, changed = copied(base, release.consensus, public_core, k, seed)
                    found = contamination(
                        lab[items], phys, cons, held[items], slots, physicians=side, splits=splits
                    )
                    rows[scope, share].append((seed, found.p_value, found.excess.value, changed))
    return rows


def either(rows: Rows, shares: list[int]) -> Rows:
    """The record's flag: the smaller p value of the two scopes, doubled (Bonferroni)."""
    return {
        ("either", s): [
            (seed, combined_p((pc, pa)), xc, ch)
            for (seed, pc, xc, ch), (_, pa, _, _) in zip(
                rows["core", s], rows["all", s], strict=True
            )
        ]
        for s in shares
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--hold-out", type=int, nargs="+", default=[380, 760, 1140])
    p.add_argument("--splits", type=int, default=200)
    p.add_argument("--shares", default="0,5,10,25,50")
    p.add_argument("--judges", default="all")
    args = p.parse_args()
    shares = [int(x) for x in args.shares.split(",")]
    started = time.perf_counter()
    release = load_release(default_build(print, hold_out=None))  # every label: holds out below
    judges = list(release.roster.evaluator_ids) if args.judges == "all" else args.judges.split(",")
    print(
        f"synthetic release: {release.n_items} items ({int(release.is_core.sum())} core), "
        f"{len(judges)} judges, {args.seeds} seeds, {args.splits} re-draws per test"
    )
    print("hold-out  scope  share  flagged  (MC s.e.)  mean excess  answers changed")
    for n in args.hold_out:
        rows = run(release, n, args.seeds, shares, judges, args.splits)
        for (scope, share), found in (rows | either(rows, shares)).items():
            seed_of = np.array([s for s, _, _, _ in found])
            flags = np.array([p <= ALPHA for _, p, _, _ in found], dtype=float)
            rate = flags.mean()
            per_seed = np.array([flags[seed_of == s].mean() for s in np.unique(seed_of)])
            se = per_seed.std(ddof=1) / math.sqrt(len(per_seed)) if len(per_seed) > 1 else 0.0
            excess = np.nanmean([x for _, _, x, _ in found])
            changed = np.mean([c for _, _, _, c in found])
            print(
                f"{n:>8}  {scope:>5}  {share:>4}%  {rate:>7.1%}  ({se:.1%})    {excess:+.4f}"
                f"     {changed:>6.1f}"
            )
    print(f"time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
