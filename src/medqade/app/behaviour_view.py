"""The Space's view of a judge's behaviour beyond agreement (issue 28): formatting only.

The judges table's behaviour columns live in :mod:`medqade.app.views` (``BEHAVIOUR_GROUPS``,
``behaviour_cells``, from the library's :mod:`medqade.scoring.board.behaviour_columns`); this module
holds a section of the Analysis tab
(:func:`add_section`): the caution, breakdown and cost figures of
:mod:`medqade.analyses.behaviour_figures` drawn from the board's judge records. Every number
is the library's; records without ``behaviour`` show empty cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from medqade.app.state import SpaceState
    from medqade.scoring.record import ScoreRecord

SECTION: Final = (
    (
        "caution",
        "Clinical caution: abstention slope across difficulty tiers",
        "How much a judge's abstention rises per difficulty tier on the core (percentage points "
        "per tier, 95% bootstrap intervals), beside the physicians' mean slope (black line, "
        "grey band its interval). Physicians abstain more on harder items; a judge at 0 never "
        "adapts. Shown beside agreement, never part of kappa or the rank.",
    ),
    (
        "breakdown",
        "Agreement by specialty",
        "Cohen's kappa of every judge with the physician consensus per specialty (abstentions "
        "count as disagreements); intervals are in each record's behaviour block.",
    ),
    (
        "cost",
        "Cost versus agreement: the Pareto frontier",
        "Core kappa (95% interval) against the cost per 1,000 judged answers (EUR at the prices "
        "given when scoring, else input plus output tokens; a log axis when the costs span a "
        "factor of 10). The step line is the Pareto frontier: the judges no other judge beats "
        "on both agreement and cost, i.e. the best kappa any judge reaches at each budget.",
    ),
)


EMPTY: Final[Mapping[str, str]] = {
    "caution": "No judge record on the board has a caution slope (abstention by difficulty "
    "tier) yet; the figure appears once one has.",
    "breakdown": "No judge record on the board has agreement by specialty yet; the figure "
    "appears once one has.",
    "cost": "Fewer than two judges on the board reported their token counts, so there is no "
    "cost frontier to draw yet. To appear on it, submit a judge's Inspect log (`.eval`: its "
    'token counts are read from it) or a JSON Lines file whose `{"meta": ...}` line gives '
    "`usage` (`input_tokens`, `output_tokens`). For euros, also give the prices per million "
    "tokens: in the Submit tab's two price fields, as `price_in` / `price_out` in that "
    "`usage`, or with `medqade score --price-in --price-out`.",
}
"""What a figure without data says instead of drawing an empty box: why, and what to submit."""


def figures(records: Sequence[ScoreRecord]) -> dict[str, Any]:
    """The section's figures from judge records (drawn by the library); ``None`` for a figure
    no judge has data for (the page shows its :data:`EMPTY` line instead)."""
    from medqade.analyses import behaviour_figures

    judges = [r.to_json() for r in records if r.kind == "judge"]  # the library reads JSON
    count = behaviour_figures.plotted(judges)
    draw = {
        "caution": behaviour_figures.caution_figure,
        "breakdown": behaviour_figures.breakdown_heatmap,
        "cost": behaviour_figures.cost_kappa,
    }
    return {k: draw[k](judges) if count[k] else None for k in draw}


def add_section(tab: Any, state: SpaceState, encode: Any) -> None:
    """Inside the Analysis tab: the three figures, filled when the tab is opened and redrawn
    only when the stored records changed; ``encode`` turns a figure into a ``gr.Plot``
    value."""
    import gradio as gr

    plots = {}
    notes = {}
    for key, title, caption in SECTION:
        gr.Markdown(f"### {title}\n{caption}", elem_classes="mq-caption")
        notes[key] = gr.Markdown(
            EMPTY[key], visible=False, elem_id=f"mq-{key}-empty", elem_classes="mq-empty-figure"
        )
        plots[key] = gr.Plot(
            show_label=False, format="png", elem_id=f"mq-{key}-figure", elem_classes="mq-plot"
        )
    done = gr.State("")

    def fill(filled: str) -> tuple[Any, ...]:
        key = str(state.store.version)
        if key == filled:
            return tuple(gr.skip() for _ in range(2 * len(plots) + 1))
        drawn = figures(state.records())
        shown = [
            gr.update(value=None, visible=False)
            if drawn[k] is None
            else gr.update(value=encode(drawn[k]), visible=True)
            for k, _, _ in SECTION
        ]
        said = [gr.update(visible=drawn[k] is None) for k, _, _ in SECTION]
        return (*shown, *said, key)

    tab.select(
        fill,
        [done],
        [*plots.values(), *notes.values(), done],
        show_progress="hidden",
        show_progress_on=next(iter(notes.values())),  # a line, not the figures (issue 39)
        api_visibility="private",
    )
