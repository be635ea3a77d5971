"""The synthetic re-rating sample: the same physicians rating the same core answers again.

Sample: :data:`N_ITEMS` = 40 core items drawn without replacement (all five answers each);
every physician who rated an answer in the primary round rates it again, in one session per
physician :data:`WASHOUT_DAYS` = 28 to 41 days after :data:`PRIMARY_END` (the washout), so the
sample holds up to 40 x 5 x 10 = 2,000 re-ratings with a ``rated_at`` date.

Model: a physician repeats their own first label with probability :data:`KEEP`; otherwise the
re-rating is drawn from the other physicians' first labels on that answer (abstentions
included), so inconsistency concentrates on the answers the panel disputes, and a physician
who disagrees with the panel drifts toward it. The latent model of
:mod:`medqade.synthetic.simulate` is not touched: the draws come from a generator of their own
(``default_rng([seed, RERATING_STREAM])``), so every other table is unchanged by this one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

import numpy as np
import pandas as pd

from medqade import vocab

RERATING_STREAM: Final = 16
N_ITEMS: Final = 40
KEEP: Final = 0.88
PRIMARY_END: Final = dt.date(2025, 6, 30)
WASHOUT_DAYS: Final = 28
SESSION_SPREAD_DAYS: Final = 14


def rerating_rows(tables: dict[str, Any], seed: int) -> pd.DataFrame:
    """Re-rating rows (``round`` = rerating, ``rated_at`` a date) for the outputs of
    :func:`~medqade.synthetic.simulate.simulate` with ``seed`` (module docstring)."""
    rng = np.random.default_rng([seed, RERATING_STREAM])
    questions = tables["questions"]
    columns = ["question_id", "rater", "model", "label", "round", "rated_at"]
    if "split" not in questions.columns or "round" not in tables["ratings"].columns:
        return pd.DataFrame(columns=columns)  # a stand-in table without the design's columns
    core = questions.loc[questions["split"] == vocab.CORE, "question_id"].to_numpy(dtype=str)
    chosen = set(rng.choice(core, size=min(N_ITEMS, len(core)), replace=False).tolist())
    r = tables["ratings"]
    first = r[(r["round"] == vocab.PRIMARY) & r["question_id"].isin(chosen)].reset_index(drop=True)
    physicians = vocab.DEFAULT_ROSTER.physicians
    session = {
        p: PRIMARY_END + dt.timedelta(days=WASHOUT_DAYS + int(d))
        for p, d in zip(
            physicians, rng.integers(0, SESSION_SPREAD_DAYS, size=len(physicians)), strict=True
        )
    }
    keep = rng.random(len(first)) < KEEP
    pick = rng.random(len(first))
    by_answer = first.groupby(["question_id", "model"])
    labels = first["label"].to_numpy(dtype=object).copy()
    for k, (qid, model, rater) in enumerate(
        first[["question_id", "model", "rater"]].itertuples(index=False)
    ):
        if keep[k]:
            continue
        panel = by_answer.get_group((qid, model))
        others = panel.loc[panel["rater"] != rater, "label"].to_numpy(dtype=object)
        if len(others):
            labels[k] = others[int(pick[k] * len(others))]
    return pd.DataFrame(
        {
            "question_id": first["question_id"],
            "rater": first["rater"],
            "model": first["model"],
            "label": labels,
            "round": vocab.RERATING,
            "rated_at": first["rater"].map(lambda p: session[p].isoformat()),
        }
    )


def with_rerating(tables: dict[str, Any], seed: int) -> pd.DataFrame:
    """The ratings table of the raw release: the simulated ratings (``rated_at`` empty, not
    recorded) followed by the re-rating sample."""
    first: pd.DataFrame = tables["ratings"].assign(rated_at="")
    return pd.concat([first, rerating_rows(tables, seed)], ignore_index=True)
