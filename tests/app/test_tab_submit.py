"""The Submit tab's handlers: ``/submit``'s parameters in the form's order, the outcome as
the page shows it, uploads discarded only inside Gradio's upload folder, and the Hub
``.eval_results`` offered only with a Hub dataset."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from medqade.app import tab_submit
from medqade.app.submit_form import FORM
from medqade.app.tab_submit import WARNINGS_KEPT, Shown, SubmitHandlers, discard_upload
from medqade.files.problems import Problem
from medqade.scoring.policy.policy import Outcome


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
