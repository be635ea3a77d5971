"""The Space's Submit takes an Inspect log (``.eval``) as it is: scored like the label file it
holds, stored under its own suffix and read back after a restart."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from medqade import scoring
from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.app.submit_form import UPLOAD_TYPES
from medqade.dataset.release import Release
from medqade.runners.inspect_tasks import judge

USER = "some-hf-user"
REPLIES = ("Richtig", "Falsch", "Falsch", "Richtig", "Keine Angabe")


def _log(built_sample: Path, tmp_path: Path) -> Path:
    outputs = []
    for k in range(6):
        labels = {f"resp_{i + 1}": REPLIES[(i + k) % 5] for i in range(5)}
        out = ModelOutput.from_content(
            "mockllm/model", json.dumps({**labels, "difficulty": "Mittel"})
        )
        out.usage = ModelUsage(input_tokens=900, output_tokens=60, total_tokens=960)
        outputs.append(out)
    model = get_model("mockllm/model", custom_outputs=outputs)
    (log,) = inspect_eval(
        judge(data=str(built_sample), split="all", resamples=0),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_connections=1,
    )
    assert log.status == "success"
    return Path(log.location)


def test_space_accepts_an_inspect_log_and_reads_it_back(
    sample_release: Release, built_sample: Path, tmp_path: Path
) -> None:
    assert ".eval" in UPLOAD_TYPES
    path = _log(built_sample, tmp_path)
    config = replace(SpaceConfig(results_dir=tmp_path / "r", rate_limit=0, resamples=10))
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    outcome = state.submit(path, None, {"name": "Mock judge"}, USER)
    assert outcome.ok, outcome.message
    assert outcome.record is not None
    record = outcome.record.to_json()
    assert record is not None and record["kind"] == "judge"
    assert record["meta"]["model_id"] == "model" and record["meta"]["inspect"]["samples"] == 6
    assert record["meta"]["inspect"]["output_tokens"] == 6 * 60
    expected = scoring.parse_submission(path.read_bytes(), path.name, sample_release)
    assert record["submission"]["content_hash"] == expected.content_hash
    (stored,) = state.store.upload_paths(outcome.record)
    assert stored.suffix == ".eval"  # kept as a log, so a restarted Space reads it again
    again = scoring.parse_submission(stored.read_bytes(), f"stored{stored.suffix}", sample_release)
    assert again.content_hash == expected.content_hash


def test_rescore_reads_a_stored_inspect_log_as_a_log(
    sample_release: Release,
    built_sample: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 38: ``medqade rescore`` read a stored ``.eval`` as a table ("1 problem found in
    stored upload <hash>", no detail), so log submissions never reached a new release."""
    from medqade.cli import main
    from medqade.scoring import record_id

    results = tmp_path / "r"
    config = SpaceConfig(results_dir=results, rate_limit=0, resamples=10)
    state = SpaceState(sample_release, results, config, background=False, analyses=False)
    outcome = state.submit(_log(built_sample, tmp_path), None, {"name": "Mock judge"}, USER)
    assert outcome.ok and outcome.record is not None, outcome.message
    path = results / "records" / f"{outcome.record.id}.json"
    other = json.loads(path.read_text(encoding="utf-8"))
    other["dataset"]["hash"] = "0" * 64  # as if scored on another release
    space = other.pop("space")
    other.pop("id")
    other["id"] = record_id(other)
    other["space"] = space
    path.unlink()
    (results / "records" / f"{other['id']}.json").write_text(json.dumps(other), encoding="utf-8")
    argv = ["rescore", "--data", str(built_sample), "--results", str(results)]
    assert main([*argv, "--resamples", "10"]) == 0, capsys.readouterr().err
    assert f"{other['id'][:16]}: scored again as record" in capsys.readouterr().out
    state.store.refresh()
    (again,) = [r.to_json() for r in state.store.records() if r.id != other["id"]]
    assert again["kind"] == "judge" and again["meta"]["inspect"]["samples"] == 6
    assert again["submission"]["content_hash"] == outcome.record.submission.content_hash
    assert again["space"]["uploads"] == other["space"]["uploads"]  # still the .eval


SPACE_CHILD = """
import json, resource, sys, tempfile
from pathlib import Path
from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.dataset.release import load_release
import inspect_ai.log

release = load_release(Path(sys.argv[1]))
results = Path(tempfile.mkdtemp()) / "results"
config = SpaceConfig(results_dir=results, rate_limit=0, resamples=10)
state = SpaceState(release, results, config, background=False, analyses=False)
size = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmSize"))
cap = size * 1024 + int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
try:
    outcome = state.submit(Path(sys.argv[2]), None, {"name": "Bomb"}, "some-hf-user")
    said = {"ok": outcome.ok, "problems": [str(p) for p in outcome.problems]}
except MemoryError:
    said = {"ok": False, "problems": ["MemoryError"]}
print(json.dumps(said))
"""


def test_a_zip_bomb_log_through_submit_stays_within_the_budget(
    built_sample: Path, tmp_path: Path
) -> None:
    """The Space's /submit work on a log whose header.json declares 2 bytes and unpacks to
    768 MiB, in a child whose address space may grow 256 MiB after start-up (docs/space.md,
    Memory): refused, naming the member (before: the Space peaked at 3.6 GB for 3 GB)."""
    import importlib.util
    import os
    import subprocess
    import sys

    spec = importlib.util.spec_from_file_location(
        "eval_zip", Path(__file__).resolve().parents[1] / "scoring" / "eval_zip.py"
    )
    assert spec is not None and spec.loader is not None
    eval_zip = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("eval_zip", eval_zip)  # its dataclasses look their module up
    spec.loader.exec_module(eval_zip)
    log = _log(built_sample, tmp_path).read_bytes()
    members = [m for m in eval_zip.members_of(log) if m.name != "header.json"]
    bomb = eval_zip.bomb_member("header.json", 768 * 2**20, 93, declared=2)
    path = tmp_path / "bomb.eval"
    path.write_bytes(eval_zip.write_zip([bomb, *members]))
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "MALLOC_ARENA_MAX": "2"}
    done = subprocess.run(
        [sys.executable, "-c", SPACE_CHILD, str(built_sample), str(path), str(256 * 2**20)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert not said["ok"]
    text = "\n".join(said["problems"])
    assert "'header.json' declares 2 bytes but unpacks to more" in text, text
