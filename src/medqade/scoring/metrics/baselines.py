"""Baseline judges that need no LLM: string comparisons of each answer with the reference.

Each baseline labels an answer ``Richtig`` when its comparison with the item's reference answer
passes, else ``Falsch`` (never abstains; a missing answer is a missing label). They are scored
as judges like any submission, so the leaderboard shows what lexical matching alone achieves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.scoring.intake import char_ngram_dice, fuzzy_ratio, normalise, token_f1
from medqade.scoring.metrics import context

if TYPE_CHECKING:
    from medqade.dataset.release import Release

TOKEN_F1_THRESHOLD: Final = 0.5
CHAR_NGRAM_THRESHOLD: Final = 0.6
FUZZY_THRESHOLD: Final = 0.85


@dataclass(frozen=True)
class Baseline:
    """A string-comparison judge: ``accepts(answer, reference)``."""

    id: str
    name: str
    description: str
    accepts: Callable[[str, str], bool]


BASELINES: Final = (
    Baseline(
        "baseline-exact",
        "Exact match",
        "answer == reference (strict string equality, the lexical-match definition)",
        lambda a, r: a == r,
    ),
    Baseline(
        "baseline-normalised",
        "Normalised match",
        "equal after NFKC, case fold, ß/ss, whitespace, punctuation, quotes and a leading article",
        lambda a, r: normalise(a, strip_articles=True) == normalise(r, strip_articles=True),
    ),
    Baseline(
        "baseline-token-f1",
        f"Token F1 >= {TOKEN_F1_THRESHOLD}",
        f"token-overlap F1 of the normalised texts at least {TOKEN_F1_THRESHOLD}",
        lambda a, r: token_f1(a, r) >= TOKEN_F1_THRESHOLD,
    ),
    Baseline(
        "baseline-char-3gram",
        f"Character 3-gram Dice >= {CHAR_NGRAM_THRESHOLD}",
        f"Dice coefficient of character trigrams at least {CHAR_NGRAM_THRESHOLD}",
        lambda a, r: char_ngram_dice(a, r) >= CHAR_NGRAM_THRESHOLD,
    ),
    Baseline(
        "baseline-fuzzy",
        f"Fuzzy ratio >= {FUZZY_THRESHOLD}",
        f"rapidfuzz normalised Indel similarity at least {FUZZY_THRESHOLD}",
        lambda a, r: fuzzy_ratio(a, r) >= FUZZY_THRESHOLD,
    ),
)


def baseline_labels(release: Release, baseline: Baseline) -> npt.NDArray[np.int8]:
    """Label codes (items, 5) of ``baseline`` on every answer of the release (cached)."""

    def compute() -> npt.NDArray[np.int8]:
        refs = release.questions["reference_answer"].tolist()
        texts = release.answer_text
        out = np.full(texts.shape, vocab.MISSING_CODE, dtype=np.int8)
        for i, ref in enumerate(refs):
            for s in range(texts.shape[1]):
                a = texts[i, s]
                if isinstance(a, str) and isinstance(ref, str):
                    ok = baseline.accepts(a, ref)
                    out[i, s] = vocab.RICHTIG_CODE if ok else vocab.FALSCH_CODE
        out.setflags(write=False)
        return out

    value: npt.NDArray[np.int8] = context.memo(release, f"baseline:{baseline.id}", compute)
    return value
