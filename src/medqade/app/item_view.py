"""One Browse item as escaped HTML: answer cards, the header and the grid of every label.

One card per answer (consensus, the physicians' vote split such as ``7 R / 2 F / 1 k.A.``,
*unanimous* or *split*, the active filter's trigger, review notes with their line breaks) and
one compact grid of every label (physicians, paper evaluators, submitted judges), each label
that contradicts the consensus marked. Formatting only: every text is escaped; the numbers and
flags come from :class:`medqade.app.browse.BrowseIndex`.
"""

from __future__ import annotations

import html
import urllib.parse
from collections.abc import Iterable, Sequence
from typing import Final

from medqade import consensus, vocab

SHORT: Final = {vocab.RICHTIG_CODE: "R", vocab.FALSCH_CODE: "F", vocab.ABSTAIN_CODE: "k.A."}
"""Short label codes of the item grid (the legend spells them out)."""
UNANIMOUS: Final = "unanimous"
SPLIT: Final = "split"
ABSTAINED_ONLY: Final = "agree, some k.A."
NOBODY: Final = "no physician label"
HELD_OUT: Final = "held out"
"""What a held-out answer shows in place of its consensus (and a held-out item as its tier)."""
HELD_OUT_LINE: Final = (
    "The physicians' labels of this question set (consensus, votes, difficulty) are held out "
    "for the leaderboard's contamination check: judges are scored on them, nobody sees them."
)


def agreement(richtig: int, falsch: int, abstained: int) -> str:
    """*unanimous* (every physician who rated the answer gave the same substantive label),
    *split* (both Richtig and Falsch), else agreement with some ``Keine Angabe``."""
    # one rater suffices here: the tag describes the answer's votes as they are
    if consensus.unanimous(richtig, falsch, min_votes=1) != vocab.MISSING_CODE:
        return UNANIMOUS if not abstained else ABSTAINED_ONLY
    if richtig and falsch:
        return SPLIT
    return NOBODY if not abstained else "all k.A."


def vote_split(richtig: int, falsch: int, abstained: int) -> str:
    """``"7 R / 2 F / 1 k.A."``: the physicians' labels of one answer."""
    return f"{richtig} R / {falsch} F / {abstained} k.A."


def label_text(code: int) -> str:
    """The German label of a code; an empty string for a missing label."""
    return "" if code == vocab.MISSING_CODE else vocab.CODE_LABELS[int(code)]


def _lines(text: str) -> str:
    """``text`` escaped, its line breaks kept as ``<br>`` (a review note may span lines)."""
    return "<br>".join(html.escape(line) for line in text.splitlines())


def answer_card(
    name: str,
    model: str,
    text: str,
    consensus_code: int,
    votes: tuple[int, int, int] | None,
    *,
    adjudicated: bool,
    triggers: Sequence[str],
    reviews: Iterable[str],
) -> str:
    """One answer's card: its name and model, the answer, the consensus, the physicians' votes
    (Richtig, Falsch, Keine Angabe), the agreement badge, the filters it triggers and the
    review notes. ``votes`` ``None``: the answer's labels are held out, and it says so instead."""
    e = html.escape
    trigger = "".join(f'<span class="mq-badge mq-trigger">filter: {e(x)}</span>' for x in triggers)
    done = " · adjudicated" if adjudicated else ""
    reviewed = "".join(
        f'<div class="mq-review" lang="de">Review {_lines(line)}</div>' for line in reviews
    )
    if votes is None:
        meta = f'<span class="mq-cons mq-held-out">labels {HELD_OUT}</span>{trigger}'
    else:
        agree = agreement(*votes)
        meta = (
            f'<span class="mq-cons mq-c{consensus_code}">consensus '
            f"{e(label_text(consensus_code) or 'unresolved')}</span> · physicians "
            f'{vote_split(*votes)}{done} <span class="mq-badge '
            f'mq-{agree.split(",")[0].replace(" ", "-")}">{e(agree)}</span>{trigger}'
        )
    return (
        f'<li class="mq-answer{" mq-hit" if triggers else ""}">'
        f'<div class="mq-answer-head"><strong>{name}</strong> · {e(model)}</div>'
        f'<div class="mq-answer-text" lang="de">{e(text) or "<em>(no answer)</em>"}'
        f'</div><div class="mq-answer-meta">{meta}</div>{reviewed}</li>'
    )


def item_header(
    item_id: str, facts: Sequence[str], question: str, reference: str, note: str = ""
) -> str:
    """The item's header: id, facts (already escaped), its link, question and reference, and
    ``note`` (e.g. :data:`HELD_OUT_LINE`) in a line of its own."""
    e = html.escape
    line = f'<p class="mq-held-out-note">{e(note)}</p>' if note else ""
    link = "?item=" + urllib.parse.quote(item_id, safe="")
    return (
        f'<div class="mq-item" data-mq-item="{e(item_id)}"><p class="mq-item-id" tabindex="-1">'
        f"<strong>{e(item_id)}</strong> · {' · '.join(facts)} · link: "
        f'<a class="mq-link" data-mq-link href="{e(link)}">{e(link)}</a></p>'
        f'<p class="mq-question" lang="de">{e(question)}</p>'
        f'<p class="mq-reference" lang="de">Reference: <strong>'
        f"{e(reference)}</strong></p>{line}</div>"
    )


def label_grid(
    rows: list[tuple[str, str, list[int]]], cons: list[int], hit: list[bool], held: bool = False
) -> str:
    """Every label of the item in one compact table (answers as columns); ``held``: the
    consensus row says the labels are held out."""
    e = html.escape
    head = "".join(
        f'<th scope="col"{" class=mq-hit" if h else ""}>A{k + 1}</th>' for k, h in enumerate(hit)
    )

    def cell(code: int, consensus: int) -> str:
        if code == vocab.MISSING_CODE:
            return '<td class="mq-l mq-missing" title="no label">–</td>'
        short, full = SHORT[code], label_text(code)
        contra = code != vocab.ABSTAIN_CODE and consensus >= 0 and code != consensus
        if contra:
            title = f"{full}: contradicts the consensus ({label_text(consensus)})"
            return f'<td class="mq-l mq-c{code} mq-contra" title="{e(title)}">{short} ≠</td>'
        return f'<td class="mq-l mq-c{code}" title="{e(full)}">{short}</td>'

    first = "".join(
        f'<td class="mq-l mq-missing" title="{HELD_OUT}">–</td>'
        if held
        else f'<td class="mq-l mq-c{c}">{SHORT.get(c, "?") if c >= 0 else "?"}</td>'
        for c in cons
    )
    name = f"consensus ({HELD_OUT})" if held else "consensus"
    body = [f'<tr class="mq-consensus"><th scope="row">{name}</th>{first}</tr>']
    group = ""
    for rater, role, codes in rows:
        kind = "physicians" if role in ("physician", "adjudicator") else role + "s"
        if kind != group:
            group = kind
            body.append(f'<tr class="mq-group"><th colspan="{len(cons) + 1}">{e(kind)}</th></tr>')
        who = e(rater) + (" <small>adjudicator</small>" if role == "adjudicator" else "")
        body.append(
            f'<tr><th scope="row">{who}</th>'
            + "".join(cell(c, cons[k]) for k, c in enumerate(codes))
            + "</tr>"
        )
    legend = (
        "R = Richtig, F = Falsch, k.A. = Keine Angabe, – = no label, ? = unresolved; "
        "<span class=mq-contra>≠</span> contradicts the physician consensus; "
        "highlighted columns triggered the active filter."
    )
    return (
        f'<div class="mq-grid-wrap"><table class="mq-grid"><caption>{legend}</caption>'
        f'<thead><tr><th scope="col">rater</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
