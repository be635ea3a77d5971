"""Answer normalisation and string similarity, shared by anchoring and the baseline judges.

:func:`normalise` is the one definition of "the same answer" used when a submitted model answer
is matched against the physician-labelled answers of an item, and by the ``normalised`` baseline
judge. Steps, in order: Unicode NFKC, case fold (which also maps ``ß`` to ``ss``), collapse
whitespace, trim punctuation and quotes at both ends, and optionally drop one leading German
article (``der``, ``die``, ``das``, ``ein`` ... ; kept when nothing else would remain).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from typing import Final

from rapidfuzz import fuzz

ARTICLES: Final = frozenset(
    {"der", "die", "das", "den", "dem", "des", "ein", "eine", "einer", "eines", "einem", "einen"}
)
"""German definite and indefinite articles dropped by ``strip_articles``."""

_TRIM: Final = string.punctuation + string.whitespace + "„“”‚‘’«»‹›…–—·¿¡"
_TOKEN: Final = re.compile(r"\w+")


def normalise(text: str, strip_articles: bool = False) -> str:
    """The comparison key of an answer (see the module docstring).

    >>> normalise('  „Der  Nervus   Medianus.“ ', strip_articles=True)
    'nervus medianus'
    >>> normalise("Fußpilz") == normalise("FUSSPILZ")
    True
    """
    key = unicodedata.normalize("NFKC", text).casefold().replace("ß", "ss")
    key = " ".join(key.split()).strip(_TRIM)
    if strip_articles:
        first, _, rest = key.partition(" ")
        rest = rest.strip(_TRIM)
        if first in ARTICLES and rest:
            key = rest
    return key


def tokens(text: str) -> list[str]:
    """Word tokens of the normalised text (articles kept)."""
    return _TOKEN.findall(normalise(text))


def token_f1(answer: str, reference: str) -> float:
    """SQuAD-style token-overlap F1 between two answers (0 when either has no token).

    >>> token_f1("Nervus medianus", "der Nervus medianus")
    0.8
    """
    a, b = tokens(answer), tokens(reference)
    if not a or not b:
        return 0.0
    common = sum((Counter(a) & Counter(b)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


def char_ngrams(text: str, n: int = 3) -> Counter[str]:
    """Character n-grams of the normalised text, padded with one space at each end."""
    padded = f" {normalise(text)} "
    if len(padded) < n:
        return Counter([padded])
    return Counter(padded[i : i + n] for i in range(len(padded) - n + 1))


def char_ngram_dice(answer: str, reference: str, n: int = 3) -> float:
    """Dice coefficient of the character n-gram multisets of two answers (0 to 1).

    >>> char_ngram_dice("Femur", "femur")
    1.0
    """
    a, b = char_ngrams(answer, n), char_ngrams(reference, n)
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


def fuzzy_ratio(answer: str, reference: str) -> float:
    """``rapidfuzz.fuzz.ratio`` of the normalised texts, scaled to 0-1 (normalised Indel
    similarity: ``2 * LCS / (len(a) + len(b))`` over characters)."""
    return float(fuzz.ratio(normalise(answer), normalise(reference))) / 100.0
