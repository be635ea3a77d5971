"""The Space's view of a judge's behaviour beyond agreement (issue 28): formatting only.

The judges table's behaviour columns live in :mod:`medqade.app.views` (``BEHAVIOUR_GROUPS``,
``behaviour_cells``, from the library's :mod:`medqade.scoring.behaviour_columns`); this module
holds a section of the Analysis tab
(:func:`add_section`): the caution, breakdown and cost figures of
:mod:`medqade.analyses.behaviour_figures` drawn from the board's judge records. Every number
is the library's; records without ``behaviour`` show empty cells.
"""

from __future__ import annotations

from collections.abc import Sequence
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
        "Cost versus agreement",
        "Core kappa (95% interval) against the cost per 1,000 judged answers (EUR at the prices "
        "given when scoring, else tokens), for the judges whose submission reported tokens.",
    ),
)


def figures(records: Sequence[ScoreRecord]) -> dict[str, Any]:
    """The section's figures from judge records (drawn by the library, which reads their
    JSON objects)."""
    from medqade.analyses import behaviour_figures

    judges = [r.to_json() for r in records if r.kind == "judge"]
    return {
        "caution": behaviour_figures.caution_figure(judges),
        "breakdown": behaviour_figures.breakdown_heatmap(judges),
        "cost": behaviour_figures.cost_kappa(judges),
    }


def add_section(tab: Any, state: SpaceState, encode: Any) -> None:
    """Inside the Analysis tab: the three figures, filled when the tab is opened and redrawn
    only when the stored records changed; ``encode`` turns a figure into a ``gr.Plot``
    value."""
    import gradio as gr

    plots = {}
    for key, title, caption in SECTION:
        gr.Markdown(f"### {title}\n{caption}", elem_classes="mq-caption")
        plots[key] = gr.Plot(show_label=False, format="png", elem_classes="mq-plot")
    done = gr.State("")

    def fill(filled: str) -> tuple[Any, ...]:
        key = str(state.store.version)
        if key == filled:
            return tuple(gr.skip() for _ in range(len(plots) + 1))
        drawn = figures(state.records())
        return (*(encode(drawn[k]) for k, _, _ in SECTION), key)

    tab.select(
        fill, [done], [*plots.values(), done], show_progress="hidden", api_visibility="private"
    )
