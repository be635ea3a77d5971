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
             result JSON (``ok``, ``message``, ``record``, ``summary``, ``warnings``,
             ``dry_run``: with ``validate_only`` the record is scored, not stored),
             problems table
/browse      ``(split, tier, lexical, specialty, filters, judge, search)`` -> count, items
/item        ``(item_id, blind)`` -> header (escaped HTML), answers table, labels table
/compare     ``(a, b, view)`` -> JSON: A - B of kappa, PA, PABAK with paired 95% CIs,
             per slot, per tier, and the answers the two label differently
============ =========================================================================

Every other handler (rendering a result, downloads, tab loads, deep links) is private. Text
from submitters only reaches the page as Dataframe cells, a read-only Textbox or escaped HTML.

The page keeps its address in step with what it shows (``?tab=``, ``?view=``, ``?item=``; a
script in :data:`medqade.app.page_head.HEAD`, which also posts the query string to the Hub page
around the Space's iframe), and such an address opens the same state. Opening a tab sends
nothing that did not change: each tab keeps a key of what it shows and the server answers
``gr.skip()`` for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gradio as gr

from medqade.app import assets, deferred, prose, text
from medqade.app.accounts import AccountHasher
from medqade.app.config import SpaceConfig
from medqade.app.context import TabContext
from medqade.app.exports import Exports
from medqade.app.figure_cache import SEAL_PURPOSE, FigureCache
from medqade.app.page_head import CSS, HEAD
from medqade.app.state import SpaceState
from medqade.app.tab_about import add_about_tab, templates
from medqade.app.tab_analysis import Plots, add_analysis_tab
from medqade.app.tab_browse import add_browse_tab
from medqade.app.tab_compare import add_compare_tab
from medqade.app.tab_leaderboard import add_leaderboard_tab
from medqade.app.tab_submit import add_submit_tab
from medqade.dataset.release import Release


def build_app(
    release: Release,
    results_dir: Path,
    config: SpaceConfig | None = None,
    *,
    scoring_release: Release | None = None,
    state: SpaceState | None = None,
    background: bool = True,
    analyses: bool = True,
    write_lock: Any = None,
) -> gr.Blocks:
    """The Space over ``release`` with submissions stored in ``results_dir``.

    ``release`` is what the Space shows, the public build as published; ``scoring_release``
    (default ``release``) is what it scores on: that build with its held-out labels restored
    from the private part (:mod:`medqade.app.held_out`; no held-out label is ever shown).

    ``background`` computes the reference records (when not cached on disk), the stored
    judges' labels and the paper's analyses in a thread, so the page serves at once;
    ``analyses=False`` skips :func:`medqade.analyses.reproduce` (tests). ``write_lock`` is held
    around every write into ``results_dir`` (the Hub mirror's lock). The state is reachable
    as ``demo.medqade_state`` (its download folder as ``demo.medqade_exports``) for tests and
    benchmarks.
    """
    config = config or SpaceConfig(results_dir=Path(results_dir))
    # one key for the account hashes and, derived from it, the figure cache's seal
    account = state.account if state is not None else AccountHasher(config)
    scored = state.scoring_release if state is not None else scoring_release or release
    disk = (
        FigureCache.of(scored, config.resamples, config.seed, secret=account.derive(SEAL_PURPOSE))
        if analyses
        else None
    )
    plots_cache = Plots(disk)
    st = state or SpaceState(
        release,
        Path(results_dir),
        config,
        scoring_release=scored,
        write_lock=write_lock,
        background=background,
        analyses=analyses,
        on_report=plots_cache.warm,
        cached_report=plots_cache.load,
        account=account,
    )
    plots_cache.records = st.records  # the first judge's figures are drawn with the report's
    exports = Exports()
    judge_template, answers_template = templates(release, exports)
    ctx = TabContext(release=release, config=config, state=st, exports=exports)

    demo = gr.Blocks(title=text.TITLE, analytics_enabled=False, delete_cache=config.delete_cache)
    with demo:
        if release.synthetic:
            gr.HTML(text.SYNTHETIC_BANNER, elem_id="mq-synthetic-banner")
        prose.block(text.INTRO)
        with gr.Tabs(overflow_behavior="wrap") as tabs:
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
        compare.wire(tabs, browse)
        leaderboard.wire_compare(tabs, compare)
        leaderboard.load(demo)
        browse.load(demo, tabs)
        compare.load(demo)
        tab_ids = [str(t.id) for t in tabs.children if getattr(t, "id", None)]
        # sent hidden, shown by the first event: the page draws the judges sooner
        held = deferred.hold_back(tabs, "leaderboard", (leaderboard.models, *leaderboard.downloads))

        def url_state(request: gr.Request) -> tuple[Any, ...]:
            """Show what the page held back; open the tab and view of a
            ``?tab=...&view=...`` link (``?item=`` wins)."""
            params = request.query_params if request else {}
            tab = str(params.get("tab", "") or "")
            view = str(params.get("view", "") or "")
            select = (
                gr.update(selected=tab)
                if tab in tab_ids and tab != "leaderboard" and not params.get("item")
                else gr.skip()
            )
            return select, (view if view == "full" else gr.skip()), *deferred.shown(held)

        demo.load(
            url_state,
            None,
            [tabs, leaderboard.view, *held],
            show_progress_on=leaderboard.view,
            api_visibility="private",
            queue=False,
        )

    demo.medqade_state = st  # type: ignore[attr-defined]
    demo.medqade_exports = exports  # type: ignore[attr-defined]
    return demo


def launch_kwargs(config: SpaceConfig) -> dict[str, Any]:
    """The ``Blocks.launch`` settings of the Space (upload limit, CSS, no analytics, Gradio's
    front-end files answered from memory: :mod:`medqade.app.assets`)."""
    return {
        "server_name": config.host,
        "server_port": config.port,
        "max_file_size": config.max_upload_bytes,
        "css": CSS,
        "head": HEAD,
        "show_error": False,
        "app_kwargs": {"middleware": assets.middleware()},  # Gradio's files from memory
    }


__all__: Sequence[str] = ["build_app", "launch_kwargs"]
