"""The one submission policy (:mod:`medqade.scoring.policy.policy`): what is refused, flagged and
stored, with and without a results folder; the Space and ``medqade score`` both call it."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from medqade.cli import main
from medqade.dataset.release import Release
from medqade.scoring import Limits
from medqade.scoring.metrics.duplicates import DUPLICATE_FLAG
from medqade.scoring.policy import policy
from medqade.scoring.policy.store import RateLimit, ResultsStore

from ..helpers import judge_rows, passing

ROOT = Path(__file__).resolve().parents[3]
EVALUATOR = "gemma3:4b"
SETTINGS = policy.Settings(resamples=0)
ME = policy.Submitter("acct", scheme="test")


def _csv(release: Release, changed: int | None = None) -> bytes:
    """A paper evaluator's labels (an exact copy of a reference row), or with the label of
    row ``changed`` flipped (a judge of its own)."""
    frame = judge_rows(release, EVALUATOR)
    if changed is not None:
        label = frame.loc[changed, "label"]
        frame.loc[changed, "label"] = "Falsch" if label == "Richtig" else "Richtig"
    return frame.to_csv(index=False).encode()


def _upload(data: bytes, name: str = "mine.csv") -> policy.Upload:
    return policy.Upload(data, name, ".csv")


def test_stored_once_then_refused_as_duplicate(sample: Release, tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    own = [_upload(_csv(sample, 0))]
    first = policy.submit(
        sample, own, "judge", {"name": "Mine"}, SETTINGS, store=store, submitter=ME
    )
    assert first.ok and first.record is not None
    assert first.record.space.account == "acct"
    assert first.record.space.account_scheme == "test"
    assert first.submission is not None
    assert first.record.space.key == policy.duplicate_key(first.submission)
    stored = json.loads((tmp_path / "records" / f"{first.record.id}.json").read_text())
    assert stored["space"]["uploads"] == [f"{first.record.submission.content_hash}.csv"]
    again = policy.submit(sample, own, "judge", {}, SETTINGS, store=store, submitter=ME)
    assert not again.ok and "submitted before" in again.message
    assert again.message.startswith("mine.csv: ")
    assert len(store.records()) == 1


def test_copy_of_a_reference_row_refused_with_a_store_flagged_without(
    sample: Release, tmp_path: Path
) -> None:
    copy = [_upload(_csv(sample))]
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    refused = policy.submit(sample, copy, "judge", {}, SETTINGS, store=store, submitter=ME)
    assert not refused.ok and "a reference row of the leaderboard" in refused.message
    assert store.records() == []
    scored = policy.submit(sample, copy, "judge", {}, SETTINGS)  # no results folder
    assert scored.ok and scored.record is not None
    assert DUPLICATE_FLAG in scored.record.flags


def test_rate_limit_refuses_a_scored_submission_but_not_a_dry_run(
    sample: Release, tmp_path: Path
) -> None:
    store = ResultsStore(tmp_path, RateLimit(1, 86_400.0), clock=lambda: 1.8e9)
    kw: dict[str, Any] = {"store": store, "submitter": ME, "clock": lambda: 1.8e9}
    assert policy.submit(sample, [_upload(_csv(sample, 0))], "judge", {}, SETTINGS, **kw).ok
    second = [_upload(_csv(sample, 1))]
    limited = policy.submit(sample, second, "judge", {}, SETTINGS, **kw)
    assert not limited.ok and limited.message.startswith("rate limit: 1 submissions per 1 days")
    dry = policy.submit(sample, second, "judge", {}, SETTINGS, validate_only=True, **kw)
    assert dry.ok and dry.message.startswith("Dry run: scored, not stored")
    assert "a scored submission is refused now (rate limit" in dry.message
    assert dry.dry_run and dry.record is not None and len(store.records()) == 1


def test_size_and_line_limits_before_parsing(sample: Release) -> None:
    data = _csv(sample, 0)
    small = policy.Settings(resamples=0, limits=Limits(max_bytes=len(data) - 1))
    out = policy.submit(sample, [_upload(data)], "judge", {}, small)
    assert not out.ok
    assert out.message == (
        f"mine.csv: the file has {len(data):,} bytes, more than the limit of {len(data) - 1:,} "
        "bytes; remove extra columns or save it as Parquet."
    )
    few = policy.Settings(resamples=0, limits=Limits(max_rows=3))
    out = policy.submit(sample, [_upload(data)], "judge", {}, few)
    assert not out.ok and "more than the limit of 3 rows; submit one judge" in out.message
    assert policy.size_refusal("x.csv", 10, Limits(max_bytes=10)) is None


def test_problems_and_bad_metadata_are_outcomes_not_exceptions(sample: Release) -> None:
    bad = policy.submit(
        sample, [_upload(b"question_id,model,label\nNOPE,x,vielleicht\n")], None, {}, SETTINGS
    )
    assert not bad.ok and bad.problems and "nothing was scored" in bad.message
    meta = policy.submit(
        sample, [_upload(_csv(sample, 0))], "judge", {"link": "javascript:x"}, SETTINGS
    )
    assert not meta.ok and meta.problems


def test_the_space_and_the_cli_score_through_policy_submit(
    sample: Release, sample_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replace the library's policy and both callers change: neither keeps rules of its own."""
    from medqade.app.config import SpaceConfig
    from medqade.app.state import SpaceState

    original = policy.submit
    callers: list[str] = []

    def spy(*args: Any, **kwargs: Any) -> policy.Outcome:
        callers.append(inspect.stack()[1].frame.f_globals["__name__"])
        return original(*args, **kwargs)

    # Both front ends hold the library's one submit, imported by name from its package:
    # patched where each looks it up, after checking it is that function and no copy.
    space = importlib.import_module("medqade.app.state")
    cli = importlib.import_module("medqade.commands.score")
    assert space.submit_upload is original and cli.submit is original
    monkeypatch.setattr(space, "submit_upload", spy)
    monkeypatch.setattr(cli, "submit", spy)
    path = tmp_path / "mine.csv"
    path.write_bytes(_csv(sample, 0))
    results = tmp_path / "results"
    config = SpaceConfig(results_dir=results, rate_limit=0, resamples=10)
    state = SpaceState(sample, results, config, background=False, analyses=False)
    assert state.submit(path, "judge", {"name": "Mine"}, None).ok
    argv = ["score", str(path), "--data", str(sample_dir), "--resamples", "0", "--json"]
    assert main(argv) == 0
    assert callers == ["medqade.app.state", "medqade.commands.score"]


def test_no_command_but_the_space_command_imports_the_space() -> None:
    """The CLI reads and writes results folders through the library (``medqade space``
    alone serves the Space)."""
    offenders = []
    for path in sorted((ROOT / "src" / "medqade" / "commands").glob("*.py")):
        if path.stem == "space":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if any(n == "medqade.app" or n.startswith("medqade.app.") for n in names):
                offenders.append(path.name)
    assert offenders == []


def test_score_results_stores_under_the_same_rules(
    sample: Release, sample_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``medqade score --results DIR``: stored like a Space submission (account ``cli``);
    the same file again and a copy of a reference row are refused, as in the Space."""
    own, copy = tmp_path / "own.csv", tmp_path / "copy.csv"
    own.write_bytes(_csv(sample, 0))
    copy.write_bytes(_csv(sample))
    results = tmp_path / "results"
    base = ["--data", str(sample_dir), "--resamples", "0", "--results", str(results)]
    assert main(["score", str(own), *base, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    stored = ResultsStore(results, RateLimit(0, 1.0)).records()
    assert [r.id for r in stored] == [record["id"]] and "space" not in record
    space = stored[0].space
    assert space is not None and space.account == "cli" and space.uploads
    assert main(["score", str(own), *base]) == 2
    assert "own.csv: the same content was submitted before" in capsys.readouterr().err
    assert main(["score", str(copy), *base]) == 2
    assert "a reference row of the leaderboard" in capsys.readouterr().err
    assert len(ResultsStore(results, RateLimit(0, 1.0)).records()) == 1
    inside = ["--data", str(sample_dir), "--results", str(sample_dir / "results")]
    assert main(["score", str(own), *inside, "--resamples", "0"]) == 2
    assert "medqade score never stores submissions there" in capsys.readouterr().err


def test_the_board_and_score_commands_load_nothing_of_the_space() -> None:
    """Imported, ``medqade score``, ``leaderboard``, ``compare`` and ``rescore`` pull in no
    module of :mod:`medqade.app` (and no gradio), also not through the library."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import medqade.commands.score, medqade.commands.leaderboard\n"
        "import medqade.commands.compare, medqade.commands.rescore\n"
        "print(sorted(m for m in sys.modules if m.startswith(('medqade.app', 'gradio'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "meta",
    [
        {"name": "Gemini 3 Flash"},
        {"name": "Physicians"},
        {"name": "Physician ceiling"},
        {"name": "G\u0435mini  3 Flash"},  # Cyrillic e, double space
        {"name": "Mine", "model_id": "gemini-3-flash-preview"},
    ],
)
def test_a_name_passing_for_another_row_is_refused(
    sample: Release, tmp_path: Path, meta: dict[str, str]
) -> None:
    """Issue 38: such names were stored as given and stood on the board beside the real
    rows. Refused with a store and in a dry run (with one line saying why); scored with a
    warning without a results folder."""
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    own = [_upload(_csv(sample, 0))]
    for dry in (True, False):
        out = policy.submit(
            sample, own, "judge", meta, SETTINGS, store=store, submitter=ME, validate_only=dry
        )
        assert not out.ok and out.record is None
        assert out.message.startswith("mine.csv: the ") and "would pass for" in out.message
        assert out.problems and out.problems[0].column in ("meta.name", "meta.model_id")
    assert store.records() == []
    local = policy.submit(sample, own, "judge", meta, SETTINGS)
    assert local.ok and any("would pass for" in w for w in local.warnings)


def test_a_name_in_the_files_header_is_checked_too(sample: Release, tmp_path: Path) -> None:
    header = json.dumps({"meta": {"name": "Physician ceiling"}})
    rows = judge_rows(sample, EVALUATOR).iloc[1:]
    body = "\n".join(json.dumps(r) for r in rows.to_dict(orient="records"))
    upload = policy.Upload(f"{header}\n{body}\n".encode(), "mine.jsonl", ".jsonl")
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    out = policy.submit(sample, [upload], "judge", {}, SETTINGS, store=store, submitter=ME)
    assert not out.ok and "the physicians' row" in out.message
    renamed = policy.submit(
        sample, [upload], "judge", {"name": "Own"}, SETTINGS, store=store, submitter=ME
    )
    assert renamed.ok, renamed.message  # the form's name overrides the header's


def test_another_accounts_verified_name_is_taken(sample: Release, tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    alice = policy.Submitter("alice")
    meta = {"name": "Alice's Judge", "model_id": "alice-judge-1", "verified": True}
    hashed = policy.submit(sample, [_upload(_csv(sample, 0))], "judge", {}, SETTINGS)
    assert hashed.submission is not None  # a passing verification of these labels
    reproduced = passing(hashed.submission.content_hash)
    first = policy.submit(
        sample, [_upload(_csv(sample, 0))], "judge", meta, SETTINGS, store=store,
        submitter=alice, verification=reproduced,
    )  # fmt: skip
    assert first.ok, first.message
    for copy in ({"name": "ALICES JUDGE"}, {"name": "Mine", "model_id": "Alice Judge 1"}):
        out = policy.submit(
            sample, [_upload(_csv(sample, 1))], "judge", copy, SETTINGS, store=store, submitter=ME
        )
        assert not out.ok and "another account's verified row" in out.message
    own = policy.submit(
        sample, [_upload(_csv(sample, 2))], "judge", {"name": "Alice's judge"}, SETTINGS,
        store=store, submitter=alice,
    )  # fmt: skip
    assert own.ok, own.message  # one's own verified row's name may be used again


def test_a_dry_run_scores_as_the_real_run_and_stores_nothing(
    sample: Release, tmp_path: Path
) -> None:
    """Issue 39: the dry run said "Accepted ... Nothing was scored"; a submitter wants the
    kappa before storing. It is the real run's record, with its kappa and CI in the message."""
    store = ResultsStore(tmp_path, RateLimit(0, 1.0), clock=lambda: 1.8e9)
    own = [_upload(_csv(sample, 3))]
    kw: dict[str, Any] = {"store": store, "submitter": ME, "clock": lambda: 1.8e9}
    dry = policy.submit(sample, own, "judge", {}, SETTINGS, validate_only=True, **kw)
    assert dry.ok and dry.dry_run and dry.record is not None and store.records() == []
    kappa = dry.record.to_json()["core"]["kappa"]
    assert f"core kappa {kappa:.3f} (95% CI " in dry.message
    assert "not stored" in dry.message and "Accepted" not in dry.message
    real = policy.submit(sample, own, "judge", {}, SETTINGS, **kw)
    assert real.ok and not real.dry_run and real.record is not None
    assert real.record.to_json()["core"] == dry.record.to_json()["core"]
    assert len(store.records()) == 1
