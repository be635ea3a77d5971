"""The plain-text summary of a score record, the one ``medqade score`` prints.

:func:`summary` gives the whole text (agreement with the physicians, the verdict, bias,
abstention and, for a judge, its behaviour and what it is used for); :func:`use_lines` the
lines of its ranking fidelity, length bias and output shares; :func:`cell_lines` where it fails
(kappa per specialty and tier beside the physicians'); :func:`behaviour_lines` the
lines of the record's ``behaviour`` block (written by
:func:`medqade.measures.judge_behaviour.behaviour`; a record without it, older, gives none);
:func:`alt_test_text` the one sentence every front end shows for the alternative annotator
test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from medqade import vocab
from medqade.measures import CONTAMINATION
from medqade.scoring.record.holdout_sections import ContaminationCheck
from medqade.scoring.record.score_record import (
    Agreement,
    RecordMeta,
    ScoreRecord,
    SubmissionInfo,
    read_record,
)

PHYSICIANS_RATED: Final = "each physician on the answers they rated, abstentions dropped"
"""What the physicians' leave-one-out agreement counts: a physician's abstention is left out
(not a disagreement, unlike a judge's in ``core``/``full``), so it is their agreement when
rated (:func:`medqade.measures.reference_agreement.physicians_in_place`)."""


def _count(x: Any) -> str:
    return "n/a" if isinstance(x, bool) or not isinstance(x, int) else f"{x:,}"


def _num(x: Any, digits: int = 3) -> str:
    return "n/a" if not isinstance(x, (int, float)) else f"{x:.{digits}f}"


def _pct(x: Any) -> str:
    return "n/a" if not isinstance(x, (int, float)) else f"{100 * x:.1f}%"


def _ci(pair: Any, fmt: Any = _num) -> str:
    if not pair or not isinstance(pair[0], (int, float)):
        return ""
    return f" [{fmt(pair[0])}, {fmt(pair[1])}]"


def _p(p: Any) -> str:
    if not isinstance(p, (int, float)):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _rate(x: Any) -> str:
    ok = isinstance(x, (int, float)) and not math.isnan(x)
    return f"{x:.2f}" if ok else "n/a"


def alt_test_text(block: Mapping[str, Any]) -> str:
    """One sentence on a record's ``alt_test`` block (:mod:`medqade.measures.aat`): pass or
    fail, the winning rate omega beside the average advantage probability rho, epsilon, the
    question-clustered variant, and that it is evidence, not a verdict. Every front end
    (``score``, ``compare``, the Space) shows this text."""
    if block.get("unit") is None:
        return (
            "alt-test: scored before answers were its instances (a question-clustered "
            "variant); score the submission again"
        )
    eps = block.get("epsilon")
    head = (
        f"alt-test (Calderon et al. 2025; {block['unit']}s as instances, epsilon "
        f"{eps:g}; evidence beside the verdict, not a verdict): "
    )
    omega = block.get("omega")
    if not isinstance(omega, (int, float)) or math.isnan(omega):
        return head + (
            f"not run: no physician has {block.get('min_instances')} instances with another "
            "physician's label"
        )
    text = (
        f"{'passed' if block.get('passed') else 'failed'}, omega {_rate(omega)} (share of "
        f"physicians matched within epsilon), rho {_rate(block.get('rho'))} (average "
        "advantage probability)"
    )
    by_q = block.get("by_question")
    if isinstance(by_q, Mapping):
        text += (
            f"; question-clustered (robustness): {'passed' if by_q.get('passed') else 'failed'}, "
            f"omega {_rate(by_q.get('omega'))}, rho {_rate(by_q.get('rho'))}"
        )
    return head + text


def behaviour_lines(record: Mapping[str, Any]) -> list[str]:
    """The behaviour of a judge record in a few lines (none without ``behaviour``)."""
    b = record.get("behaviour")
    if not isinstance(b, Mapping):
        return []
    lines = []
    pos = b.get("position")
    if pos:
        shares = ", ".join(_pct(x) for x in pos["richtig"])
        lines.append(
            f"position bias ({b['split']}): Richtig by position 1-5 {shares}; chi2 "
            f"{_num(pos['chi2'], 2)}, Cramér's V {_num(pos['cramers_v'])}, permutation p "
            f"{_p(pos['p_value'])}"
        )
    caution = b.get("caution")
    if caution:
        j, ph = caution["judge"], caution["physicians"]
        questions = j.get("questions_by_tier")  # older records have none
        per_tier = (
            f"; questions per tier 1-4: {', '.join(str(n) for n in questions)}" if questions else ""
        )
        lines.append(
            "caution (core, abstention slope per tier): judge "
            f"{_pct(j['slope'])}{_ci(j['slope_ci'], _pct)}, physicians "
            f"{_pct(ph['slope'])}{_ci(ph['slope_ci'], _pct)}; judge - physicians "
            f"{_pct(caution['slope_difference'])}{_ci(caution['slope_difference_ci'], _pct)}"
            f"{per_tier}"
        )
        if caution.get("warning"):
            lines.append(f"caution: {caution['warning']}")
    cons = b.get("consistency")
    if cons:
        agreement = (
            str(cons["not_informative"])
            if cons.get("not_informative")
            else f"intra-rater kappa {_num(cons['kappa'])}{_ci(cons['kappa_ci'])}, PA "
            f"{_pct(cons['pa'])}"
        )
        line = (
            f"self-consistency ({len(cons['runs'])} runs): {agreement}; label flips "
            f"when the position moved {_pct(cons['flip_rate_moved'])}"
            f"{_ci(cons['flip_rate_moved_ci'], _pct)}"
        )
        re, ph = cons.get("rerated"), cons.get("physicians_rerated")
        if re and ph and not cons.get("not_informative"):
            line += (
                f"; on the re-rated questions judge {_num(re['kappa'])}{_ci(re['kappa_ci'])} "
                f"vs physicians {_num(ph['kappa'])}{_ci(ph['kappa_ci'])}"
            )
        lines.append(line)
    cost = b.get("cost")
    if cost:
        line = (
            f"tokens per 1,000 answers: {_num(cost['input_tokens_per_1000'], 0)} in, "
            f"{_num(cost['output_tokens_per_1000'], 0)} out"
        )
        if isinstance(cost.get("eur_per_1000"), (int, float)):
            line += f"; EUR {cost['eur_per_1000']:.4f} per 1,000 answers"
        lines.append(line)
    for dim, groups in (b.get("breakdowns") or {}).items():
        if dim in ("tier", "lexical"):
            continue  # shown with the tiers and strata above
        ranked = sorted(
            ((g, v["kappa"]) for g, v in groups.items() if v and isinstance(v["kappa"], float)),
            key=lambda x: x[1],
        )
        if ranked:
            lines.append(
                f"kappa by {dim}: lowest {ranked[0][0]} {_num(ranked[0][1])}, highest "
                f"{ranked[-1][0]} {_num(ranked[-1][1])} ({len(ranked)} groups)"
            )
    return lines


def _signed(x: Any) -> str:
    return "n/a" if x is None else f"{x:+.3f}"


NOT_RECORDED: Final = (
    "unparseable replies: not recorded (a plain label file has no invalid outputs; an "
    "Inspect log or medqade judge's output keeps them)"
)


def use_lines(record: ScoreRecord | Mapping[str, Any]) -> list[str]:
    """What a judge is used for, a line each (none for a record scored before these
    sections): ranking fidelity (Kendall's tau-b with its interval, the largest student
    error and its student), length bias (the paired effect on the Richtig rate) and the
    share of unparseable replies, kept apart from abstentions."""
    rec = read_record(record)
    lines = []
    fid = rec.ranking_fidelity
    if fid is not None:
        worst = fid.student(fid.largest_error_student or "")
        error = (
            f"{_signed(worst.difference)}{_ci(worst.difference_ci, _signed)} on "
            f"{worst.student} (judge {_pct(worst.judge)} vs physicians "
            f"{_pct(worst.physicians)})"
            if worst is not None
            else "n/a"
        )
        lines.append(
            f"ranking fidelity ({fid.split}): Kendall tau-b {_num(fid.kendall_tau_b)}"
            f"{_ci(fid.kendall_tau_b_ci)} between the judge's and the physicians' accuracy of "
            f"the {len(fid.students or ())} students; largest student error {error}; picks "
            f"the physicians' best in {_pct(fid.probability_best)} of resamples"
        )
    length = rec.length_bias
    if length is not None and length.judge is not None and length.physicians is not None:
        lines.append(
            f"length bias ({length.split}): Richtig-rate slope per answer-length quartile, "
            f"judge - physicians {_signed(length.richtig_effect)}"
            f"{_ci(length.richtig_effect_ci, _signed)} (judge "
            f"{_signed(length.judge.richtig_slope)}, physicians "
            f"{_signed(length.physicians.richtig_slope)})"
        )
    out = rec.output_shares
    if out is not None:
        kinds = (
            f"{_pct(out.labelled_share)} labelled, {_pct(out.abstained_share)} abstained, "
            f"{_pct(out.missing_share)} missing of {_count(out.answers)} answers"
        )
        if out.invalid_recorded:
            lines.append(
                f"outputs ({out.split}): {kinds}; unparseable {_pct(out.invalid_share)}"
                f"{_ci(out.invalid_share_ci, _pct)} ({_count(out.invalid)} answers; "
                f"{_pct(out.invalid_of_replies)} of replies), neither label nor abstention"
            )
        else:
            lines.append(f"outputs ({out.split}): {kinds}; {NOT_RECORDED}")
    return lines


def cell_lines(record: ScoreRecord | Mapping[str, Any]) -> list[str]:
    """Where the judge fails (``agreement_cells``): a heading and a line per cell, the judge's
    kappa in each physician's place beside the physicians' own, their difference, the cell's
    questions and answers, and a caution on a cell with few questions (none for an older
    record)."""
    rec = read_record(record)
    found = rec.agreement_cells
    if found is None or not found.cells:
        return []
    minimum = found.min_questions or 0
    lines = [
        f"where it fails ({found.split}, {found.metric} in each physician's place, judge vs "
        f"the physicians' own; difference interval over {found.difference_interval}):"
    ]
    for c in found.cells:
        few = (
            f"; fewer than {minimum} questions: read the interval, not the value"
            if c.few_questions
            else ""
        )
        lines.append(
            f"  {c.dimension} {c.group}: judge {_num(c.judge)}{_ci(c.judge_ci)} vs physicians "
            f"{_num(c.physicians)}{_ci(c.physicians_ci)}, difference {_signed(c.difference)}"
            f"{_ci(c.difference_ci, _signed)}; {_count(c.n_questions)} questions, "
            f"{_count(c.n_answers)} answers{few}"
        )
    return lines


def _points(x: Any) -> str:
    return "n/a" if x is None else f"{x:+.1f}"


def summary(record: ScoreRecord | dict[str, Any]) -> str:
    """A readable multi-line summary of a result record."""
    rec = read_record(record)
    meta = rec.meta or RecordMeta()
    sub = rec.submission or SubmissionInfo()
    lines = [
        f"{meta.name or meta.model_id or 'submission'} ({rec.kind}), "
        f"scope {sub.scope}, {sub.rows} rows; record {str(rec.id)[:16]}",
    ]
    if rec.dataset is not None and rec.dataset.synthetic:
        lines.append("dataset: SYNTHETIC release (not physician data)")
    if rec.kind == "judge":
        lines += _judge_lines(rec)
        lines += use_lines(rec)
        lines += cell_lines(rec)
        lines += behaviour_lines(rec.to_json())
    else:
        for block, label in ((rec.accuracy_core, "core"), (rec.accuracy, "all")):
            if block is None or not block.json_keys:
                continue
            line = (
                f"{label:>4}: anchored accuracy {_pct(block.anchored)}{_ci(block.ci, _pct)}, "
                f"bounds {_pct(block.lower)}-{_pct(block.upper)}, coverage "
                f"{_pct(block.coverage)}, {block.pooled_anchors} pooled anchors"
            )
            if block.judged is not None and block.judged.json_keys:
                j = block.judged
                line += f"; judged {_pct(j.estimate)}{_ci(j.ci, _pct)}"
            lines.append(line)
    if rec.flags:
        lines.append("flags: " + ", ".join(rec.flags))
    lines.extend(f"note: {w}" for w in (rec.warnings or ())[:20])
    return "\n".join(lines)


def contamination_lines(check: ContaminationCheck) -> list[str]:
    """The held-out check in words: per scope the judge's and the physicians' kappa drop from
    the published to the held-out items, the excess and its p value, then the decision."""
    lines = [f"held-out check ({_count(check.n_held_out)} items' labels held out from the public):"]
    for s in check.scopes or ():
        lines.append(
            f"  {s.scope}: judge kappa {_num(s.judge_public)} on public vs "
            f"{_num(s.judge_held_out)} on held-out items (drop {_signed(s.judge_drop)}"
            f"{_ci(s.judge_drop_ci, _signed)}); physicians' drop {_signed(s.physicians_drop)}"
            f"{_ci(s.physicians_drop_ci, _signed)}; excess {_signed(s.excess)}"
            f"{_ci(s.excess_ci, _signed)}, permutation p {_num(s.p_value)}"
        )
    if check.flagged:
        lines.append(
            f"  flagged contamination (combined p {_num(check.p_value)} <= {check.alpha:g}): "
            "the judge agrees with the published labels better than with the held-out ones, by "
            "more than the physicians do; no verdict and no rank"
        )
    else:
        lines.append(f"  not flagged (combined p {_num(check.p_value)})")
    return lines


def _judge_lines(rec: ScoreRecord) -> list[str]:
    lines = []
    blocks = {"core": rec.core, "full": rec.full}
    for split, b in blocks.items():
        if b is not None and b.json_keys:
            lines.append(
                f"{split:>5}: kappa {_num(b.kappa)}{_ci(b.kappa_ci)}  "
                f"PA {_pct(b.pa)}{_ci(b.pa_ci, _pct)}  "
                f"PABAK {_num(b.pabak)}{_ci(b.pabak_ci)}  n={b.n}"
            )
    for split, b in blocks.items():
        if b is not None and b.json_keys and b.rated is not None and b.rated.json_keys:
            r = b.rated
            lines.append(
                f"{split:>5} when rated (abstentions dropped, the paper's): kappa "
                f"{_num(r.kappa)}  PA {_pct(r.pa)}  n={_count(r.n)}  coverage "
                f"{_pct(b.coverage)}  abstention {_pct(b.abstention)}"
            )
    ref = rec.physician_reference or Agreement()
    lines.append(
        f"physicians (leave-one-out, {PHYSICIANS_RATED}): kappa "
        f"{_num(ref.kappa)}{_ci(ref.kappa_ci)}"
    )
    head = rec.headline
    if head is not None and head.json_keys:
        flags = f"; flag: {', '.join(head.flags)}" if head.flags else ""
        if rec.has_flag(vocab.PARTIAL_COVERAGE):
            flags += "; partial coverage: no verdict, not ranked"
        if rec.has_flag(CONTAMINATION):
            flags += "; contamination: no verdict, not ranked"
        lines.append(
            f"verdict: {rec.verdict or 'n/a'} (kappa d {_signed(head.kappa)}"
            f"{_ci(head.kappa_ci, _signed)}, margin {head.margin:g}, decided on "
            f"{head.decided_on}{flags}; intervals over questions and physicians)"
        )
    for diff, label in (
        (rec.physician_difference, "core, judge in each physician's place"),
        (rec.extension_difference, "extension, judge in each primary physician's place"),
    ):
        if diff is None or not diff.json_keys:
            continue
        lines.append(
            f"  evidence: judge - physicians ({label}): kappa {_signed(diff.kappa)}"
            f"{_ci(diff.kappa_ci, _signed)}"
        )
    if rec.contamination is not None:
        lines.extend(contamination_lines(rec.contamination))
    alt = rec.alt_test
    if alt is not None and alt.json_keys:
        lines.append(alt_test_text(alt.to_json()))
    a = rec.abstention or {}
    tiers = ", ".join(_pct(x) for x in a["by_tier"])
    lines.append(f"abstention: {_pct(a['global'])} (tiers 1-4: {tiers})")
    for t in (rec.bias or {}).get("targets", []):
        lines.append(
            f"{t['kind']} bias on {t['student']}: {100 * t['bias']:+.1f} points"
            f"{_ci([100 * x if x is not None else None for x in t['bias_ci']], _points)}"
            if t["bias"] is not None
            else f"{t['kind']} bias on {t['student']}: n/a"
        )
    d = rec.disagreements or {}
    lines.append(f"disagrees with a unanimous physician panel on {d['n']} answers")
    return lines
