"""``medqade space``: flags to settings, local serving, the Hub mirror (faked)."""

from __future__ import annotations

import threading
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from medqade.app import serve as serve_module
from medqade.app.config import SpaceConfig
from medqade.cli import main
from medqade.files.guards import PRIVATE_MANIFEST

from .helpers import on_free_port


def _serve(config: SpaceConfig, port: int) -> Any:
    return serve_module.serve(replace(config, port=port), block=False)


def test_serve_local_build_answers_http(built_sample: Path, tmp_path: Path) -> None:
    config = SpaceConfig(data=str(built_sample), results_dir=tmp_path / "r", resamples=20)
    demo, port = on_free_port(lambda port: _serve(config, port))
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            page = response.read().decode("utf-8")
        assert response.status == 200 and "MedQADE leaderboard" in page
    finally:
        demo.close()


def test_serve_draws_the_analysis_figures_before_it_serves(
    built_sample: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 27: the first visitor of the Analysis tab never has to come back: the Space
    serves once the analyses are computed and every figure is encoded for the page (the
    address is printed after the figures line). A cache of its own, so they are computed
    here (a restart reads them: tests/app/test_figure_cache.py)."""
    from medqade.app import analysis

    monkeypatch.setenv("MEDQADE_CACHE", str(tmp_path / "cache"))
    config = SpaceConfig(data=str(built_sample), results_dir=tmp_path / "r", resamples=20)
    demo, _ = on_free_port(lambda port: _serve(config, port))
    try:
        state = demo.medqade_state
        assert state.report.done() and state.report.exception() is None
        out = capsys.readouterr().out
        assert out.index("figures ready") < out.index("Running on local URL")
        ui = next(f for f in demo.fns.values() if f.name == "analysis_ui")

        def drawn_on_a_visit(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("a figure was drawn on a visit, after the Space served")

        monkeypatch.setattr(analysis, "figure", drawn_on_a_visit)
        answer = ui.fn("", "")  # encoded before serving: nothing drawn now
        assert "come back" not in str(answer[0]) and "again" not in str(answer[0])
        assert all(a is not None for a in answer[1 : len(analysis.FIGURES)])
    finally:
        demo.close()


class FakeScheduler:
    def __init__(self) -> None:
        self.lock = threading.Lock()


def test_prepare_pulls_and_mirrors_results_repo(
    built_sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, Any]] = []
    scheduler = FakeScheduler()

    def pull(repo: str, folder: Path, token: str | None = None) -> Path:
        calls.append(("pull", repo))
        return folder

    def mirror(repo: str, folder: Path, every: float, token: str | None) -> FakeScheduler:
        calls.append(("mirror", repo))
        return scheduler

    monkeypatch.setattr(serve_module, "pull_results", pull)
    monkeypatch.setattr(serve_module, "start_mirror", mirror)
    config = SpaceConfig(
        data=str(built_sample), results_dir=tmp_path / "r", results_repo="org/res", resamples=20
    )
    demo = serve_module.prepare(config)
    assert calls == [("pull", "org/res"), ("mirror", "org/res")]
    assert demo.medqade_state.store._write_lock is scheduler.lock


REPO = Path(__file__).resolve().parents[2]


def _make_n_run(*args: str) -> str:
    import subprocess

    done = subprocess.run(
        ["make", "-n", "run", *args], cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_makefile_run_port_and_no_address_before_serving() -> None:
    """``make run PORT=7999`` passes ``--port 7999`` (none without PORT: Gradio's 7860), and
    its own echo never names the address ("Running on local URL") before the server does;
    the README says how to pick the port."""
    with_port = _make_n_run("PORT=7999").splitlines()
    assert any(line.endswith("medqade space --port 7999") for line in with_port)
    default = _make_n_run().splitlines()
    assert any(line.endswith("medqade space") for line in default)
    assert not any("--port" in line for line in default)
    for out in (with_port, default):
        echoed = [line for line in out if line.startswith("echo")]
        assert echoed and not any("local URL" in line or "7860" in line for line in echoed)
    assert "make run PORT=" in (REPO / "README.md").read_text(encoding="utf-8")


def test_serve_output_address_after_serving_no_share_hint(
    built_sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Space prints its address once the server answers, and no "set share=True" hint
    (meant for notebooks, not for a CLI user)."""
    config = SpaceConfig(data=str(built_sample), results_dir=tmp_path / "r", resamples=20)
    demo, port = on_free_port(lambda port: _serve(config, port))
    try:
        out = capsys.readouterr().out
        lines = [line for line in out.splitlines() if "Running on local URL" in line]
        assert len(lines) == 1 and f":{port}" in lines[0]
        assert "share=True" not in out and "public link" not in out
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.status == 200
    finally:
        demo.close()


def test_space_first_run_progress_lines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A first ``medqade space`` on the embedded release says each step of building it
    (synthesizing, building, ready, starting) instead of a minute of silence."""
    import medqade.dataset.build
    import medqade.synthetic
    from medqade.dataset import release

    def fake_synthesize(raw: Path, seed: int) -> Path:
        raw.mkdir(parents=True)
        (raw / "questions.csv").write_text("question_id\n", encoding="utf-8")
        return raw

    def fake_build(raw: Path, out: Path, **held: Any) -> None:
        (out / "data").mkdir(parents=True)
        (out / release.RELEASE_JSON).write_text("{}", encoding="utf-8")
        if held:  # the default's hold-out: a private part beside it
            held["private_out"].mkdir(parents=True)
            (held["private_out"] / PRIVATE_MANIFEST).write_text("{}", encoding="utf-8")

    monkeypatch.setenv("MEDQADE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("MEDQADE_DATASET", raising=False)
    monkeypatch.setattr(medqade.synthetic, "synthesize", fake_synthesize)
    monkeypatch.setattr(medqade.dataset.build, "build", fake_build)
    served: list[SpaceConfig] = []
    monkeypatch.setattr(serve_module, "serve", lambda config: served.append(config))
    assert main(["space", "--results", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    steps = ["synthesizing", "building", "ready", "starting the Space"]
    at = [err.find(step) for step in steps]
    assert all(k >= 0 for k in at) and at == sorted(at), err
    assert served
    assert main(["space", "--results", str(tmp_path / "r")]) == 0  # built: no build steps
    again = capsys.readouterr().err
    assert "synthesizing" not in again and "building" not in again


def test_the_space_shows_the_public_build_and_scores_with_the_private_labels(
    holdout_build: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--private-labels`` and ``MEDQADE_PRIVATE_LABELS`` reach the settings, and the Space is
    built over the public build (labels withheld) with the restored build to score on."""
    import medqade.app.ui as ui_module

    pub, priv = holdout_build
    served: list[SpaceConfig] = []
    monkeypatch.setattr(serve_module, "serve", lambda config: served.append(config))
    argv = ["space", "--data", str(pub), "--results", str(tmp_path / "r")]
    assert main([*argv, "--private-labels", str(priv)]) == 0
    assert served[-1].private_labels == str(priv)
    monkeypatch.setenv("MEDQADE_PRIVATE_LABELS", str(priv))
    config = replace(SpaceConfig.from_env(), data=str(pub), results_dir=tmp_path / "r")
    assert config.private_labels == str(priv)

    built: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setattr(ui_module, "build_app", lambda *a, **kw: built.append((a, kw)))
    serve_module.prepare(config)
    (release, *_), kwargs = built[-1]
    assert release.withholds and not release.restored  # shown: the public build
    scored = kwargs["scoring_release"]
    assert scored.restored and not scored.withholds
    assert list(scored.item_ids[scored.held_out]) == list(release.item_ids[release.held_out])

    wrong = tmp_path / "not-a-private-part"  # refused before anything is built
    wrong.mkdir()
    with pytest.raises((ValueError, OSError)):
        serve_module.prepare(replace(config, private_labels=str(wrong)))
    with pytest.raises(FileNotFoundError, match="no such folder"):
        serve_module.prepare(replace(config, private_labels=str(tmp_path / "missing")))
    assert len(built) == 1


def test_a_private_hub_repo_is_downloaded_into_the_hub_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``MEDQADE_PRIVATE_LABELS=ORG/NAME`` (no such folder): the private dataset repo is
    downloaded with the Space's token; a folder is used as it is."""
    import huggingface_hub

    calls: list[dict[str, Any]] = []

    def fake_download(**kwargs: Any) -> str:
        calls.append(kwargs)
        return str(tmp_path / "snapshot")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_download)
    got = serve_module.private_folder("org/medqade-private", token="hf_x")
    assert got == tmp_path / "snapshot"
    assert calls == [{"repo_id": "org/medqade-private", "repo_type": "dataset", "token": "hf_x"}]
    assert serve_module.private_folder(str(tmp_path)) == tmp_path and len(calls) == 1
