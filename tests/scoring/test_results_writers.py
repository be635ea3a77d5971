"""Every writer of a results folder at random targets (issue 38): ``medqade score --results``,
``medqade rescore``, the store's add and the Space's submit path through
:func:`medqade.scoring.policy.policy.submit`, aimed at results folders, builds, raw releases, links
to them and results folders with links inside. File hashes before and after: nothing outside
the results folder changes, a refused target not at all, and no link is ever followed or
replaced."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from medqade.cli import main
from medqade.dataset.release import Release
from medqade.files import guards
from medqade.scoring import record_id
from medqade.scoring.policy import policy
from medqade.scoring.policy.store import RateLimit, ResultsStore, SubmissionRefused
from medqade.scoring.record.score_record import ScoreRecord, SpaceEntry

from .helpers import judge_rows

SETTINGS = policy.Settings(resamples=0)
ME = policy.Submitter("acct", scheme="test")


def _hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (links: where they point), by relative path."""
    out = {}
    for here, dirs, files in os.walk(root, followlinks=False):
        for name in [*files, *(d for d in dirs if (Path(here) / d).is_symlink())]:
            path = Path(here) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _judge_csv(release: Release, changed: int) -> bytes:
    frame = judge_rows(release, "gemma3:4b")
    label = frame.loc[changed, "label"]
    frame.loc[changed, "label"] = "Falsch" if label == "Richtig" else "Richtig"
    return frame.to_csv(index=False).encode()


def _foreign_results(release: Release, folder: Path) -> str:
    """A results folder holding one judge record of another release (rescore's work); the
    name of its stored upload."""
    store = ResultsStore(folder, RateLimit(0, 1.0))
    up = [policy.Upload(_judge_csv(release, 2), "theirs.csv", ".csv")]
    done = policy.submit(release, up, "judge", {"name": "T"}, SETTINGS, store=store, submitter=ME)
    assert done.ok and done.record is not None, done.message
    path = folder / "records" / f"{done.record.id}.json"
    other = json.loads(path.read_text(encoding="utf-8"))
    other["dataset"]["hash"] = "0" * 64
    space = other.pop("space")
    other.pop("id")
    other["id"] = record_id(other)
    other["space"] = space
    path.unlink()
    (folder / "records" / f"{other['id']}.json").write_text(json.dumps(other), encoding="utf-8")
    return str(space["uploads"][0])


@pytest.fixture(scope="module")
def _template(tmp_path_factory: pytest.TempPathFactory, sample: Release) -> Path:
    from conftest import SAMPLE
    from medqade.dataset.build import build

    root = tmp_path_factory.mktemp("results-writers")
    shutil.copytree(SAMPLE, root / "raw")
    build(SAMPLE, root / "build")
    (root / "sub.csv").write_bytes(_judge_csv(sample, 0))
    (root / "outside.csv").write_bytes(_judge_csv(sample, 1))  # another judge, outside
    name = _foreign_results(sample, root / "results")
    shutil.copytree(root / "results", root / "results-linkout")
    (root / "results-linkout" / "uploads" / name).unlink()
    (root / "results-linkout" / "uploads" / name).symlink_to(Path("../../outside.csv"))
    shutil.copytree(root / "results", root / "results-uplink")
    (root / "results-uplink" / "uploads").rename(root / "elsewhere")
    (root / "results-uplink" / "uploads").symlink_to(Path("../elsewhere"))
    shutil.copytree(root / "results", root / "results-reclink")
    (root / "results-reclink" / "records").rename(root / "records-elsewhere")
    (root / "results-reclink" / "records").symlink_to(Path("../records-elsewhere"))
    (root / "buildlink").symlink_to(Path("build"))
    (root / "rawlink").symlink_to(Path("raw"))
    (root / "reslink").symlink_to(Path("results"))
    (root / "empty").mkdir()
    return root


@pytest.fixture
def sandbox(_template: Path) -> Iterator[Callable[[], Path]]:
    made: list[Path] = []

    def make() -> Path:
        root = Path(tempfile.mkdtemp(prefix="medqade-results-")) / "s"
        shutil.copytree(_template, root, symlinks=True)
        made.append(root.parent)
        return root

    yield make
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


def _score(root: Path, target: str, release: Release) -> bool:
    argv = ["score", "sub.csv", "--data", "build", "--resamples", "0", "--results", target]
    return main(argv) == 0


def _rescore(root: Path, target: str, release: Release) -> bool:
    return main(["rescore", "--data", "build", "--results", target, "--resamples", "1"]) == 0


def _store_add(root: Path, target: str, release: Release) -> bool:
    record = ScoreRecord.from_json({"id": "c" * 64, "kind": "judge", "meta": {"name": "added"}})
    space = SpaceEntry(account="a", submitted_at="2026-01-01T00:00:00+00:00", key="k")
    try:
        ResultsStore(root / target, RateLimit(0, 1.0)).add(
            record, space, {f"{'ab' * 32}.csv": b"a\n"}
        )
    except SubmissionRefused:
        return False
    return True


def _space_submit(root: Path, target: str, release: Release) -> bool:
    store = ResultsStore(root / target, RateLimit(2, 86_400.0))
    up = [policy.Upload((root / "sub.csv").read_bytes(), "sub.csv", ".csv")]
    outcome = policy.submit(
        release, up, "judge", {"name": "S"}, SETTINGS, store=store, submitter=ME
    )
    assert outcome.ok or outcome.message, outcome
    return outcome.ok


WRITERS: dict[str, Callable[[Path, str, Release], bool]] = {
    "score --results": _score,
    "rescore": _rescore,
    "store add": _store_add,
    "space submit": _space_submit,
}
TARGETS = [
    "results",
    "results-linkout",
    "results-uplink",
    "results-reclink",
    "reslink",
    "fresh",
    "empty",
    "build",
    "raw",
    "buildlink",
    "rawlink",
]


@pytest.mark.parametrize("writer", sorted(WRITERS))
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(name=st.sampled_from(TARGETS), child=st.sampled_from([None, "results"]))
@example(name="results", child=None)  # a real write (rescore: of the foreign record)
@example(name="results-linkout", child=None)  # uploads/<hash> links out: never followed
@example(name="results-uplink", child=None)  # uploads/ links out
@example(name="results-reclink", child=None)  # records/ links out
@example(name="build", child="results")
@example(name="raw", child=None)
@example(name="rawlink", child="results")
def test_every_results_writer_changes_nothing_outside_its_folder(
    writer: str,
    name: str,
    child: str | None,
    sandbox: Callable[[], Path],
    sample: Release,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = sandbox()
    monkeypatch.chdir(root)
    target = name if child is None else f"{name}/{child}"
    before = _hashes(root)
    ok = WRITERS[writer](root, target, sample)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    after = _hashes(root)
    real = Path(os.path.abspath(root / target)).resolve()
    guarded = guards.guarded_within(real) is not None
    inside = real.relative_to(root.resolve()).as_posix() + "/"
    changed = sorted(k for k in {*before, *after} if before.get(k) != after.get(k))
    if guarded or not ok:  # refused: nothing changed, anywhere
        assert not (guarded and ok), (writer, target)
        assert changed == [] or all(k.startswith(inside) for k in changed), (writer, target)
    assert all(k.startswith(inside) for k in changed), (writer, target, changed, err)
    if guarded:
        assert changed == [], (writer, target, changed)
    links = {k: v for k, v in before.items() if v.startswith("link:")}
    assert {k: after.get(k) for k in links} == links, (writer, target)  # never replaced
    if name in ("results", "reslink") and child is None:
        assert ok and changed, (writer, target, err)  # a real write (rescore: the foreign one)
    if name in ("results-uplink", "results-reclink") and child is None:
        assert not ok, (writer, target, err)  # its uploads/ or records/ links out: refused
    if name == "results-linkout" and writer == "rescore" and child is None:
        assert not ok, (writer, target, err)  # the one stored upload links out: refused
        assert "is a link, not a file the store wrote" in err
