"""The Submit tab's handlers: ``/submit``'s parameters in the form's order, the outcome as
the page shows it, uploads discarded only inside Gradio's upload folder, and the Hub
``.eval_results`` offered only with a Hub dataset."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from medqade.app import tab_submit
from medqade.app.context import TabContext
from medqade.app.exports import Exports
from medqade.app.submit_form import FORM
from medqade.app.tab_submit import WARNINGS_KEPT, Shown, SubmitHandlers, discard_upload
from medqade.cli import main
from medqade.dataset.release import Release
from medqade.files.problems import Problem
from medqade.scoring.policy.policy import Outcome

from .helpers import judge_variant, make_state


def test_submit_takes_the_form_in_its_order() -> None:
    params = list(inspect.signature(SubmitHandlers.submit).parameters)
    assert params[0] == "self" and params[-1] == "profile"
    assert tuple(params[1:-1]) == FORM


def test_discard_upload_deletes_only_inside_the_upload_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "gradio"
    monkeypatch.setattr(tab_submit.gradio_utils, "get_upload_folder", lambda: str(root))
    inside = root / "abc123" / "labels.csv"
    inside.parent.mkdir(parents=True)
    inside.write_text("x", encoding="utf-8")
    outside = tmp_path / "mine.csv"
    outside.write_text("x", encoding="utf-8")
    assert discard_upload(str(inside)) is True
    assert not inside.exists() and not inside.parent.exists()  # its empty folder too
    assert discard_upload(str(outside)) is False and outside.exists()
    assert discard_upload(None) is False and discard_upload("") is False
    assert discard_upload(str(root / "missing.csv")) is False
    assert root.is_dir()  # the upload folder itself stays


def test_an_outcome_as_status_json_problems_and_what_is_kept() -> None:
    problem = Problem("f.csv", 3, "bad label", column="label", value="x", fix="use Richtig")
    warnings = tuple(f"w{k}" for k in range(WARNINGS_KEPT + 3))
    refused = Outcome(False, "1 problem found", problems=(problem,), warnings=warnings)
    status, result, problems, shown = tab_submit.shown_outcome(refused, "p.csv")
    assert status == "Not accepted: 1 problem found"
    assert result["ok"] is False and result["record"] is None
    assert result["warnings"] == list(warnings)  # the JSON answer keeps them all
    assert problems.to_dict("records")[0]["problem"] == "bad label"
    assert shown == Shown(None, (*warnings[:WARNINGS_KEPT], "... and 3 more warnings"), "p.csv")


def test_eval_results_need_a_hub_dataset() -> None:
    assert tab_submit.eval_results_text({"kind": "judge"}, None, "space/x") is None


RESAMPLES = 10  # the Space state's of make_state


def _handlers(release: Release, tmp_path: Path) -> SubmitHandlers:
    state = make_state(release, tmp_path / "results")
    exports = Exports(tmp_path / "exports")
    return SubmitHandlers(TabContext(release, state.config, state, exports))


def _form(**fields: Any) -> dict[str, Any]:
    """``/submit``'s arguments by name: the metadata left empty, then ``fields``."""
    args: dict[str, Any] = dict.fromkeys(FORM, "")
    args.update(kind="judge", family=None, prompt=None, validate_only=False, labels_file=None)
    return args | fields | {"profile": None}


def _costed(release: Release, folder: Path, usage: dict[str, int]) -> Path:
    rows = judge_variant(release, 3).to_dict(orient="records")
    lines = [json.dumps({"meta": {"usage": usage}})] + [json.dumps(r) for r in rows]
    path = folder / "costed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_prices_reach_the_record_as_the_cli_flags_do(
    sample_release: Release, built_sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37: the form's price fields and ``score --price-in/--price-out`` make one record."""
    path = _costed(sample_release, tmp_path, {"input_tokens": 60_000, "output_tokens": 900})
    data = ["--data", str(built_sample), "--resamples", str(RESAMPLES), "--json"]
    prices = ["--price-in", "0.15", "--price-out", "0.6"]
    assert main(["score", str(path), *data, "--name", "Priced", *prices]) == 0
    cli = json.loads(capsys.readouterr().out)
    handlers = _handlers(sample_release, tmp_path)
    status, result, _, _ = handlers.submit(
        **_form(file=str(path), name="Priced", price_in=" 0.15 ", price_out="0.6")
    )
    assert status.startswith("Accepted"), status
    space = result["record"]
    assert space["id"] == cli["id"]
    usage = {"input_tokens": 60_000, "output_tokens": 900, "price_in": 0.15, "price_out": 0.6}
    assert space["meta"]["usage"] == cli["meta"]["usage"] == usage
    cost = space["behaviour"]["cost"]
    answers = cost["answers"]
    expected = (1000 * 60_000 / answers * 0.15 + 1000 * 900 / answers * 0.6) / 1e6
    assert cost["eur_per_1000"] == pytest.approx(expected, rel=1e-12)
    assert result["warnings"] == []  # a cost: nothing to say


@pytest.mark.parametrize("price", ["-1", "nan", "inf", "zwei Euro"])
def test_a_bad_price_is_refused_by_both_with_one_message(
    sample_release: Release,
    built_sample: Path,
    judge_csv: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    price: str,
) -> None:
    handlers = _handlers(sample_release, tmp_path)
    status, result, problems, shown = handlers.submit(**_form(file=str(judge_csv), price_in=price))
    assert status.startswith("Not accepted") and result["record"] is None
    (row,) = problems.to_dict("records")
    assert row["problem"] == "expected a non-negative finite number (EUR per million tokens)"
    assert row["column"] == "meta.usage.price_in"
    assert shown.record_id is None and not list((tmp_path / "results").glob("*.json"))
    if price == "zwei Euro":
        return  # argparse refuses a text itself: the Space's own case
    argv = ["score", str(judge_csv), "--data", str(built_sample), "--resamples", "0"]
    assert main([*argv, f"--price-in={price}"]) == 2
    err = capsys.readouterr().err
    assert row["problem"] in err and "meta.usage.price_in" in err
    assert "give the price of a million input tokens in EUR" in err


def test_a_price_without_token_counts_is_kept_and_said(
    sample_release: Release, judge_csv: Path, tmp_path: Path
) -> None:
    handlers = _handlers(sample_release, tmp_path)
    status, result, _, shown = handlers.submit(**_form(file=str(judge_csv), price_in="0.2"))
    assert status.startswith("Accepted"), status
    record = result["record"]
    assert record["meta"]["usage"] == {"price_in": 0.2}
    assert record["behaviour"]["cost"] is None
    (note,) = [w for w in result["warnings"] if "no cost" in w]
    assert "input_tokens" in note and "price_out" in note
    assert note in record["warnings"] and note in shown.warnings
