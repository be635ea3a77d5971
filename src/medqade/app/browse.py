"""The Browse tab's index: every question set, its filters and its item view, built once.

The flags are plain comparisons of stored labels (no statistics): per item, *physicians split*
(some answer got both ``Richtig`` and ``Falsch`` from the panel), *unresolved* (some answer has
no consensus), *physicians abstained* (some physician said ``Keine Angabe``), *judge X
disagrees* (some answer where X's substantive label differs from the consensus) and *all judges
wrong* (some resolved answer where every paper evaluator that gave a substantive label
contradicts the consensus). All of them are boolean arrays over the items (and over the answer
slots, so the item view can mark the answer that triggered a filter), so a filter is a few
vector operations.

The item view (:meth:`BrowseIndex.view`) gathers one item's answers and labels; its HTML (answer
cards and the label grid) is drawn by :mod:`medqade.app.item_view`. A held-out item (a build with
held-out labels, docs/holdout.md) is shown as published, whatever the release holds: no
consensus, votes, physician labels, difficulty or reviews, one line saying why, and no filter
but the text ones finds it by its labels (it is not *unresolved*). Specialties sort in German
order (umlauts with their base letter, ``ß`` as ``ss``), independent of the machine's locale.
"""

from __future__ import annotations

import html
import random
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import pandas as pd

from medqade import vocab
from medqade.app.browse_judges import BrowseJudges, Codes, Mask
from medqade.app.item_view import (  # the agreement words stay importable from here
    ABSTAINED_ONLY,  # noqa: F401
    HELD_OUT,
    HELD_OUT_LINE,
    NOBODY,  # noqa: F401
    SPLIT,  # noqa: F401
    UNANIMOUS,  # noqa: F401
    agreement,
    answer_card,
    item_header,
    label_grid,
    label_text,
    vote_split,
)
from medqade.dataset.release import Release

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
MAX_ID: Final = 200
RESULT_COLUMNS: Final = ("item", "split", "tier", "lexical", "specialty", "question", "reference")


def german_key(text: str) -> tuple[str, str]:
    """A sort key in German dictionary order, the same on every machine (no locale):
    case and accents folded (``Ä`` -> ``a``, ``ß`` -> ``ss``), ties broken by the text."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    base = "".join(c for c in folded if not unicodedata.combining(c))
    return base, text


def tier_name(tier: int) -> str:
    return f"T{tier}" if tier else "no rating"


def blind_order(item_id: str) -> list[int]:
    """A fixed shuffle of the five slots for ``item_id`` (the same on every visit)."""
    return random.Random(f"medqade-blind:{item_id}").sample(range(vocab.N_SLOTS), vocab.N_SLOTS)


@dataclass(frozen=True)
class ItemView:
    """What the Browse tab shows for one item."""

    item_id: str
    header_html: str
    answers: pd.DataFrame
    labels: pd.DataFrame
    html: str = ""


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
        held = self.held_out = np.asarray(release.held_out, dtype=bool)
        self.tier = np.where(held, 0, release.tier)
        self.lexical = release.lexical
        names = [HELD_OUT if h else tier_name(int(t)) for t, h in zip(self.tier, held, strict=True)]
        self.tier_names = np.array(names, dtype=object)
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
        missing = np.int8(vocab.MISSING_CODE)  # held-out labels: never shown, even if loaded
        phys = self.physician_labels = np.where(
            held[None, :, None], missing, release.physician_labels
        )
        consensus = self.consensus = np.where(held[:, None], missing, release.consensus)
        says_r = (phys == vocab.RICHTIG_CODE).any(axis=0)
        says_f = (phys == vocab.FALSCH_CODE).any(axis=0)
        ev = release.evaluator_labels
        substantive = (ev == vocab.RICHTIG_CODE) | (ev == vocab.FALSCH_CODE)
        wrong = substantive & (ev != consensus[None]) & (consensus != vocab.MISSING_CODE)[None]
        all_wrong = substantive.any(axis=0) & ~(substantive & ~wrong).any(axis=0)
        self.slot_flags: dict[str, Mask] = {  # (items, 5): the answers behind each flag
            FLAG_SPLIT: np.asarray(says_r & says_f),
            FLAG_UNRESOLVED: np.asarray((consensus == vocab.MISSING_CODE) & ~held[:, None]),
            FLAG_ABSTAINED: np.asarray((phys == vocab.ABSTAIN_CODE).any(axis=0)),
            FLAG_ALL_WRONG: np.asarray(all_wrong),
        }
        self.flags: dict[str, Mask] = {
            flag: np.asarray(m.any(axis=1)) for flag, m in self.slot_flags.items()
        }
        self.judges = BrowseJudges(release, consensus)
        """The paper evaluators and submitted judges (:mod:`medqade.app.browse_judges`)."""
        self.row_of = release.item_index
        from medqade.labelstudio.review_queue import review_notes

        slot = release.slot_index  # answer id -> "reviewer: codes (note)" lines, none held out
        self.reviews = {
            aid: notes
            for aid, notes in review_notes(release).items()
            if aid in slot and not held[slot[aid][0]]
        }

    # --- choices ----------------------------------------------------------------------------

    def split_choices(self) -> list[str]:
        return [ALL, *vocab.SPLITS]

    def tier_choices(self) -> list[str]:
        tiers = sorted(set(self.tier[~self.held_out].tolist()))
        return [
            ALL,
            *(tier_name(int(t)) for t in tiers),
            *([HELD_OUT] if self.held_out.any() else []),
        ]

    def lexical_choices(self) -> list[str]:
        return [ALL, EXACT, NO_MATCH]

    def specialty_choices(self) -> list[str]:
        return [ALL, *sorted({s for s in self.specialty if s}, key=german_key)]

    def judge_choices(self) -> list[str]:
        return self.judges.choices()

    def judge_name(self, judge: str | None) -> str:
        """The display name a judge filter value means (:meth:`BrowseJudges.name`)."""
        return self.judges.name(judge)

    def judge_labels(self, name: str | None) -> Codes | None:
        """The labels (items, 5) of a judge by display name or id (:meth:`BrowseJudges.labels`)."""
        return self.judges.labels(name)

    def add_judge(self, name: str, labels: Codes, record_id: str | None = None) -> str:
        """Register a submitted judge's labels (items, 5); returns the unique name it got
        (:meth:`BrowseJudges.add`)."""
        return self.judges.add(name, labels, record_id)

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
                chosen = self.judges.disagreement(judge)
                if chosen is None and (judge or "").strip():
                    raise ValueError(
                        f"unknown judge {str(judge)[:80]!r} for the filter 'chosen judge "
                        "disagrees'; give a display name from the list or a judge id"
                    )
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

    @staticmethod
    def unknown_html(item_id: str) -> str:
        """What an unknown item id shows (escaped; an overlong id is not repeated)."""
        if len(item_id) > MAX_ID:
            return (
                f"<p>A question set id has at most {MAX_ID} characters (this one has "
                f"{len(item_id):,}); search for the question in the list above.</p>"
            )
        return (
            f"<p>No question set with id <code>{html.escape(item_id)}</code>; search for the "
            "question in the list above.</p>"
        )

    # --- one item -----------------------------------------------------------------------------

    def find(self, item_id: str) -> int | None:
        """The row of ``item_id`` (only looked up, never a path); ``None`` when unknown or
        longer than :data:`MAX_ID` characters."""
        if len(item_id) > MAX_ID:
            return None
        return self.row_of.get(item_id.strip())

    def triggers(
        self, row: int, flags: Sequence[str] = (), judge: str | None = None
    ) -> list[list[str]]:
        """Per answer slot of item ``row``: the active filters that this answer triggers."""
        out: list[list[str]] = [[] for _ in range(vocab.N_SLOTS)]
        for flag in flags:
            if flag == FLAG_JUDGE:
                labels = self.judge_labels(judge)
                if labels is None:
                    continue
                codes, cons = labels[row], self.consensus[row]
                hits = (codes >= 0) & (codes != vocab.ABSTAIN_CODE) & (cons >= 0) & (codes != cons)
            elif flag in self.slot_flags:
                hits = self.slot_flags[flag][row]
            else:
                continue
            for slot in np.flatnonzero(hits):
                out[int(slot)].append(flag)
        return out

    def raters(self, row: int, order: Sequence[int]) -> list[tuple[str, str, list[int]]]:
        """``(rater, role, codes in page order)`` of every physician who labelled item ``row``
        (the extension's adjudicator so named), then every paper evaluator and submitted
        judge."""
        rel = self.release
        extension = str(self.split[row]) == "extension"
        grid: list[tuple[str, str, list[int]]] = []
        for p, rater in enumerate(rel.roster.physicians):
            codes = self.physician_labels[p, row]
            if (codes == vocab.MISSING_CODE).all():
                continue
            role = "adjudicator" if extension and rater == rel.roster.adjudicator else "physician"
            grid.append((rater, role, [int(codes[s]) for s in order]))
        for name, labels, role in self.judges.every():
            grid.append((name, role, [int(labels[row][s]) for s in order]))
        return grid

    def view(
        self,
        item_id: str,
        blind: bool = False,
        flags: Sequence[str] = (),
        judge: str | None = None,
    ) -> ItemView:
        """The item's header (escaped HTML), its answers and every label it got; ``html`` is
        the page's view of both (answer cards and the label grid, ``flags`` marked)."""
        row = self.find(item_id)
        if row is None:
            raise KeyError(item_id)
        rel = self.release
        qid = str(rel.item_ids[row])
        order = blind_order(qid) if blind else list(range(vocab.N_SLOTS))
        names = [f"Answer {k + 1}" for k in range(vocab.N_SLOTS)]
        students = rel.roster.students
        answers = rel.answers.iloc[row * vocab.N_SLOTS : (row + 1) * vocab.N_SLOTS]
        cons, held = self.consensus[row], bool(self.held_out[row])
        hits = self.triggers(row, flags, judge)
        e = html.escape
        ans_rows, cards = [], []
        for pos, slot in enumerate(order):
            a = answers.iloc[slot]
            votes = None if held else (
                int(a["votes_richtig"]), int(a["votes_falsch"]), int(a["votes_keine_angabe"])
            )  # fmt: skip
            adjudicated = not held and bool(a["adjudicated"])
            model = "(hidden)" if blind else students[slot].name
            answer_text = "" if a["answer"] is None else str(a["answer"])
            ans_rows.append(
                {
                    "answer": names[pos],
                    "model": model,
                    "text": answer_text,
                    "consensus": HELD_OUT if held else label_text(int(cons[slot])) or "unresolved",
                    "votes": "" if votes is None else vote_split(*votes),
                    "agreement": "" if votes is None else agreement(*votes),
                    "adjudicated": "" if held else "yes" if adjudicated else "no",
                }
            )
            cards.append(
                answer_card(
                    names[pos],
                    model,
                    answer_text,
                    int(cons[slot]),
                    votes,
                    adjudicated=adjudicated,
                    triggers=hits[slot],
                    reviews=self.reviews.get(str(a["answer_id"]), ()),
                )
            )
        grid = self.raters(row, order)
        label_rows: list[dict[str, str]] = []
        for rater, role, codes in grid:
            label_rows.append(
                {"rater": rater, "role": role}
                | {names[pos]: label_text(c) for pos, c in enumerate(codes)}
            )
        q = rel.questions.iloc[row]
        facts = [
            f"split {e(self.split[row])}",
            f"tier {e(str(self.tier_names[row]))}",
            EXACT if self.lexical[row] else NO_MATCH,
        ]
        if self.has_specialty and self.specialty[row]:
            facts.append(f"specialty {e(str(self.specialty[row]))}")
        note = HELD_OUT_LINE if held else ""
        header = item_header(qid, facts, str(q["question"]), str(q["reference_answer"]), note)
        page = (
            header
            + f'<ol class="mq-answers">{"".join(cards)}</ol>'
            + label_grid(grid, [int(cons[s]) for s in order], [bool(hits[s]) for s in order], held)
        )
        return ItemView(qid, header, pd.DataFrame(ans_rows), pd.DataFrame(label_rows), page)
