"""Fixtures for the scoring tests: a full synthetic release and the tiny sample release.

The full release is the session-wide ``synthetic_build`` of ``tests/conftest.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medqade.dataset.build import build
from medqade.dataset.release import Release, load_release

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
RESAMPLES = 200


@pytest.fixture(scope="session")
def full_dir(synthetic_build: Path) -> Path:
    """The shared built 3,800-item synthetic release (read it; never modify it)."""
    return synthetic_build


@pytest.fixture(scope="session")
def full_raw(full_dir: Path) -> Path:
    """The raw release the full build was made from."""
    return full_dir.parent / "raw"


@pytest.fixture(scope="session")
def full(full_dir: Path) -> Release:
    return load_release(full_dir)


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scoring-sample") / "build"
    build(SAMPLE, out)
    return out


@pytest.fixture(scope="session")
def sample(sample_dir: Path) -> Release:
    return load_release(sample_dir)


# --- real Inspect logs of the sample release (mock model), for the log readers' tests ---------

REPLY = json.dumps({**{f"resp_{i}": "Richtig" for i in range(1, 6)}, "difficulty": "Mittel"})


def _run(task: Any, tmp_path: Path, reply: str, n: int = 6) -> bytes:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    outs = []
    for _ in range(n):
        out = ModelOutput.from_content("mockllm/model", reply)
        out.usage = ModelUsage(input_tokens=900, output_tokens=60, total_tokens=960)
        outs.append(out)
    (log,) = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=outs),
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_connections=1,
    )
    assert log.status == "success"
    return Path(log.location).read_bytes()


@pytest.fixture(scope="session")
def judge_log(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real log of ``inspect eval medqade/judge`` over the sample release (6 sets)."""
    from medqade.runners.inspect_tasks import judge

    task = judge(data=str(sample_dir), split="all", resamples=0)
    return _run(task, tmp_path_factory.mktemp("judge-log"), REPLY)


@pytest.fixture(scope="session")
def answer_log(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real log of ``inspect eval medqade/answer`` over the sample release (6 questions)."""
    from medqade.runners.inspect_tasks import answer

    task = answer(data=str(sample_dir), split="all", resamples=0)
    return _run(task, tmp_path_factory.mktemp("answer-log"), "Femur")


@pytest.fixture(scope="session")
def other_task_log(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real log of another task (one arithmetic sample), not MedQADE's."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match

    task = Task(dataset=[Sample(input="2+2?", target="4")], scorer=match(), name="arithmetic")
    return _run(task, tmp_path_factory.mktemp("other-log"), "4", n=1)
