"""The latent model's parameters (:mod:`medqade.synthetic.parameters`) fit the paper's design
and the default roster: the margins add up, every student, evaluator and physician has its
parameters, the probabilities are probabilities."""

from __future__ import annotations

from medqade import vocab
from medqade.synthetic import parameters as P


def test_the_margins_are_the_papers() -> None:
    assert sum(P.TIER_ITEMS) == 3800 and sum(P.TIER_EXACT) == 760
    assert P.N_CORE == 200 and P.CORE_EXACT == 40
    assert all(e <= n for e, n in zip(P.TIER_EXACT, P.TIER_ITEMS, strict=True))
    assert list(P.TIER_LATENT) == sorted(P.TIER_LATENT)
    for t, latent in enumerate(P.TIER_LATENT, start=1):
        assert vocab.tier_of(latent) == t  # a tier's latent difficulty lies in that tier


def test_every_model_of_the_roster_has_its_parameters() -> None:
    roster = vocab.DEFAULT_ROSTER
    assert tuple(P.STUDENTS) == roster.student_ids
    assert tuple(P.EVALUATORS) == roster.evaluator_ids
    for judge, student in P.FAMILY_BIAS:
        assert judge in P.EVALUATORS and student in P.STUDENTS and judge != student
    for values in (P.PHYS_SHARPNESS, P.PHYS_BIAS, P.PHYS_ABSTAIN_SCALE):
        assert len(values) == len(roster.physicians) == 10


def test_probabilities_lie_in_zero_one() -> None:
    shares = [P.MISSING_RATE, *P.PHYS_ITEM_ABSTAIN, *P.PHYS_ANSWER_ABSTAIN]
    for s in P.STUDENTS.values():
        shares += [s.verbatim, s.vague]
    for e in P.EVALUATORS.values():
        shares += [*e.abstain_by_tier, e.invalid]
        assert e.noise > 0 and 0 <= e.loading <= 1
    assert all(0 <= p < 1 for p in shares)
    assert list(P.PHYS_ITEM_ABSTAIN) == sorted(P.PHYS_ITEM_ABSTAIN)  # rising with the tier
    assert set(P.MERIT) == {"verbatim", "equivalent", "vague", "wrong"}
    means = [P.MERIT[k][0] for k in ("verbatim", "equivalent", "vague", "wrong")]
    assert means == sorted(means, reverse=True)
