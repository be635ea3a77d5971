"""scoring.log_reader: opening an Inspect log bounded, and the logs it refuses before scoring:
another task's, a damaged one, one larger than its limits, and ZIP bombs (run in a child
process under an address-space cap). Every hostile log is a real log of medqade/judge
(mock model) rewritten member by member (eval_zip.py beside this file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring import parse_submission
from medqade.scoring.intake.inspect_log import log_rows
from medqade.scoring.intake.limits import Limits
from medqade.scoring.intake.log_reader import is_eval_log
from medqade.scoring.intake.upload import read_upload

from ..eval_zip import (
    Member,
    bomb_member,
    members_of,
    write_zip,
)

ROOT = Path(__file__).resolve().parents[3]
CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    from medqade.dataset.release import load_release
    from medqade.files.problems import InputError
    from medqade.scoring import parse_submission
    import inspect_ai.log  # everything imported before the cap

    release = load_release(Path(sys.argv[1]))
    data = Path(sys.argv[2]).read_bytes()
    size = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize"))
    cap = size * 1024 + int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        parse_submission(data, "bomb.eval", release)
        outcome = "scored"
    except InputError as exc:
        outcome = "refused: " + " ".join(str(p) for p in exc.problems)
    except MemoryError:
        outcome = "MemoryError"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"outcome": outcome, "max_rss_kb": rss}))
    """
)


HEADROOM = 256 * 2**20
"""Address space the child may add after its imports: the bombs unpack to several times this."""


def _refusal(data: bytes, release: Release, name: str = "run.eval") -> str:
    with pytest.raises(InputError) as caught:
        parse_submission(data, name, release)
    text = "\n".join(str(p) for p in caught.value.problems)
    assert name in text and "Traceback" not in text
    return text


def _in_child(data: bytes, release_dir: Path, tmp_path: Path) -> dict[str, object]:
    path = tmp_path / "bomb.eval"
    path.write_bytes(data)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MALLOC_ARENA_MAX": "2"}
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(release_dir), str(path), str(HEADROOM)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_log_of_another_task_is_refused_by_name(other_task_log: bytes, sample: Release) -> None:
    data = other_task_log
    assert is_eval_log(data, "run.eval")
    with pytest.raises(InputError) as caught:
        read_upload(data, "run.eval", 10_000_000, release=sample)
    text = str(caught.value.problems[0])
    assert "run.eval" in text and "'arithmetic'" in text and "inspect eval medqade/judge" in text


def test_a_damaged_log_is_refused_without_a_traceback() -> None:
    data = b"PK\x03\x04" + b"\x00" * 200
    with pytest.raises(InputError) as caught:
        log_rows(data, "broken.eval")
    text = str(caught.value.problems[0])
    assert "not a readable Inspect log" in text and "unchanged" in text


def test_only_an_eval_name_with_a_zip_inside_is_a_log() -> None:
    assert not is_eval_log(b"question_id,answer\n", "run.eval")
    assert not is_eval_log(b"PK\x03\x04rest", "run.zip")


def test_a_log_may_be_larger_than_a_label_file(other_task_log: bytes, sample: Release) -> None:
    data = other_task_log
    small = len(data) // 2
    with pytest.raises(InputError, match="arithmetic"):  # past the size check: read as a log
        read_upload(data, "run.eval", small, max_log_bytes=len(data), release=sample)
    with pytest.raises(InputError, match="more than the limit"):
        read_upload(data, "run.eval", small, max_log_bytes=small, release=sample)
    with pytest.raises(InputError, match="more than the limit"):
        read_upload(data, "run.eval", small, release=sample)  # no log limit given: the file's


def test_a_log_that_declares_more_than_the_total_is_refused_before_it_is_read(
    judge_log: bytes, sample: Release
) -> None:
    limits = Limits(max_log_unpacked_bytes=100_000)
    members = members_of(judge_log)
    members.append(Member("junk.json", b"x" * 100_001))
    with pytest.raises(InputError) as caught:
        log_rows(write_zip(members), "bomb.eval", sample, limits)
    text = str(caught.value.problems[0])
    assert "bomb.eval" in text and "unpacks to" in text and "100,000" in text


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, 93], ids=["deflate", "zstd"])
def test_a_member_that_lies_about_its_size_is_stopped_while_it_unpacks(
    judge_log: bytes, sample: Release, sample_dir: Path, tmp_path: Path, method: int
) -> None:
    """header.json declares 2 bytes but unpacks to 768 MiB: the reader stops at the declared
    size (before: Inspect's reader unpacked it whole, 3.3 GB RSS for a 3 GB member)."""
    members = [m for m in members_of(judge_log) if m.name != "header.json"]
    members.insert(0, bomb_member("header.json", 768 * 2**20, method, declared=2))
    result = _in_child(write_zip(members), sample_dir, tmp_path)
    outcome = str(result["outcome"])
    assert outcome.startswith("refused"), outcome
    assert "'header.json' declares 2 bytes but unpacks to more" in outcome
    assert "bomb.eval" in outcome and "unchanged" in outcome


def test_a_sample_that_lies_about_its_size_is_stopped_too(
    judge_log: bytes, sample: Release
) -> None:
    members = members_of(judge_log)
    victim = next(m for m in members if m.name.startswith("samples/"))
    members[members.index(victim)] = bomb_member(victim.name, 64 * 2**20, 93, declared=100)
    text = _refusal(write_zip(members), sample)
    assert f"{victim.name!r} declares 100 bytes but unpacks to more" in text


def test_an_honest_huge_header_is_refused_before_it_is_unpacked(
    judge_log: bytes, sample: Release, sample_dir: Path, tmp_path: Path
) -> None:
    """A 0.1 MB log honestly declaring a 200 MB header.json of whitespace before its JSON
    (before: unpacked, parsed and scored; 1.9 GB took 4 GB RSS and 58 s)."""
    members = members_of(judge_log)
    k = next(i for i, m in enumerate(members) if m.name == "header.json")
    head = members[k].data
    members[k] = bomb_member("header.json", 200_000_000, 93, fill=b" ", tail=head)
    data = write_zip(members)
    assert len(data) < 1_000_000
    result = _in_child(data, sample_dir, tmp_path)
    outcome = str(result["outcome"])
    assert outcome.startswith("refused"), outcome
    cap = Limits().max_log_header_bytes
    assert f"'header.json' unpacks to {200_000_000 + len(head):,} bytes" in outcome
    assert f"limit of {cap:,}" in outcome


def test_a_log_of_too_many_members_is_refused(judge_log: bytes, sample: Release) -> None:
    """45,000 empty members (before: listed, and the log scored)."""
    members = members_of(judge_log)
    members += [Member(f"junk/{k}", b"", method=zipfile.ZIP_STORED) for k in range(45_000)]
    text = _refusal(write_zip(members), sample)
    assert f"has {len(members):,} members, more than the limit of 40,000" in text


def test_a_table_of_contents_too_large_is_refused_before_zipfile_reads_it(
    judge_log: bytes, sample: Release
) -> None:
    few = Limits(max_log_members=10)
    long_names = [Member("x" * 300 + str(k), b"") for k in range(6)]
    with pytest.raises(InputError) as caught:
        log_rows(write_zip(members_of(judge_log) + long_names), "many.eval", sample, few)
    text = str(caught.value.problems[0])
    assert "many.eval" in text and "table of contents" in text and "of 10 members" in text
