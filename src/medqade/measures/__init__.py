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
- :mod:`~.fidelity`: whether a judge ranks the student models as the physicians do;
  :mod:`~.length_bias`: its Richtig rate and agreement by answer length beside the
  physicians'; :mod:`~.output_shares`: its outputs as labels, abstentions, unparseable
  replies or nothing;
- :mod:`~.contamination`: a judge's agreement on public vs held-out items beside the
  physicians', and the ``contamination`` flag.

Significance, "undefined" and verdicts are decided here on unrounded values. (The function
``agreement`` lives in :mod:`~.agreement`; the package name ``agreement`` is that module.)
"""

from medqade.measures.agreement import (
    ensemble_vote,
    grouped_agreement,
    grouped_leave_one_out,
    macro_agreement,
)
from medqade.measures.estimate import Estimate, pabak_of
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
    difference,
    verdict,
    verdict_of_bounds,
)
from medqade.measures.physician_reference import leave_one_out
from medqade.measures.ranking import RankedBoard, Ranker, RankInterval, Resolution, ranks
from medqade.measures.seeds import BOOTSTRAP_SEED, generator, question_weights
from medqade.measures.slots import METRICS, Agreement, SlotAgreement, substantive

__all__ = [
    "ABOVE",
    "BELOW",
    "BOOTSTRAP_SEED",
    "DEFAULT_MARGIN",
    "INCONCLUSIVE",
    "INFERIOR",
    "METRICS",
    "NON_INFERIOR",
    "NON_INFERIOR_BELOW",
    "PRIMARY",
    "VERDICTS",
    "Agreement",
    "Estimate",
    "RankInterval",
    "RankedBoard",
    "Ranker",
    "Resolution",
    "SlotAgreement",
    "difference",
    "ensemble_vote",
    "generator",
    "grouped_agreement",
    "grouped_leave_one_out",
    "leave_one_out",
    "macro_agreement",
    "pabak_of",
    "question_weights",
    "ranks",
    "substantive",
    "verdict",
    "verdict_of_bounds",
]
