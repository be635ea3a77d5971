"""Agreement and reliability statistics in pure numpy, with batched bootstrap support.

Conventions shared by every function:

- Ratings are integer category codes ``0..k-1``; `MISSING` (-1) marks a missing rating
  (abstentions are converted to it by the caller). Panels have shape ``(raters, units)``, a
  single rater ``(units,)``.
- ``weights`` of shape ``(R, units)`` are bootstrap count weights (`resample_weights`): with them
  a statistic returns its ``R`` replicates along a leading axis, computed as matrix products in
  batches, without a Python loop over replicates.
- Undefined values are NaN; empty input raises ``ValueError``; randomness only comes from an
  explicit ``numpy.random.Generator``.
"""

from ._validation import MISSING
from .agreement import cohen_kappa, confusion_counts, pabak, percent_agreement
from .bootstrap import bootstrap_indices, resample_weights, stratified_bootstrap_indices
from .fleiss import fleiss_kappa, fleiss_kappa_from_counts, gwet_ac1
from .icc import IntraclassCorrelations, intraclass_correlations
from .intervals import ConfidenceInterval, percentile_ci, wilson_interval
from .krippendorff import krippendorff_alpha
from .panels import PairAgreement, PanelAgreement, compare_to_reference, pairwise_panel
from .significance import benjamini_yekutieli, few_units_factor, t_test_greater

__all__ = [
    "MISSING",
    "ConfidenceInterval",
    "IntraclassCorrelations",
    "PairAgreement",
    "PanelAgreement",
    "benjamini_yekutieli",
    "bootstrap_indices",
    "cohen_kappa",
    "compare_to_reference",
    "confusion_counts",
    "few_units_factor",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "gwet_ac1",
    "intraclass_correlations",
    "krippendorff_alpha",
    "pabak",
    "pairwise_panel",
    "percent_agreement",
    "percentile_ci",
    "resample_weights",
    "stratified_bootstrap_indices",
    "t_test_greater",
    "wilson_interval",
]
