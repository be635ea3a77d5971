"""``medqade show``: a release loaded with ``datasets``, each config printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.cli import main


def test_show_prints_every_config_of_a_build(
    sample_dir: Path, hf_cache: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("HF_DATASETS_CACHE", str(hf_cache))
    assert main(["show", "--data", str(sample_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"MedQADE release at {sample_dir}")
    for config in ("questions", "answers", "judgments"):
        assert f"\n[{config}]\n" in out
    assert "DatasetDict" in out and "num_rows" in out


def test_show_names_a_missing_release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--data", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("medqade show:") and "nowhere" in err
