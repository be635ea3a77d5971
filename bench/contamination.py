"""Detection of a copied public consensus by the contamination check (issue 35).

Usage: python bench/contamination.py [--seeds K] [--hold-out N ...] [--resamples R]
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
honest judge). The check (:func:`medqade.measures.contamination.contamination`) runs twice:
on the core items alone (where the copying happens and every physician rated every answer)
and on all items, each with ``R`` question resamples (seed ``BOOTSTRAP_SEED + s``).

Printed per (hold-out, scope, share): the share of (judge, seed) runs flagged ``contamination``
(the one-sided 95% lower bound of the excess drop above 0), with its Monte-Carlo standard
error, the mean excess and the mean number of answers changed. Share 0 is the false-positive
rate on the nine honest paper judges (nominal at most 5%).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from medqade.dataset.holdout import HoldOut, choose
from medqade.dataset.release import Release, load_release
from medqade.dataset.sources import default_build
from medqade.measures.contamination import contamination, physician_side
from medqade.measures.seeds import BOOTSTRAP_SEED, question_weights

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


Rows = dict[tuple[str, int], list[tuple[bool, float, int]]]


def run(release: Release, n: int, seeds: int, shares: list[int], judges: list[str], r: int) -> Rows:
    """Per (scope, share): (flagged, excess, answers changed) of every (seed, judge) run."""
    rows: Rows = {(scope, s): [] for scope in SCOPES for s in shares}
    slots = release.roster.student_ids
    for seed in range(seeds):
        held = choose(release.questions, HoldOut(n, seed))
        public_core = release.is_core & ~held
        for scope in SCOPES:
            items = release.is_core if scope == "core" else np.ones(release.n_items, bool)
            w = question_weights(int(items.sum()), r, seed=BOOTSTRAP_SEED + seed)
            cons, phys = release.consensus[items], release.physician_labels[:, items]
            side = physician_side(phys, cons, held[items], slots, w)
            for judge in judges:
                base = release.evaluator_labels[release.roster.evaluator_ids.index(judge)]
                for share in shares:
                    k = round(share / 100 * CORE_ANSWERS)
                    lab, changed = copied(base, release.consensus, public_core, k, seed)
                    found = contamination(
                        lab[items], phys, cons, held[items], slots, w, physicians=side
                    )
                    rows[scope, share].append((found.contamination, found.excess.value, changed))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--hold-out", type=int, nargs="+", default=[380, 760, 1140])
    p.add_argument("--resamples", type=int, default=500)
    p.add_argument("--shares", default="0,5,10,25,50")
    p.add_argument("--judges", default="all")
    args = p.parse_args()
    shares = [int(x) for x in args.shares.split(",")]
    started = time.perf_counter()
    release = load_release(default_build(print))
    judges = list(release.roster.evaluator_ids) if args.judges == "all" else args.judges.split(",")
    print(
        f"synthetic release: {release.n_items} items ({int(release.is_core.sum())} core), "
        f"{len(judges)} judges, {args.seeds} seeds, {args.resamples} resamples"
    )
    print("hold-out  scope  share  flagged  (MC s.e.)  mean excess  answers changed")
    for n in args.hold_out:
        rows = run(release, n, args.seeds, shares, judges, args.resamples)
        for (scope, share), found in rows.items():
            flags = np.array([f for f, _, _ in found], dtype=float)
            rate = flags.mean()
            se = math.sqrt(rate * (1 - rate) / len(flags))
            excess = np.nanmean([x for _, x, _ in found])
            changed = np.mean([c for _, _, c in found])
            print(
                f"{n:>8}  {scope:>5}  {share:>4}%  {rate:>7.1%}  ({se:.1%})    {excess:+.4f}"
                f"     {changed:>6.1f}"
            )
    print(f"time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
