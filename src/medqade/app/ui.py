"""The Gradio Blocks of the Space: the page frame around five tabs that call :class:`SpaceState`.

Each tab lives in its own module (:mod:`~medqade.app.tab_leaderboard`,
:mod:`~medqade.app.tab_submit`, :mod:`~medqade.app.tab_browse`,
:mod:`~medqade.app.tab_analysis`, :mod:`~medqade.app.tab_about`): ``add_*_tab`` lays it out
inside the tabs, and its ``wire`` adds its events after them. :func:`build_app` keeps the order
of components and events fixed: it sets the component ids and the private endpoints' names.

Public API endpoints (named, documented, callable with ``gradio_client``):

============ =========================================================================
/leaderboard ``(view, search)`` -> judges table, models table
/submit      ``(file, kind, name, model_id, revision, family, organisation, link, prompt,
             prompt_sha256, decoding, notes, validate_only, labels_file)`` -> status text,
             result JSON (``ok``, ``message``, ``record``, ``summary``, ``warnings``),
             problems table
/browse      ``(split, tier, lexical, specialty, filters, judge, search)`` -> count, items
/item        ``(item_id, blind)`` -> header (escaped HTML), answers table, labels table
/compare     ``(a, b, view)`` -> JSON: A - B of kappa, PA, PABAK with paired 95% CIs,
             per slot, per tier, and the answers the two label differently
============ =========================================================================

Every other handler (rendering a result, downloads, tab loads, deep links) is private. Text
from submitters only reaches the page as Dataframe cells, a read-only Textbox or escaped HTML.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import gradio as gr

from medqade.app import text
from medqade.app.config import SpaceConfig
from medqade.app.context import TabContext
from medqade.app.exports import Exports
from medqade.app.state import SpaceState
from medqade.app.tab_about import add_about_tab, templates
from medqade.app.tab_analysis import Plots, add_analysis_tab
from medqade.app.tab_browse import add_browse_tab
from medqade.app.tab_compare import add_compare_tab
from medqade.app.tab_leaderboard import add_leaderboard_tab
from medqade.app.tab_submit import add_submit_tab
from medqade.release import Release

CSS: Final = """
.mq-banner { background: #fff3cd; color: #5c4400; border: 1px solid #e0c36a;
             padding: 8px 12px; border-radius: 6px; margin-bottom: 6px; }
.mq-item .mq-question { font-size: 1.1em; margin: 6px 0; }
"""


def build_app(
    release: Release,
    results_dir: Path,
    config: SpaceConfig | None = None,
    *,
    state: SpaceState | None = None,
    background: bool = True,
    analyses: bool = True,
    write_lock: Any = None,
) -> gr.Blocks:
    """The Space over ``release`` with submissions stored in ``results_dir``.

    ``background`` computes the reference records (when not cached on disk), the stored
    judges' labels and the paper's analyses in a thread, so the page serves at once;
    ``analyses=False`` skips :func:`medqade.analyses.reproduce` (tests). ``write_lock`` is held
    around every write into ``results_dir`` (the Hub mirror's lock). The state is reachable
    as ``demo.medqade_state`` for tests and benchmarks.
    """
    config = config or SpaceConfig(results_dir=Path(results_dir))
    plots_cache = Plots()
    st = state or SpaceState(
        release,
        Path(results_dir),
        config,
        write_lock=write_lock,
        background=background,
        analyses=analyses,
        on_report=plots_cache.warm,
    )
    exports = Exports()
    judge_template, answers_template = templates(release, exports)
    ctx = TabContext(release=release, config=config, state=st, exports=exports)

    demo = gr.Blocks(title=text.TITLE, analytics_enabled=False, delete_cache=config.delete_cache)
    with demo:
        if release.synthetic:
            gr.HTML(text.SYNTHETIC_BANNER, elem_id="mq-synthetic-banner")
        gr.Markdown(text.INTRO)
        with gr.Tabs() as tabs:
            leaderboard = add_leaderboard_tab(ctx)
            submit = add_submit_tab(ctx)
            browse = add_browse_tab(ctx)
            compare = add_compare_tab(ctx)
            analysis = add_analysis_tab(ctx, plots_cache)
            add_about_tab(ctx, judge_template, answers_template)

        # events after the tabs, so the hidden API buttons sit below them, outside every tab
        leaderboard.wire()
        submit.wire(leaderboard, browse)
        browse.wire(tabs, submit.disagreements)
        analysis.wire()
        compare.wire()
        leaderboard.load(demo)
        browse.load(demo, tabs)

    demo.medqade_state = st  # type: ignore[attr-defined]
    return demo


def launch_kwargs(config: SpaceConfig) -> dict[str, Any]:
    """The ``Blocks.launch`` settings of the Space (upload limit, CSS, no analytics)."""
    return {
        "server_name": config.host,
        "server_port": config.port,
        "max_file_size": config.max_upload_bytes,
        "css": CSS,
        "show_error": False,
    }


__all__: Sequence[str] = ["build_app", "launch_kwargs"]
