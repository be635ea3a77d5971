"""The result record as frozen dataclasses: :class:`ScoreRecord` and its sections.

JSON only at the edges: :meth:`ScoreRecord.from_json` reads a stored or freshly scored record
(the object of :func:`medqade.scoring.score`, or a file of the results folder), and
:meth:`ScoreRecord.to_json` gives the object back for writing. Inside, code reads typed fields
(``record.dataset.hash``, ``record.core.kappa``, ``record.meta.name``) instead of string keys.

**Byte-identical.** A record read and written back is the same JSON, so its bytes and its id
(:func:`medqade.scoring.metrics.records.record_id`, a hash of the canonical JSON) never change (the
round trip of :class:`~medqade.scoring.record.json_object.JsonObject`). Values a section does not
type (per-model slots, confusion tables, ...) are kept as the JSON values they are.

**Adding a section.** A new optional part is one field,
``name: Cls | None = field(default=None, metadata=nested(Cls))`` for a :class:`JsonObject`
subclass (or :func:`convert` with a reader and a writer); records without it read it as
``None`` and write it back without the key. ``behaviour`` is declared so, untyped (its JSON
value) until its producer gives it a class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from medqade.scoring.record.holdout_sections import ContaminationCheck
from medqade.scoring.record.json_object import PAIR, TUPLE, JsonObject, convert, nested
from medqade.scoring.record.use_sections import (
    AgreementCells,
    LengthBias,
    OutputShares,
    RankingFidelity,
)

METRICS: Final = ("kappa", "pa", "pabak")
"""The agreement metrics a judge block and a difference hold."""


# --- the envelope every record has ---------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RecordMeta(JsonObject):
    """``meta``: the submitter's fields (:mod:`medqade.scoring.intake.meta`) and the project's
    ``source`` and ``verified``."""

    name: str | None = None
    model_id: str | None = None
    revision: str | None = None
    family: str | None = None
    organisation: str | None = None
    link: str | None = None
    prompt: str | None = None
    prompt_sha256: str | None = None
    decoding: Any = None
    notes: str | None = None
    judge: Mapping[str, Any] | None = None
    usage: Mapping[str, Any] | None = None
    """Token use of the run, as submitted (:mod:`medqade.scoring.intake.meta`)."""
    source: str | None = None
    verified: bool | None = None


@dataclass(frozen=True, kw_only=True)
class DatasetRef(JsonObject):
    """``dataset``: the release a record was scored on (``hash``: its data hash)."""

    hash: str | None = None
    synthetic: bool | None = None
    version: str | None = None
    items: int | None = None
    core_items: int | None = None


@dataclass(frozen=True, kw_only=True)
class RecordSettings(JsonObject):
    """``settings``: how the record was scored."""

    resamples: int | None = None
    seed: int | None = None
    confidence: float | None = None
    margin: float | None = None
    normalisation: str | None = None


@dataclass(frozen=True, kw_only=True)
class SubmissionInfo(JsonObject):
    """``submission``: what was submitted (content hash, format, rows, scope, coverage)."""

    content_hash: str | None = None
    format: str | None = None
    rows: int | None = None
    scope: str | None = None
    coverage: Mapping[str, Any] | None = None
    labels_hash: str | None = None
    """The hash of the judge labels beside model answers (answers records)."""
    duplicate_of: str | None = None
    duplicate_of_agreement: float | None = None
    near_duplicate_of: str | None = None
    near_duplicate_of_agreement: float | None = None
    """A reference row the submission copies (:mod:`medqade.scoring.metrics.duplicates`)."""


@dataclass(frozen=True, kw_only=True)
class SpaceEntry(JsonObject):
    """``space``: how a results folder stored the record (a keyed account hash, never a
    name; the duplicate key; the stored upload names and their bytes' hashes)."""

    account: str | None = None
    account_scheme: str | None = None
    submitted_at: str | None = None
    key: str | None = None
    uploads: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    upload_sha256: Mapping[str, Any] | None = None
    """The SHA-256 of each stored upload's bytes, by stored name (records stored since issue
    38): ``rescore`` refuses an upload changed after it was stored."""


# --- judge sections ----------------------------------------------------------------------


class ByMetric:
    """Read a section's ``kappa`` / ``pa`` / ``pabak`` and their CIs by the metric's name."""

    def value(self, metric: str) -> Any:
        """The point estimate of ``metric`` (one of :data:`METRICS`)."""
        return getattr(self, _metric(metric))

    def ci(self, metric: str) -> tuple[Any, ...] | None:
        """The 95% CI of ``metric`` as ``(low, high)`` (``None`` when not kept)."""
        ci: tuple[Any, ...] | None = getattr(self, f"{_metric(metric)}_ci")
        return ci


@dataclass(frozen=True, kw_only=True)
class Agreement(JsonObject, ByMetric):
    """``core`` / ``full`` (and ``rated`` inside them, ``physician_reference``): agreement
    with the physician consensus, each with its 95% CI (``None`` without the bootstrap)."""

    kappa: float | None = None
    kappa_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    pa: float | None = None
    pa_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    pabak: float | None = None
    pabak_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    n: int | None = None
    n_items: int | None = None
    coverage: float | None = None
    abstention: float | None = None
    rated: Agreement | None = field(
        default=None, metadata=convert(lambda v: Agreement.from_json(v), lambda v: v.to_json())
    )  # the paper's agreement when rated (abstentions dropped), nested
    slots: Mapping[str, Any] | None = None
    """Per answer slot (student model) agreement, kept as its JSON (``core`` only)."""


@dataclass(frozen=True, kw_only=True)
class GivenPanel(JsonObject):
    """``given_panel`` inside a difference: kappa's interval with the physicians held fixed
    (questions resampled only), a secondary number."""

    method: str | None = None
    kappa: float | None = None
    kappa_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)


@dataclass(frozen=True, kw_only=True)
class Difference(JsonObject, ByMetric):
    """``physician_difference`` / ``extension_difference``: one design's like-for-like
    difference judge minus the physicians it replaces, per metric, with the two-way interval
    (questions and physicians); evidence under the headline verdict, no verdict of its own."""

    primary: str | None = None
    inference: str | None = None
    kappa: float | None = None
    kappa_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    pa: float | None = None
    pa_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    pabak: float | None = None
    pabak_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    given_panel: GivenPanel | None = field(default=None, metadata=nested(GivenPanel))
    judge_in_place: Agreement | None = field(default=None, metadata=nested(Agreement))
    """The judge's own agreement in the physicians' places (not its agreement with the
    consensus)."""
    physicians: Agreement | None = field(default=None, metadata=nested(Agreement))
    """The physicians' own agreement in the same places."""
    n_physicians: int | None = None
    n_items: int | None = None
    rated: Mapping[str, Any] | None = None
    """The core difference with the judge's abstentions dropped (secondary), as its JSON."""


@dataclass(frozen=True, kw_only=True)
class Consistency(JsonObject):
    """``consistency`` inside ``headline``: core ``d`` minus extension ``d`` (two-way)."""

    method: str | None = None
    kappa: float | None = None
    kappa_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)


@dataclass(frozen=True, kw_only=True)
class Headline(JsonObject):
    """``headline``: the ``d`` the one verdict is decided on (kappa), by the stated rule
    (:mod:`medqade.measures.verdicts`), the design(s) it came from and the consistency check."""

    rule: str | None = None
    metric: str | None = None
    margin: float | None = None
    decided_on: str | None = None
    kappa: float | None = None
    kappa_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    consistency: Consistency | None = field(default=None, metadata=nested(Consistency))
    flags: tuple[str, ...] | None = field(default=None, metadata=TUPLE)


@dataclass(frozen=True, kw_only=True)
class AltTestByQuestion(JsonObject):
    """``alt_test.by_question``: the question-clustered variant, a robustness result."""

    unit: str | None = None
    omega: float | None = None
    rho: float | None = None
    passed: bool | None = None
    n_items: int | None = None


@dataclass(frozen=True, kw_only=True)
class AltTest(JsonObject):
    """``alt_test``: the alternative annotator test (:mod:`medqade.measures.aat`), evidence
    beside the verdict. A record scored before ``unit`` existed has no ``omega`` and ``rho``:
    its ``winning_rate`` is the question-clustered test's."""

    unit: str | None = None
    epsilon: float | None = None
    epsilon_reason: str | None = None
    q: float | None = None
    omega: float | None = None
    winning_rate: float | None = None
    rho: float | None = None
    passed: bool | None = None
    meaning: str | None = None
    n_items: int | None = None
    by_question: AltTestByQuestion | None = field(default=None, metadata=nested(AltTestByQuestion))


# --- answer sections ---------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Judged(JsonObject):
    """``judged`` inside an accuracy block: the accuracy with a judge's labels of the answers
    no physician labelled."""

    estimate: float | None = None
    ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    n: int | None = None
    n_judged: int | None = None
    n_judged_richtig: int | None = None
    n_unjudged: int | None = None


@dataclass(frozen=True, kw_only=True)
class JudgeRef(JsonObject):
    """``judge`` of an answers record: the judge that labelled unmatched answers."""

    name: str | None = None
    model_id: str | None = None
    family: str | None = None
    core_kappa: float | None = None
    core_kappa_source: str | None = None
    """``release`` (a reference evaluator), ``submitted`` or ``None`` (unknown)."""
    same_family: bool | None = None
    agreement_on_anchored: Mapping[str, Any] | None = None
    """The judge's PA, kappa and n against the physician anchors, as its JSON."""


@dataclass(frozen=True, kw_only=True)
class Accuracy(JsonObject):
    """``accuracy`` / ``accuracy_core``: a model's anchored accuracy with its CI and bounds."""

    anchored: float | None = None
    ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    lower: float | None = None
    upper: float | None = None
    coverage: float | None = None
    pooled_anchors: int | None = None
    n_anchored: int | None = None
    lower_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    upper_ci: tuple[float | None, ...] | None = field(default=None, metadata=PAIR)
    judged: Judged | None = field(default=None, metadata=nested(Judged))
    n_answered: int | None = None
    own_anchors: int | None = None
    n_correct: int | None = None
    n_anchored_unresolved: int | None = None
    n_unmatched: int | None = None
    n_items: int | None = None
    by_tier: Any = None
    """Accuracy blocks per difficulty tier (a JSON array, T1 first), kept as their JSON."""
    by_lexical: Mapping[str, Any] | None = None
    """Accuracy blocks per lexical stratum, kept as their JSON."""


@dataclass(frozen=True, kw_only=True)
class ScoreRecord(JsonObject):
    """One result record (:mod:`medqade.scoring.metrics.records` for the shape)."""

    schema_version: int | None = None
    id: str | None = None
    timestamp: str | None = None
    kind: str | None = None
    scorer_version: str | None = None
    meta: RecordMeta | None = field(default=None, metadata=nested(RecordMeta))
    dataset: DatasetRef | None = field(default=None, metadata=nested(DatasetRef))
    settings: RecordSettings | None = field(default=None, metadata=nested(RecordSettings))
    flags: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    warnings: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    submission: SubmissionInfo | None = field(default=None, metadata=nested(SubmissionInfo))
    # judge
    core: Agreement | None = field(default=None, metadata=nested(Agreement))
    full: Agreement | None = field(default=None, metadata=nested(Agreement))
    physician_reference: Agreement | None = field(default=None, metadata=nested(Agreement))
    physician_difference: Difference | None = field(default=None, metadata=nested(Difference))
    extension_difference: Difference | None = field(default=None, metadata=nested(Difference))
    verdict: str | None = None
    """The one verdict word (:mod:`medqade.measures.verdicts`), at the record's margin."""
    headline: Headline | None = field(default=None, metadata=nested(Headline))
    alt_test: AltTest | None = field(default=None, metadata=nested(AltTest))
    abstention: Mapping[str, Any] | None = None
    bias: Mapping[str, Any] | None = None
    disagreements: Mapping[str, Any] | None = None
    replicates: Mapping[str, Any] | None = None
    """Bootstrap replicates (:mod:`medqade.scoring.record.replicates`), kept as their JSON."""
    by_tier: Mapping[str, Any] | None = None
    """Agreement blocks per difficulty tier (keyed by tier), kept as their JSON."""
    by_lexical: Mapping[str, Any] | None = None
    """Agreement blocks per lexical stratum, kept as their JSON."""
    confusion: Mapping[str, Any] | None = None
    """Judge label x physician consensus counts (``core``, ``all``), kept as their JSON."""
    ensembles: Mapping[str, Any] | None = None
    """Best majority-vote panels with and without the submission, kept as their JSON."""
    # answers
    accuracy: Accuracy | None = field(default=None, metadata=nested(Accuracy))
    accuracy_core: Accuracy | None = field(default=None, metadata=nested(Accuracy))
    judge: JudgeRef | None = field(default=None, metadata=nested(JudgeRef))
    # stored by a results folder
    space: SpaceEntry | None = field(default=None, metadata=nested(SpaceEntry))
    behaviour: Any = None
    """Optional behaviour section (position bias, caution, ...): absent in older records."""
    ranking_fidelity: RankingFidelity | None = field(default=None, metadata=nested(RankingFidelity))
    length_bias: LengthBias | None = field(default=None, metadata=nested(LengthBias))
    output_shares: OutputShares | None = field(default=None, metadata=nested(OutputShares))
    agreement_cells: AgreementCells | None = field(default=None, metadata=nested(AgreementCells))
    """What a judge is used for (:mod:`~medqade.scoring.record.use_sections`): absent in
    records scored before issue 37."""
    contamination: ContaminationCheck | None = field(
        default=None, metadata=nested(ContaminationCheck)
    )
    """The held-out check (:mod:`~medqade.scoring.record.holdout_sections`): only in a record
    scored with held-out labels."""

    @property
    def name(self) -> str:
        """The name a board shows: the display name, else the model id, else the id's start."""
        meta = self.meta or RecordMeta()
        return meta.name or meta.model_id or str(self.id or "")[:12]

    def has_flag(self, flag: str) -> bool:
        return flag in (self.flags or ())

    def scored_on(self, data_hash: str) -> bool:
        """Whether the record was scored on the release with ``data_hash``."""
        return self.dataset is not None and self.dataset.hash == data_hash


def _metric(metric: str) -> str:
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    return metric


def read_record(obj: Mapping[str, Any] | ScoreRecord) -> ScoreRecord:
    """``obj`` as a :class:`ScoreRecord` (a record already read is returned as it is)."""
    return obj if isinstance(obj, ScoreRecord) else ScoreRecord.from_json(obj)
