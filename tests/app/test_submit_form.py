"""The Submit tab's layout: one component per ``/submit`` parameter, the result area with
every result table, and upload types the store keeps under their own suffix."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from medqade.app import submit_form
from medqade.app.config import SpaceConfig
from medqade.app.state import FAMILY_OTHER
from medqade.dataset.release import Release
from medqade.scoring.intake.meta import FORM_KEYS
from medqade.scoring.policy.store import UPLOAD_SUFFIXES, upload_suffix


def test_every_upload_type_is_stored_with_its_own_suffix() -> None:
    assert set(submit_form.UPLOAD_TYPES) == set(UPLOAD_SUFFIXES)
    assert all(upload_suffix(f"x{s.upper()}") == s for s in submit_form.UPLOAD_TYPES)


def test_form_holds_one_component_per_submit_parameter(
    sample_release: Release, tmp_path: Path
) -> None:
    ctx = SimpleNamespace(config=SpaceConfig(results_dir=tmp_path), release=sample_release)
    with gr.Blocks():
        form = submit_form.form_components(ctx)  # type: ignore[arg-type]
    assert set(form) == {*submit_form.FORM, "button"}
    assert submit_form.FORM[2 : 2 + len(FORM_KEYS)] == FORM_KEYS
    families = [c[0] for c in form["family"].choices]
    assert families == [*sample_release.roster.families, FAMILY_OTHER]
    assert form["file"].file_types == submit_form.UPLOAD_TYPES
    assert form["kind"].value == "judge"
    mib = f"{SpaceConfig(results_dir=tmp_path).max_upload_mb:g} MiB"
    assert mib in str(form["file"].label)
    assert submit_form.FORM[-2:] == ("price_in", "price_out")  # positional callers unchanged
    for key, tokens in (("price_in", "input"), ("price_out", "output")):
        field = form[key]
        assert isinstance(field, gr.Textbox) and field.value in (None, "")  # empty: no price
        assert field.label == f"Price per million {tokens} tokens (EUR)"


def test_result_area_has_every_result_table_with_its_label() -> None:
    with gr.Blocks():
        result = submit_form.result_components()
    for key, label in submit_form.RESULT_TABLES:
        assert isinstance(result[key], gr.Dataframe) and result[key].label == label
    assert isinstance(result["shown"], gr.State)
    assert result["shown"].time_to_live == submit_form.RESULT_KEPT_S
    assert not result["box"].visible and not result["result_json"].visible
