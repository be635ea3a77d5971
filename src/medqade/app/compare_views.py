"""Display tables of a :class:`~medqade.scoring.board.comparison.Comparison` (formatting only).

Every number and every "significant" mark comes from :mod:`medqade.scoring.board.comparison`
(decided there on unrounded values); this module rounds for display and builds links into Browse.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlencode

import pandas as pd

from medqade.app.cells import COMPARE_TOKEN, ci_text, number, plain
from medqade.app.html_table import Link
from medqade.scoring.board import Comparison, Difference
from medqade.scoring.record import alt_test_text

METRIC_NAMES: Final = {"kappa": "kappa", "pa": "PA", "pabak": "PABAK"}
DIFF_COLUMNS: Final = ("", "A", "B", "A - B", "A - B 95% paired CI", "significant")
DISAGREEMENT_COLUMNS: Final = ("answer", "A", "B", "consensus", "open in Browse")
ITEM_DATA: Final = "mq-item"
"""The ``data-*`` attribute of an *open in Browse* link that names its item (read by the
page script of :mod:`medqade.app.tab_compare`)."""


def _signed(x: float) -> str:
    return "" if math.isnan(number(x)) else f"{number(x):+.3f}"


def _row(label: str, d: Difference, metric: str) -> dict[str, Any]:
    est = getattr(d, metric)
    return {
        "": label,
        "A": number(d.a.metric(metric).value),
        "B": number(d.b.metric(metric).value),
        "A - B": _signed(est.value),
        "A - B 95% paired CI": ci_text(est.low, est.high),
        "significant": "yes" if est.excludes_zero() else "",
    }


IN_PLACE: Final = "in each physician's place"
AGAINST_CONSENSUS: Final = "against the consensus (as on the leaderboard)"


def overall_table(c: Comparison) -> pd.DataFrame:
    """Macro kappa, PA and PABAK of A and B and their paired difference. A judge against
    the physicians: those rows are labelled as the judge *in each physician's place*, and
    rows of the judge's agreement with the consensus of all ten (what every other view
    shows) follow, the judge's column only."""
    judge = c.judge_side
    if judge is None:
        return pd.DataFrame([_row(METRIC_NAMES[m], c.overall, m) for m in METRIC_NAMES])
    rows = [_row(f"{METRIC_NAMES[m]}, {IN_PLACE}", c.overall, m) for m in METRIC_NAMES]
    cons = c.against_consensus
    if cons is not None:
        for m, name in METRIC_NAMES.items():
            value = number(cons.metric(m).value)
            rows.append(
                {
                    "": f"{name}, {AGAINST_CONSENSUS}",
                    "A": value if judge == "a" else None,
                    "B": value if judge == "b" else None,
                    "A - B": "",
                    "A - B 95% paired CI": "",
                    "significant": "",
                }
            )
    return pd.DataFrame(rows, columns=list(DIFF_COLUMNS))


def slots_table(c: Comparison, names: Mapping[str, str]) -> pd.DataFrame:
    """Kappa per student slot (display names), A, B and A - B."""
    return pd.DataFrame([_row(names.get(s, s), d, "kappa") for s, d in c.slots.items()])


def tiers_table(c: Comparison) -> pd.DataFrame:
    """Kappa per difficulty tier (tiers without items are left out)."""
    return pd.DataFrame([_row(f"T{t}", d, "kappa") for t, d in c.tiers.items() if d is not None])


def browse_link(item: str, base_url: str = "") -> Link | str:
    """A link (``?tab=browse&item=S-C01``, the id in ``data-mq-item``) that opens ``item`` in
    Browse; the id as text when it is not a safe token (drawn escaped, never a link)."""
    if not COMPARE_TOKEN.match(item):
        return item
    href = f"{base_url}?{urlencode({'tab': 'browse', 'item': item})}"
    return Link(item, href, ((ITEM_DATA, item),))


def linked_item(value: object) -> str | None:
    """The item id an *open in Browse* click sent (public input from the page): a safe token,
    else ``None``."""
    if not isinstance(value, str) or not COMPARE_TOKEN.match(value):
        return None
    return value


def disagreements_table(c: Comparison, base_url: str = "") -> pd.DataFrame:
    """The answers A and B label differently, each with a link that opens it in Browse (the
    page opens it on the Browse tab in place; see :mod:`medqade.app.tab_compare`)."""
    rows = []
    for row in c.disagreements:
        item = str(row["answer_id"]).split("/", 1)[0]
        rows.append(
            {
                "answer": row["answer_id"],
                "A": row["a"],
                "B": row["b"],
                "consensus": row["consensus"],
                "open in Browse": browse_link(item, base_url),
            }
        )
    return pd.DataFrame(rows, columns=list(DISAGREEMENT_COLUMNS))


def _winner_text(c: Comparison) -> str:
    """Who agrees better, worded for the side that is the physicians (their kappa is how well
    they agree with each other, leave-one-out), escaped Markdown."""
    win, lose = (c.a, c.b) if c.better == "a" else (c.b, c.a)
    if win.is_physicians:
        return (
            f"**the physicians agree with each other** better than {plain(lose.name)} "
            "agrees with them"
        )
    if lose.is_physicians:
        return (
            f"**{plain(win.name)}** agrees with the physicians better than they agree with "
            "each other"
        )
    return f"**{plain(win.name)}** agrees better with the physicians"


def headline(c: Comparison) -> str:
    """One escaped Markdown paragraph: who is compared, on what, and the answer."""
    a, b = plain(c.a.name), plain(c.b.name)
    k = c.overall.kappa
    if c.better is None:
        answer = "no significant kappa difference (the paired 95% interval includes 0)"
    else:
        answer = f"{_winner_text(c)} (paired 95% interval excludes 0)"
    vs = ""
    if c.versus_physicians is not None:
        block = c.versus_physicians["alt_test"]
        alt = "no alt-test (no core labels)" if block is None else alt_test_text(block)
        head = c.versus_physicians["headline"]
        low, high = (head.get("kappa_ci") or [None, None])[:2]
        answer += " with these ten physicians held fixed"
        vs = (
            " The judge took each physician's place in turn (abstentions count as "
            f"disagreements): verdict **{plain(c.versus_physicians['verdict'] or 'n/a')}** "
            f"(kappa d {_signed(head['kappa'])} [{ci_text(low, high)}] over questions and "
            f"physicians, decided on {plain(head['decided_on'])}). "
            f"{plain(alt[0].upper() + alt[1:])}."
        )
        vs += _in_place_text(c)
    if c.board is not None:
        vs += " " + plain(c.board.text())
    return (
        f"**A** = {a} ({plain(c.a.source)}), **B** = {b} ({plain(c.b.source)}); {c.view} view, "
        f"{c.n_items:,} questions, {c.resamples:,} paired question resamples. Kappa A - B = "
        f"{_signed(k.value)} [{ci_text(k.low, k.high)}]: {answer}. They label "
        f"{c.n_disagreements:,} of {c.n_both:,} answers differently.{vs}"
    )


def _in_place_text(c: Comparison) -> str:
    """The judge's two kappas, each labelled (escaped Markdown; empty for two judges)."""
    judge, cons = c.judge_side, c.against_consensus
    if judge is None or cons is None:
        return ""
    place = c.overall.a if judge == "a" else c.overall.b
    return (
        f" Its kappa {IN_PLACE} is {_signed(place.kappa.value).lstrip('+')}; its kappa "
        f"{AGAINST_CONSENSUS} is {_signed(cons.kappa.value).lstrip('+')}."
    )


def link(a: str, b: str, view: str) -> str:
    """The page address (query string) that opens this comparison."""
    return "?" + urlencode({"tab": "compare", "a": a, "b": b, "view": view})


def headline_html(c: Comparison) -> str:
    """:func:`headline` as escaped HTML carrying the compared rows (``data-mq-a``/``-b``, read
    by the page script to keep the address in step) and a link that reopens it."""
    text = headline(c)
    parts = text.split("**")
    body = "".join(
        f"<strong>{p}</strong>" if k % 2 else p for k, p in enumerate(parts)
    )  # the pieces are already escaped by headline()
    href = link(c.a.token, c.b.token, c.view)
    e = html.escape
    return (
        f'<div class="mq-compare" data-mq-a="{e(c.a.token)}" data-mq-b="{e(c.b.token)}" '
        f'data-mq-view="{e(c.view)}"><p>{body}</p><p>Link to this comparison: '
        f'<a class="mq-link" data-mq-link href="{e(href)}">{e(href)}</a></p></div>'
    )
