"""The Submit tab offers a result's Hub ``.eval_results`` file (medqade.dataset.hub_eval)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from huggingface_hub import parse_eval_result_entries

from medqade.app.config import SpaceConfig
from medqade.dataset import hub_eval
from medqade.dataset.release import Release

DATASET = "medqade/medqade"
SPACE = "medqade/leaderboard"


def _handlers(demo: Any) -> dict[str, Any]:
    return {getattr(f.fn, "__name__", ""): f for f in demo.fns.values()}


def _submit_and_render(
    sample_release: Release, judge_csv: Path, tmp_path: Path, **config: Any
) -> tuple[Any, list[Any], dict[str, Any]]:
    from medqade.app.ui import build_app

    results = tmp_path / "results"
    cfg = SpaceConfig(results_dir=results, rate_limit=0, resamples=20, **config)
    demo = build_app(sample_release, results, cfg, background=False, analyses=False)
    fns = _handlers(demo)
    args = [str(judge_csv), "judge", "My judge", "my-judge-1", "", "GPT", "", "", "", "", "", ""]
    status, result, _, shown = fns["submit"].fn(*args, False, None, None)
    assert status.startswith("Accepted"), status
    render = fns["render_result"]
    out = render.fn(shown)
    assert len(out) == len(render.outputs)  # one value per output component
    labels = [getattr(c, "label", None) or getattr(c, "value", None) for c in render.outputs]
    return out, labels, result["record"]


def test_submit_tab_offers_eval_results_for_a_hub_dataset(
    sample_release: Release, judge_csv: Path, tmp_path: Path
) -> None:
    out, labels, record = _submit_and_render(
        sample_release, judge_csv, tmp_path, data=DATASET, space_id=SPACE
    )
    update = out[labels.index("For your model repo's .eval_results/ (YAML)")]
    assert update["visible"] is True
    path = Path(update["value"])
    assert path.name == hub_eval.eval_results_name(record)
    text = path.read_text(encoding="utf-8")
    (entry,) = parse_eval_result_entries(yaml.safe_load(text))
    assert (entry.dataset_id, entry.task_id) == (DATASET, hub_eval.JUDGE_TASK.id)
    value = hub_eval.consensus_accuracy(record)[0]  # the Hub task's metric, not the kappa
    assert entry.value == round(value, hub_eval.VALUE_DIGITS)
    assert entry.source_url == hub_eval.record_url(SPACE, record["id"])  # the record itself
    assert entry.dataset_revision == sample_release.hub_revision  # None: a local build


def test_submit_tab_local_release_offers_no_eval_results(
    sample_release: Release, judge_csv: Path, tmp_path: Path
) -> None:
    out, labels, _ = _submit_and_render(sample_release, judge_csv, tmp_path)
    update = out[labels.index("For your model repo's .eval_results/ (YAML)")]
    assert update["visible"] is False and update["value"] is None
