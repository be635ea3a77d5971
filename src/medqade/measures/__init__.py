"""What MedQADE measures, between the statistics (:mod:`medqade.stats`) and their two users.

:mod:`medqade.analyses` (the paper's tables) and :mod:`medqade.scoring` (submissions) both
compute their numbers here and never import each other:

- :mod:`~.seeds`: the one bootstrap seed and its named streams; question count weights;
- :mod:`~.estimate`: :class:`Estimate`, a value with its interval and replicates;
- :mod:`~.agreement`: agreement with a reference per slot and macro (abstentions dropped or
  counted as disagreements), item groups, several labellers at once, ensemble votes;
- :mod:`~.slots`: label codes, means over slots, :class:`Agreement` and its 2x2 counts;
- :mod:`~.physician_reference`: the leave-one-out physician reference, each labeller against
  its own reference;
- :mod:`~.bias`: self and family bias terms;
- :mod:`~.paired`: paired differences, the verdict words read from an interval and a margin;
- :mod:`~.in_place`: the judge in each physician's place, with intervals over questions and
  physicians;
- :mod:`~.verdicts`: the one verdict of a judge from its core and extension differences, by
  one stated rule (every surface reads it);
- :mod:`~.ranking`: rank intervals from simultaneous paired intervals (studentized max-T
  bootstrap) and what a board can resolve; :mod:`~.max_t`: its critical value and pair errors;
- :mod:`~.aat`: the alternative annotator test of a judge against the physician panel;
- :mod:`~.panel`: Fleiss' kappa, Gwet's AC1 and the difficulty ICC of the whole panel;
- :mod:`~.fidelity`: whether a judge ranks the student models as the physicians do, and
  :mod:`~.pool_ranking` the same on the whole item pool (against the PPI estimate of
  :mod:`~.pool`);
  :mod:`~.length_bias`: its Richtig rate and agreement by answer length beside the
  physicians'; :mod:`~.output_shares`: its outputs as labels, abstentions, unparseable
  replies or nothing;
- :mod:`~.agreement_cells`: a judge's kappa per specialty and difficulty tier in each
  physician's place, beside the physicians' own (where it fails);
- :mod:`~.cost`: tokens and euros per 1,000 answers, and the judges on the cost-agreement
  Pareto frontier (:func:`pareto_frontier`);
- :mod:`~.contamination`: a judge's agreement on public vs held-out items beside the
  physicians', and the ``contamination`` flag (a stratified permutation test).
- :mod:`~.reproduction`: a judge asked again on a sample of its record's questions, its
  agreement with the stored labels and whether that reproduces them (``medqade verify``).

Significance, "undefined" and verdicts are decided here on unrounded values. (The function
``agreement`` lives in :mod:`~.agreement`; the package name ``agreement`` is that module.)
"""

from medqade.measures.aat import EPSILON, MEANING, PASS_RATE, AltTest, alt_test
from medqade.measures.agreement_cells import (
    MIN_CELL_QUESTIONS,
    AgreementCell,
    CellPhysicians,
    CellTable,
    cell_agreement,
    cell_physicians,
)
from medqade.measures.answer_length import length_bias
from medqade.measures.bias import (
    FAMILY,
    SELF,
    Bias,
    Target,
    bias_replicates,
    bias_targets,
    bias_terms,
    biases,
    substantive_scores,
)
from medqade.measures.breakdown import LEXICAL, TIER, breakdowns, dimensions
from medqade.measures.caution import MIN_TIER_QUESTIONS
from medqade.measures.cost import Cost, pareto_frontier, price_note
from medqade.measures.estimate import Estimate, FloatArray, pabak_of, proportion, ratio
from medqade.measures.fidelity import RankingFidelity, ranking_fidelity
from medqade.measures.holdout_drop import ALPHA as CONTAMINATION_ALPHA
from medqade.measures.holdout_drop import FLAG as CONTAMINATION
from medqade.measures.holdout_drop import SPLITS as CONTAMINATION_SPLITS
from medqade.measures.holdout_drop import (
    Contamination,
    PhysicianSide,
    combined_p,
    contamination,
    holdout_strata,
    permuted_splits,
    physician_side,
)
from medqade.measures.in_place import InPlace, judge_in_place, physicians_in_place
from medqade.measures.judge_behaviour import behaviour
from medqade.measures.judge_outputs import output_shares
from medqade.measures.paired import (
    ABOVE,
    BELOW,
    DEFAULT_MARGIN,
    INCONCLUSIVE,
    INFERIOR,
    NON_INFERIOR,
    NON_INFERIOR_BELOW,
    PRIMARY,
    VERDICTS,
    check_margin,
    difference,
    verdict,
    verdict_of_bounds,
)
from medqade.measures.panel import difficulty_icc, panel_slots
from medqade.measures.physician_reference import PerRater, leave_one_out, quiet_leave_one_out
from medqade.measures.pool import StudentPoolEstimate, estimate_pool
from medqade.measures.pool_ranking import (
    PoolFidelity,
    StudentPoolFidelity,
    pool_fidelity,
    pool_resamples,
)
from medqade.measures.position import (
    N_POSITIONS,
    PERMUTATIONS,
    PositionBias,
    position_bias,
    release_positions,
)
from medqade.measures.ranking import PairTest, RankedBoard, Ranker, RankInterval, Resolution, ranks
from medqade.measures.rater_report import PanelReport, panel_report
from medqade.measures.reference_agreement import (
    agreement,
    ensemble_vote,
    grouped_agreement,
    grouped_leave_one_out,
    macro_agreement,
)
from medqade.measures.reproduction import (
    REFERENCE_PA,
    SAMPLE_QUESTIONS,
    Reproduction,
    reproduces,
    rerun_agreement,
)
from medqade.measures.reproduction import sample as verification_sample
from medqade.measures.seeds import (
    BOOTSTRAP_SEED,
    STREAM_ALL,
    STREAM_BIAS,
    STREAM_CORE,
    STREAM_LEXICAL,
    STREAM_POOL,
    STREAM_TIER,
    Weights,
    check_seed,
    generator,
    physician_weights,
    question_weights,
)
from medqade.measures.slots import METRICS, Agreement, SlotAgreement, substantive
from medqade.measures.verdicts import (
    CORE_ABOVE_EXTENSION,
    RULE,
    VERDICT_METRIC,
    Design,
    ExtensionPairs,
    Headline,
    extension_pairs,
    judge_headline,
    withhold_verdict,
)

__all__ = [
    "ABOVE",
    "BELOW",
    "BOOTSTRAP_SEED",
    "CONTAMINATION",
    "CONTAMINATION_ALPHA",
    "CONTAMINATION_SPLITS",
    "CORE_ABOVE_EXTENSION",
    "DEFAULT_MARGIN",
    "EPSILON",
    "FAMILY",
    "INCONCLUSIVE",
    "INFERIOR",
    "LEXICAL",
    "MEANING",
    "METRICS",
    "MIN_CELL_QUESTIONS",
    "MIN_TIER_QUESTIONS",
    "NON_INFERIOR",
    "NON_INFERIOR_BELOW",
    "N_POSITIONS",
    "PASS_RATE",
    "PERMUTATIONS",
    "PRIMARY",
    "REFERENCE_PA",
    "RULE",
    "SAMPLE_QUESTIONS",
    "SELF",
    "STREAM_ALL",
    "STREAM_BIAS",
    "STREAM_CORE",
    "STREAM_LEXICAL",
    "STREAM_POOL",
    "STREAM_TIER",
    "TIER",
    "VERDICTS",
    "VERDICT_METRIC",
    "Agreement",
    "AgreementCell",
    "AltTest",
    "Bias",
    "CellPhysicians",
    "CellTable",
    "Contamination",
    "Cost",
    "Design",
    "Estimate",
    "ExtensionPairs",
    "FloatArray",
    "Headline",
    "InPlace",
    "PairTest",
    "PanelReport",
    "PerRater",
    "PhysicianSide",
    "PoolFidelity",
    "PositionBias",
    "RankInterval",
    "RankedBoard",
    "Ranker",
    "RankingFidelity",
    "Reproduction",
    "Resolution",
    "SlotAgreement",
    "StudentPoolEstimate",
    "StudentPoolFidelity",
    "Target",
    "Weights",
    "agreement",
    "alt_test",
    "behaviour",
    "bias_replicates",
    "bias_targets",
    "bias_terms",
    "biases",
    "breakdowns",
    "cell_agreement",
    "cell_physicians",
    "check_margin",
    "check_seed",
    "combined_p",
    "contamination",
    "difference",
    "difficulty_icc",
    "dimensions",
    "ensemble_vote",
    "estimate_pool",
    "extension_pairs",
    "generator",
    "grouped_agreement",
    "grouped_leave_one_out",
    "holdout_strata",
    "judge_headline",
    "judge_in_place",
    "leave_one_out",
    "length_bias",
    "macro_agreement",
    "output_shares",
    "pabak_of",
    "panel_report",
    "panel_slots",
    "pareto_frontier",
    "permuted_splits",
    "physician_side",
    "physician_weights",
    "physicians_in_place",
    "pool_fidelity",
    "pool_resamples",
    "position_bias",
    "price_note",
    "proportion",
    "question_weights",
    "quiet_leave_one_out",
    "ranking_fidelity",
    "ranks",
    "ratio",
    "release_positions",
    "reproduces",
    "rerun_agreement",
    "substantive",
    "substantive_scores",
    "verdict",
    "verdict_of_bounds",
    "verification_sample",
    "withhold_verdict",
]
