"""The Browse tab's index: every question set, its filters and its item view, built once.

The flags are plain comparisons of stored labels (no statistics): per item, *physicians split*
(some answer got both ``Richtig`` and ``Falsch`` from the panel), *unresolved* (some answer has
no consensus), *physicians abstained* (some physician said ``Keine Angabe``), *judge X
disagrees* (some answer where X's substantive label differs from the consensus) and *all judges
wrong* (some resolved answer where every paper evaluator that gave a substantive label
contradicts the consensus). All of them are boolean arrays over the items, so a filter is a few
vector operations.
"""

from __future__ import annotations

import html
import random
import threading
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from medqade import vocab
from medqade.release import Release

ALL: Final = "all"
FLAG_SPLIT: Final = "physicians split"
FLAG_UNRESOLVED: Final = "unresolved"
FLAG_JUDGE: Final = "chosen judge disagrees with consensus"
FLAG_ALL_WRONG: Final = "all judges wrong"
FLAG_ABSTAINED: Final = "physicians abstained"
FLAGS: Final = (FLAG_SPLIT, FLAG_UNRESOLVED, FLAG_JUDGE, FLAG_ALL_WRONG, FLAG_ABSTAINED)
EXACT: Final = "exact match"
NO_MATCH: Final = "no match"
MAX_ROWS: Final = 500
RESULT_COLUMNS: Final = ("item", "split", "tier", "lexical", "specialty", "question", "reference")

Codes = npt.NDArray[np.int8]
Mask = npt.NDArray[np.bool_]


def tier_name(tier: int) -> str:
    return f"T{tier}" if tier else "no rating"


def label_text(code: int) -> str:
    """The German label of a code; an empty string for a missing label."""
    return "" if code == vocab.MISSING_CODE else vocab.CODE_LABELS[int(code)]


def blind_order(item_id: str) -> list[int]:
    """A fixed shuffle of the five slots for ``item_id`` (the same on every visit)."""
    return random.Random(f"medqade-blind:{item_id}").sample(range(vocab.N_SLOTS), vocab.N_SLOTS)


def disagrees(labels: Codes, consensus: Codes) -> Mask:
    """Per item: some answer where ``labels`` (items, 5) is substantive and differs."""
    substantive = (labels == vocab.RICHTIG_CODE) | (labels == vocab.FALSCH_CODE)
    resolved = consensus != vocab.MISSING_CODE
    return np.asarray((substantive & resolved & (labels != consensus)).any(axis=1))


@dataclass(frozen=True)
class ItemView:
    """What the Browse tab shows for one item."""

    item_id: str
    header_html: str
    answers: pd.DataFrame
    labels: pd.DataFrame


class BrowseIndex:
    """Filters and item views over a release plus the labels of submitted judges."""

    def __init__(self, release: Release) -> None:
        self.release = release
        q = release.questions
        self.has_specialty = "specialty" in q.columns
        self.specialty = (
            q["specialty"].fillna("").astype(str).to_numpy(dtype=object)
            if self.has_specialty
            else np.full(release.n_items, "", dtype=object)
        )
        self.split = q["split"].astype(str).to_numpy(dtype=object)
        self.tier = release.tier
        self.lexical = release.lexical
        self.tier_names = np.array([tier_name(int(t)) for t in self.tier], dtype=object)
        self.table = pd.DataFrame(
            {
                "item": release.item_ids,
                "split": self.split,
                "tier": self.tier_names,
                "lexical": np.where(self.lexical, EXACT, NO_MATCH),
                "specialty": self.specialty,
                "question": q["question"].astype(str).to_numpy(),
                "reference": q["reference_answer"].astype(str).to_numpy(),
            }
        )
        answers = release.answer_text
        self._text = [
            " ".join(
                [str(i), str(qq), str(ref), *(str(a) for a in answers[n] if a is not None)]
            ).casefold()
            for n, (i, qq, ref) in enumerate(
                zip(
                    self.table["item"], self.table["question"], self.table["reference"], strict=True
                )
            )
        ]
        phys = release.physician_labels
        consensus = release.consensus
        says_r = (phys == vocab.RICHTIG_CODE).any(axis=0)
        says_f = (phys == vocab.FALSCH_CODE).any(axis=0)
        self.flags: dict[str, Mask] = {
            FLAG_SPLIT: np.asarray((says_r & says_f).any(axis=1)),
            FLAG_UNRESOLVED: np.asarray((consensus == vocab.MISSING_CODE).any(axis=1)),
            FLAG_ABSTAINED: np.asarray((phys == vocab.ABSTAIN_CODE).any(axis=(0, 2))),
        }
        ev = release.evaluator_labels
        substantive = (ev == vocab.RICHTIG_CODE) | (ev == vocab.FALSCH_CODE)
        wrong = substantive & (ev != consensus[None]) & (consensus != vocab.MISSING_CODE)[None]
        all_wrong = substantive.any(axis=0) & ~(substantive & ~wrong).any(axis=0)
        self.flags[FLAG_ALL_WRONG] = np.asarray(all_wrong.any(axis=1))
        self._lock = threading.Lock()
        self._judges: dict[str, Codes] = {
            release.roster.name(e): ev[k] for k, e in enumerate(release.roster.evaluator_ids)
        }
        self._submitted: dict[str, Codes] = {}
        self._disagree: dict[str, Mask] = {
            name: disagrees(codes, consensus) for name, codes in self._judges.items()
        }
        self.row_of = release.item_index

    # --- choices ----------------------------------------------------------------------------

    def split_choices(self) -> list[str]:
        return [ALL, *vocab.SPLITS]

    def tier_choices(self) -> list[str]:
        return [ALL, *(tier_name(int(t)) for t in sorted(set(self.tier.tolist())))]

    def lexical_choices(self) -> list[str]:
        return [ALL, EXACT, NO_MATCH]

    def specialty_choices(self) -> list[str]:
        return [ALL, *sorted({s for s in self.specialty if s})]

    def judge_choices(self) -> list[str]:
        with self._lock:
            return [*self._judges, *self._submitted]

    # --- submitted judges ---------------------------------------------------------------------

    def add_judge(self, name: str, labels: Codes) -> str:
        """Register a submitted judge's labels (items, 5); returns the unique name it got."""
        if labels.shape != self.release.consensus.shape:
            raise ValueError(
                f"judge labels have shape {labels.shape}, expected {self.release.consensus.shape}"
            )
        mask = disagrees(labels, self.release.consensus)
        with self._lock:
            unique, k = name, 2
            while unique in self._judges or unique in self._submitted:
                unique, k = f"{name} ({k})", k + 1
            self._submitted[unique] = labels
            self._disagree[unique] = mask
        return unique

    # --- filtering ----------------------------------------------------------------------------

    def mask(
        self,
        split: str = ALL,
        tier: str = ALL,
        lexical: str = ALL,
        specialty: str = ALL,
        flags: Sequence[str] = (),
        judge: str | None = None,
        text: str = "",
    ) -> Mask:
        """The items that pass every chosen filter (``ALL`` or empty = no restriction)."""
        keep = np.ones(self.release.n_items, dtype=bool)
        if split and split != ALL:
            keep &= self.split == split
        if tier and tier != ALL:
            keep &= self.tier_names == tier
        if lexical == EXACT:
            keep &= self.lexical
        elif lexical == NO_MATCH:
            keep &= ~self.lexical
        if specialty and specialty != ALL:
            keep &= self.specialty == specialty
        for flag in flags:
            if flag == FLAG_JUDGE:
                with self._lock:
                    chosen = self._disagree.get(judge or "")
                if chosen is None:
                    raise ValueError("choose a judge for the filter 'chosen judge disagrees'")
                keep &= chosen
            elif flag in self.flags:
                keep &= self.flags[flag]
            else:
                raise ValueError(f"unknown filter {flag!r}; use one of {', '.join(FLAGS)}")
        needle = " ".join(text.split()).casefold()
        if needle:
            keep &= np.fromiter((needle in t for t in self._text), dtype=bool, count=len(keep))
        return keep

    def results(self, keep: Mask, limit: int = MAX_ROWS) -> tuple[pd.DataFrame, int]:
        """The first ``limit`` matching rows (display columns) and the number of matches."""
        idx = np.flatnonzero(keep)
        columns = [c for c in RESULT_COLUMNS if c != "specialty" or self.has_specialty]
        return self.table.iloc[idx[:limit]][columns].reset_index(drop=True), int(idx.size)

    # --- one item -----------------------------------------------------------------------------

    def find(self, item_id: str) -> int | None:
        return self.row_of.get(item_id.strip())

    def view(self, item_id: str, blind: bool = False) -> ItemView:
        """The item's header (escaped HTML), its answers and every label it got."""
        row = self.find(item_id)
        if row is None:
            raise KeyError(item_id)
        rel = self.release
        qid = str(rel.item_ids[row])
        order = blind_order(qid) if blind else list(range(vocab.N_SLOTS))
        names = [f"Answer {k + 1}" for k in range(vocab.N_SLOTS)]
        students = rel.roster.students
        answers = rel.answers.iloc[row * vocab.N_SLOTS : (row + 1) * vocab.N_SLOTS]
        cons = rel.consensus[row]
        ans_rows = []
        for pos, slot in enumerate(order):
            a = answers.iloc[slot]
            ans_rows.append(
                {
                    "answer": names[pos],
                    "model": "(hidden)" if blind else students[slot].name,
                    "text": "" if a["answer"] is None else str(a["answer"]),
                    "consensus": label_text(int(cons[slot])) or "unresolved",
                    "votes": (
                        f"{vocab.RICHTIG} {int(a['votes_richtig'])} · "
                        f"{vocab.FALSCH} {int(a['votes_falsch'])} · "
                        f"{vocab.KEINE_ANGABE} {int(a['votes_keine_angabe'])}"
                    ),
                    "adjudicated": "yes" if bool(a["adjudicated"]) else "no",
                }
            )
        label_rows = []
        for p, rater in enumerate(rel.roster.physicians):
            codes = rel.physician_labels[p, row]
            if (codes == vocab.MISSING_CODE).all():
                continue
            role = "adjudicator" if rater == rel.roster.adjudicator else "physician"
            label_rows.append(
                {"rater": rater, "role": role}
                | {names[pos]: label_text(int(codes[s])) for pos, s in enumerate(order)}
            )
        with self._lock:
            judges = [(n, c, "paper evaluator") for n, c in self._judges.items()]
            judges += [(n, c, "submitted judge") for n, c in self._submitted.items()]
        for name, labels, role in judges:
            codes = labels[row]
            label_rows.append(
                {"rater": name, "role": role}
                | {names[pos]: label_text(int(codes[s])) for pos, s in enumerate(order)}
            )
        q = rel.questions.iloc[row]
        e = html.escape
        facts = [
            f"split {e(self.split[row])}",
            f"tier {e(tier_name(int(self.tier[row])))}",
            EXACT if self.lexical[row] else NO_MATCH,
        ]
        if self.has_specialty and self.specialty[row]:
            facts.append(f"specialty {e(str(self.specialty[row]))}")
        link = "?item=" + urllib.parse.quote(qid, safe="")
        header = (
            f'<div class="mq-item"><p class="mq-item-id"><strong>{e(qid)}</strong> · '
            f"{' · '.join(facts)} · link: <code>{e(link)}</code></p>"
            f'<p class="mq-question" lang="de">{e(str(q["question"]))}</p>'
            f'<p class="mq-reference" lang="de">Reference: <strong>'
            f"{e(str(q['reference_answer']))}</strong></p></div>"
        )
        return ItemView(qid, header, pd.DataFrame(ans_rows), pd.DataFrame(label_rows))
