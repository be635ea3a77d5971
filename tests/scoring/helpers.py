"""Submission files made from a release, for the scoring tests."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade import vocab
from medqade.dataset.release import Release


def judge_rows(release: Release, evaluator: str) -> pd.DataFrame:
    """``question_id, model, label, difficulty`` of one evaluator, from ``release.judgments``."""
    j = release.judgments
    rows = j[j["evaluator"] == evaluator][["question_id", "model", "label", "difficulty"]]
    return rows.reset_index(drop=True)


def codes_to_rows(release: Release, codes: np.ndarray, items: Iterable[int] | None = None) -> str:
    """CSV text ``question_id,model,label`` for label codes (items, 5); -1 written empty."""
    buf = io.StringIO()
    buf.write("question_id,model,label\n")
    chosen = range(release.n_items) if items is None else items
    for i in chosen:
        for s, m in enumerate(release.roster.student_ids):
            code = int(codes[i, s])
            label = "" if code == vocab.MISSING_CODE else vocab.CODE_LABELS[code]
            buf.write(f"{release.item_ids[i]},{m},{label}\n")
    return buf.getvalue()


def answers_csv(
    release: Release, answers: Iterable[str | None], items: Iterable[int] | None = None
) -> str:
    frame = pd.DataFrame({"question_id": release.item_ids, "answer": list(answers)})
    if items is not None:
        frame = frame.iloc[list(items)]
    return frame.to_csv(index=False, lineterminator="\n")


def jsonl(records: Iterable[Mapping[str, Any]], meta: Mapping[str, Any] | None = None) -> str:
    lines = [] if meta is None else [json.dumps({"meta": dict(meta)}, ensure_ascii=False)]
    lines += [json.dumps(dict(r), ensure_ascii=False) for r in records]
    return "\n".join(lines) + "\n"


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf)
    return buf.getvalue()


def settings_of(kwargs: dict[str, Any]) -> Any:
    """A :class:`~medqade.scoring.intake.settings.Settings` of the ``resamples``, ``seed``,
    ``margin`` and ``limits`` keywords in ``kwargs`` (taken out of it), the defaults else."""
    from medqade.scoring import Settings

    given = {k: kwargs.pop(k) for k in ("resamples", "seed", "margin", "limits") if k in kwargs}
    return Settings(**given)


def scored(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """:func:`medqade.scoring.score`'s record as the JSON object it is written as (the
    settings given as keywords)."""
    from medqade.scoring import score

    kwargs["settings"] = settings_of(kwargs)
    return score(*args, **kwargs).to_json()


def scored_file(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """:func:`medqade.scoring.score_file`'s record as the JSON object it is written as."""
    from medqade.scoring import score_file

    kwargs["settings"] = settings_of(kwargs)
    return score_file(*args, **kwargs).to_json()


def reference_json(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """:func:`medqade.scoring.reference_records` as the JSON objects they are written as."""
    from medqade.scoring import reference_records

    kwargs["settings"] = settings_of(kwargs)
    return [r.to_json() for r in reference_records(*args, **kwargs)]


def student_accuracies(
    codes: np.ndarray, reference: np.ndarray, items: Iterable[int]
) -> tuple[list[float], list[float]]:
    """Judge and consensus Richtig shares per student on the answers with a resolved
    consensus, over the listed questions (a repeat counts again), a plain loop: the oracle of
    ranking fidelity."""
    chosen = list(items)
    judge, phys = [], []
    for s in range(codes.shape[1]):
        n = j = p = 0
        for i in chosen:
            if reference[i, s] in (0, 1):
                n += 1
                j += codes[i, s] == 1
                p += reference[i, s] == 1
        judge.append(j / n if n else float("nan"))
        phys.append(p / n if n else float("nan"))
    return judge, phys


def fidelity_oracle(
    codes: np.ndarray, reference: np.ndarray, weights: np.ndarray
) -> dict[str, Any]:
    """Kendall's tau-b (scipy) between the judge's and the consensus' student accuracies and
    the largest absolute error, on the data and, by an explicit loop over the resamples of
    ``weights`` (R, items; each materialised as the list of drawn questions), their 95%
    percentile intervals (and tau's replicates)."""
    from scipy.stats import kendalltau

    def both(items: Iterable[int]) -> tuple[float, float]:
        j, p = student_accuracies(codes, reference, items)
        return float(kendalltau(j, p).statistic), float(np.max(np.abs(np.subtract(j, p))))

    n = codes.shape[0]
    tau, largest = both(range(n))
    reps = [
        both([i for i in range(n) for _ in range(int(weights[r, i]))])
        for r in range(weights.shape[0])
    ]

    def ci(values: list[float]) -> list[float]:
        return [float(x) for x in np.nanpercentile(np.asarray(values), [2.5, 97.5])]

    return {
        "tau": tau,
        "tau_reps": [t for t, _ in reps],
        "tau_ci": ci([t for t, _ in reps]),
        "largest": largest,
        "largest_ci": ci([m for _, m in reps]),
    }


def passing(content_hash: str, passed: bool = True) -> Any:
    """A verification of the labels with ``content_hash`` (what ``medqade verify`` writes):
    passed, or failed with ``passed=False``."""
    from medqade.scoring.policy import Verification

    return Verification(
        record_id="0" * 64,
        content_hash=content_hash,
        data_hash=None,
        model="the-judge",
        seed=1,
        questions=40,
        question_ids=tuple(f"Q{i}" for i in range(40)),
        answers=200,
        no_reply=0,
        kappa=0.97 if passed else 0.7,
        kappa_ci=(0.93, 1.0) if passed else (0.6, 0.8),
        pa=0.99 if passed else 0.85,
        pa_ci=(0.97, 1.0) if passed else (0.8, 0.9),
        resamples=1000,
        reference=0.98,
        reference_source="bound",
        passed=passed,
        log=None,
    )
