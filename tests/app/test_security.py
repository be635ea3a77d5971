"""Submitter text is never markup, file names are never paths, limits hold before parsing."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from medqade import scoring
from medqade.app import views
from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState

from .helpers import IMG, SCRIPT, judge_variant, submit_args


def test_plain_escapes_markup() -> None:
    assert views.plain(SCRIPT) == "&lt;script&gt;window.__mq_xss = 1&lt;/script&gt;"
    assert "<" not in views.plain(IMG) and '"' not in views.plain(IMG)


def test_submit_javascript_link_refused(launch, judge_csv: Path) -> None:
    app = launch()
    status, _, problems = app.client().predict(
        *submit_args(judge_csv, link="javascript:alert(1)"), api_name="/submit"
    )
    assert status.startswith("Not accepted")
    assert "not an http(s) link" in json.dumps(problems["data"])
    assert app.state.store.records() == []


def test_submit_markup_in_metadata_stays_text(launch, judge_csv: Path) -> None:
    app = launch()
    client = app.client()
    status, result, _ = client.predict(
        *submit_args(judge_csv, name=SCRIPT, organisation=IMG, notes=IMG), api_name="/submit"
    )
    assert status.startswith("Accepted")
    # stored and served as the literal text, only ever as Textbox / Dataframe cell values
    assert result["record"]["meta"]["name"] == SCRIPT
    judges, _ = client.predict("core", "mq_xss", api_name="/leaderboard")
    assert judges["data"][0][judges["headers"].index("name")] == SCRIPT
    header, _, labels = client.predict("S-C01", False, api_name="/item")
    assert "<script" not in header and "<img" not in header
    assert f"submitted: {SCRIPT}" in [r[0] for r in labels["data"]]


def test_uploaded_file_name_never_used(launch, sample_release, tmp_path: Path) -> None:
    weird = tmp_path / "..%2F..%2Fevil <img src=x onerror=y>.csv"
    judge_variant(sample_release, 0).to_csv(weird, index=False)
    app = launch()
    status, result, _ = app.client().predict(*submit_args(weird), api_name="/submit")
    assert status.startswith("Accepted")
    stored = sorted(p.name for p in (app.results / "uploads").iterdir())
    assert stored == [f"{result['record']['submission']['content_hash']}.csv"]
    text = json.dumps(result)
    assert "evil" not in text and "onerror" not in text
    assert sorted(p.name for p in app.results.iterdir()) == ["records", "reference", "uploads"]


def test_upload_over_size_limit_refused_before_parsing(
    sample_release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SpaceConfig(results_dir=tmp_path / "r", max_upload_mb=0.001, resamples=10)
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    big = tmp_path / "big.csv"
    big.write_bytes(b"question_id,model,label\n" + b"S-C01,gpt-5-nano,Richtig\n" * 100)

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("parse_submission must not see an oversized file")

    monkeypatch.setattr(scoring, "parse_submission", boom)
    outcome = state.submit(big, "judge", {}, None)
    assert not outcome.ok and "more than the limit of 1,048 bytes" in outcome.message


def test_upload_over_row_limit_refused_before_parsing(
    sample_release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SpaceConfig(results_dir=tmp_path / "r", max_rows=10, resamples=10)
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    many = tmp_path / "many.csv"
    many.write_bytes(b"question_id,model,label\n" + b"S-C01,gpt-5-nano,Richtig\n" * 50)
    monkeypatch.setattr(scoring, "parse_submission", lambda *a, **k: pytest.fail("parsed"))
    outcome = state.submit(many, "judge", {}, None)
    assert not outcome.ok and "more than the limit of 10 rows" in outcome.message


def test_server_rejects_upload_over_size_limit(launch, tmp_path: Path) -> None:
    app = launch(max_upload_mb=0.001)
    big = tmp_path / "big.csv"
    big.write_bytes(b"question_id,model,label\n" + b"S-C01,gpt-5-nano,Richtig\n" * 200)
    with pytest.raises(Exception, match=r"(?i)size|large|413"):
        app.client().predict(*submit_args(big), api_name="/submit")
    assert app.state.store.records() == []


def test_no_secrets_or_account_names_in_results_or_logs(
    sample_release, judge_csv: Path, tmp_path: Path, monkeypatch, caplog
) -> None:
    secret = "hf_SECRETtoken1234567890"
    monkeypatch.setenv("HF_TOKEN", secret)
    caplog.set_level(logging.DEBUG)
    config = SpaceConfig(results_dir=tmp_path / "r", resamples=10)
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    outcome = state.submit(judge_csv, "judge", {"name": "x"}, "some-hf-user")
    assert outcome.ok
    blob = b"".join(p.read_bytes() for p in (tmp_path / "r").rglob("*") if p.is_file())
    assert secret.encode() not in blob and b"some-hf-user" not in blob
    assert state.account("some-hf-user").encode() in blob
    assert secret not in caplog.text
