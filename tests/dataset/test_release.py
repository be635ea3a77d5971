"""Loading a release: from a build folder and, through ``load_dataset``, from the Hub."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import datasets
import huggingface_hub
import numpy as np
import pandas as pd
import pytest

from medqade.dataset import sources
from medqade.dataset.release import load_release
from medqade.dataset.sources import open_release


def test_load_hub_release_reads_configs_with_load_dataset(
    built_sample: Path, hf_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, str]] = []
    real_load = datasets.load_dataset

    def fake_download(repo_id: str, filename: str, repo_type: str) -> str:
        assert (repo_id, repo_type) == ("org/medqade", "dataset")
        return str(built_sample / filename)

    def fake_load(path: str, name: str, **kwargs: Any) -> Any:
        calls.append((path, name))
        assert path == "org/medqade"
        return real_load(str(built_sample), name, cache_dir=str(hf_cache))

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    monkeypatch.setattr(datasets, "load_dataset", fake_load)
    hub = open_release("org/medqade")
    local = load_release(built_sample)
    assert sorted(calls) == [
        ("org/medqade", c) for c in ("answers", "judgments", "questions", "ratings")
    ]
    for name in ("physician_labels", "evaluator_labels", "consensus", "physician_difficulty"):
        np.testing.assert_array_equal(getattr(hub, name), getattr(local, name))
    pd.testing.assert_frame_equal(
        hub.answers[local.answers.columns].reset_index(drop=True), local.answers, check_dtype=False
    )
    assert hub.data_hash == local.data_hash


def test_open_release_prefers_an_existing_folder_over_a_hub_id(
    built_sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(repo_id: str) -> None:
        raise AssertionError("must not go to the Hub")

    monkeypatch.setattr(sources, "load_hub_release", fail)
    assert open_release(built_sample).n_items == 6


def test_resolve_data_names_what_it_cannot_use(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="neither a MedQADE build folder nor a raw release"):
        sources.resolve_data(tmp_path)
    with pytest.raises(FileNotFoundError, match="not a Hub repo id"):
        sources.resolve_data("no/such/thing/here")


# --- a release.json that is not a MedQADE build's (issue 23) --------------------------------


@pytest.mark.parametrize("command", ["leaderboard", "reproduce", "score"])
def test_release_json_of_another_program(
    command: str, built_sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from medqade.cli import main

    folder = tmp_path / "build"
    shutil.copytree(built_sample, folder)
    (folder / "release.json").write_text('{"name": "something else", "version": 3}', "utf-8")
    (tmp_path / "sub.jsonl").write_text('{"question_id": "S-C01"}\n', "utf-8")
    extra = {"leaderboard": [], "reproduce": ["--out", str(tmp_path / "r")]}.get(
        command, [str(tmp_path / "sub.jsonl")]
    )
    assert main([command, *extra, "--data", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "this folder's release.json is not a MedQADE build's (no 'roster' or 'configs')" in err
    assert "rebuild the folder with `medqade build RAW OUT`" in err
    assert "Traceback" not in err and "KeyError" not in err


def test_data_raw_cache_key_includes_the_codebook(copy_sample: Any) -> None:
    import json

    from medqade.dataset.sources import resolve_data
    from medqade.raw.codebook import DEFAULT_CODEBOOK

    raw = copy_sample()
    book = DEFAULT_CODEBOOK.to_dict()
    (raw / "codebook.json").write_text(json.dumps(book), encoding="utf-8")
    first = resolve_data(raw)
    book["groups"][0]["codes"][0]["label"] = "Geändert"
    (raw / "codebook.json").write_text(json.dumps(book), encoding="utf-8")
    assert resolve_data(raw) != first
