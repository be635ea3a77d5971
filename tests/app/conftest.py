"""Fixtures of the Space tests: the sample release, submission files and a launched app."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from medqade.app.config import SpaceConfig
from medqade.dataset.release import Release, load_release

from .helpers import Running, judge_variant, on_free_port, url_ok

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session", autouse=True)
def _patient_launch() -> Iterator[None]:
    """Every Space a test launches waits for its server as long as a loaded machine needs
    (:func:`.helpers.url_ok`) instead of failing with "localhost is not accessible"."""
    from gradio import networking

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(networking, "url_ok", url_ok)
        yield


@pytest.fixture(scope="session")
def sample_release(built_sample: Path) -> Release:
    return load_release(built_sample)


@pytest.fixture(scope="session")
def holdout_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample with 3 of its 6 items held out (S-C01, S-E03, S-E04): (public build,
    private part)."""
    from medqade.dataset.build import build
    from medqade.dataset.holdout import HoldOut

    root = tmp_path_factory.mktemp("space-holdout")
    build(SAMPLE, root / "pub", hold_out=HoldOut(3, 7), private_out=root / "priv")
    return root / "pub", root / "priv"


@pytest.fixture
def judge_csv(sample_release: Release, tmp_path: Path) -> Path:
    """A judge of its own: a paper evaluator's labels with one label changed (an exact copy
    of a reference row is refused)."""
    path = tmp_path / "judge.csv"
    judge_variant(sample_release, 0).to_csv(path, index=False)
    return path


@pytest.fixture
def answers_csv(sample_release: Release, tmp_path: Path) -> Path:
    """A model of its own: a paper student's answers with one answer changed."""
    answers = sample_release.answers
    frame = answers[answers["model"] == "gemma3:27b"][["question_id", "answer"]]
    frame = frame.reset_index(drop=True)
    frame.loc[0, "answer"] = "Eine eigene Antwort"
    path = tmp_path / "answers.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def bad_judge_csv(tmp_path: Path) -> Path:
    path = tmp_path / "bad.csv"
    path.write_text(
        "question_id,model,label\nS-C01,gemini-2.5-flash,vielleicht\nNOPE,gpt-5-nano,Richtig\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def launch(sample_release: Release, tmp_path: Path) -> Iterator[Callable[..., Running]]:
    """Start the Space in-process on a free port; every app started is closed afterwards."""
    from medqade.app.ui import build_app, launch_kwargs

    started: list[Any] = []

    def start(**overrides: Any) -> Running:
        results = tmp_path / f"results{len(started)}"
        base = SpaceConfig(results_dir=results, rate_limit=0, resamples=50)
        config = replace(base, **overrides)
        demo = build_app(sample_release, results, config, background=False, analyses=False)
        demo.queue(default_concurrency_limit=4)

        def on(port: int) -> None:
            kwargs = launch_kwargs(replace(config, port=port, host="127.0.0.1"))
            demo.launch(prevent_thread_lock=True, quiet=True, **kwargs)

        _, port = on_free_port(on)
        started.append(demo)
        return Running(demo, f"http://127.0.0.1:{port}/", demo.medqade_state, results)

    yield start
    for demo in started:
        demo.close()
