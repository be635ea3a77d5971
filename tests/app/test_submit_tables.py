"""The Submit tab's result tables: only those that apply to the result's kind are shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from medqade.app.config import SpaceConfig
from medqade.dataset.release import Release

JUDGE_ONLY = (
    "Per answer slot (core)",
    "Confusion matrix (judge label x consensus)",
    "Abstention by tier",
    "Self and family bias (percentage points, vs out-of-family evaluators)",
    "Majority-vote panels with and without the submission (core)",
    "Answers where the judge contradicts a unanimous physician panel",
)
BOTH = ("Summary", "By difficulty tier and lexical stratum")


def _render(demo: Any, path: Path, kind: str, name: str) -> dict[str, Any]:
    fns = {getattr(f.fn, "__name__", ""): f for f in demo.fns.values()}
    args = [str(path), kind, name, f"{name}-1", "", "GPT", "", "", "", "", "", ""]
    status, _, _, shown = fns["submit"].fn(*args, False, None, None)
    assert status.startswith("Accepted"), status
    render = fns["render_result"]
    out = render.fn(shown)
    labels = [getattr(c, "label", None) for c in render.outputs]
    return {label: value for label, value in zip(labels, out, strict=True) if label}


def test_submit_tables_hidden_for_model_answers(
    sample_release: Release, judge_csv: Path, answers_csv: Path, tmp_path: Path
) -> None:
    """A model-answers result hides the judge-only tables (they showed as empty "1 | 2 | 3"
    grids); a judge result after it shows them again."""
    from medqade.app.ui import build_app

    results = tmp_path / "results"
    cfg = SpaceConfig(results_dir=results, rate_limit=0, resamples=20)
    demo = build_app(sample_release, results, cfg, background=False, analyses=False)
    answers = _render(demo, answers_csv, "answers", "My model")
    for label in JUDGE_ONLY:
        assert answers[label]["visible"] is False, label
    for label in BOTH:
        assert answers[label].get("visible", True) is not False, label
        assert len(answers[label]["value"]), label  # applies: it has rows
    judge = _render(demo, judge_csv, "judge", "My judge")
    for label in (*JUDGE_ONLY, *BOTH):
        assert judge[label].get("visible", True) is True, label


def test_problems_csv_comes_from_the_sessions_own_submission(
    sample_release: Release, bad_judge_csv: Path, tmp_path: Path
) -> None:
    """The problems CSV is written by the submission itself and shown from the session's
    server-side result (a small value: the file's path, never the table), so the page still
    offers it while nothing a client sends can make the Space write one."""
    import pandas as pd

    from medqade.app.tab_submit import Shown
    from medqade.app.ui import build_app

    results = tmp_path / "results"
    cfg = SpaceConfig(results_dir=results, rate_limit=0, resamples=20)
    demo = build_app(sample_release, results, cfg, background=False, analyses=False)
    fns = {getattr(f.fn, "__name__", ""): f for f in demo.fns.values()}
    args = [str(bad_judge_csv), "judge", "Mine", "", "", "", "", "", "", "", "", ""]
    status, _, problems, shown = fns["submit"].fn(*args, False, None, None)
    assert status.startswith("Not accepted") and len(problems) == 2
    assert isinstance(shown, Shown) and shown.record_id is None and shown.problems_file
    render = fns["render_result"]
    at = [getattr(c, "label", None) for c in render.outputs].index("Problems CSV")
    update = render.fn(shown)[at]
    assert update["visible"] is True and update["value"] == shown.problems_file
    assert len(pd.read_csv(update["value"])) == 2
    assert render.fn(None)[at]["visible"] is False  # a session without a submission
