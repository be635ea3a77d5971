"""``Limits``: the defaults an upload is held to, and that they cannot be changed in place."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from medqade.scoring.intake.limits import Limits


def test_defaults() -> None:
    limits = Limits()
    assert (limits.max_bytes, limits.max_rows, limits.max_answer_chars) == (
        20_000_000,
        100_000,
        300,
    )
    assert limits.max_log_bytes > limits.max_bytes  # an Inspect log may be larger


def test_frozen_and_overridable() -> None:
    limits = Limits(max_rows=10)
    assert limits.max_rows == 10 and limits.max_bytes == Limits().max_bytes
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.max_rows = 5  # type: ignore[misc]


# --- every upload is sized before it is parsed (issue 38) -------------------------------------


def _refusal(data: bytes, name: str, limits: Limits) -> str:
    from medqade.files.problems import InputError
    from medqade.scoring.intake.upload import read_upload

    with pytest.raises(InputError) as caught:
        read_upload(data, name, limits.max_bytes, limits=limits)
    return str(caught.value.problems[0])


def test_one_huge_json_line_is_refused_before_it_is_parsed() -> None:
    """``[{},{},...]`` in one line: json.loads takes about twenty times its bytes."""
    line = b'{"question_id": "Q", "answer": [' + b"{}," * 700_000 + b"{}]}\n"
    text = _refusal(b'{"meta": {"name": "x"}}\n' + line, "answers.jsonl", Limits())
    assert "answers.jsonl" in text and "line 2 has 2,100," in text
    assert f"limit of {Limits().max_line_bytes:,} for one line" in text


def test_more_lines_than_rows_allowed_are_refused_before_parsing() -> None:
    data = b"question_id,answer\n" + b"Q,a\n" * 13
    text = _refusal(data, "answers.csv", Limits(max_rows=10))
    assert "14 lines" in text and "limit of 10" in text


def test_a_parquet_file_is_sized_from_its_footer() -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    answers = pa.array([f"{k:06d}" + "a" * 200 for k in range(5_000)])
    buffer = io.BytesIO()
    pq.write_table(
        pa.table({"question_id": answers, "answer": answers}),
        buffer,
        use_dictionary=False,
        compression="zstd",
    )
    data = buffer.getvalue()
    assert len(data) < 100_000  # compressed: 2 MB of pages in a small file
    text = _refusal(data, "answers.parquet", Limits(max_parquet_unpacked_bytes=1_000_000))
    assert "answers.parquet" in text and "unpack to" in text and "limit of 1,000,000" in text


PARQUET_CHILD = """
import json, resource, sys
from pathlib import Path
from medqade.files.problems import InputError
from medqade.scoring.intake.upload import read_upload
data = Path(sys.argv[1]).read_bytes()
size = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmSize"))
cap = size * 1024 + 256 * 2**20
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
try:
    table = read_upload(data, "answers.parquet", 20_000_000)
    outcome = f"read {len(table.frame)} rows"
except InputError as exc:
    outcome = "refused: " + str(exc.problems[0])
except MemoryError:
    outcome = "MemoryError"
print(json.dumps({"outcome": outcome}))
"""


def test_a_parquet_text_repeated_on_every_row_is_held_once(tmp_path: Path) -> None:
    """One 1 MB text on 20,000 rows, dictionary-encoded: a 0.1 MB file that decodes to 20 GB
    (before: read_table decoded it, MemoryError under the cap)."""
    import os
    import subprocess
    import sys

    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 20_000
    answer = pa.DictionaryArray.from_arrays(
        pa.array([0] * rows, pa.int32()), pa.array(["a" * 1_000_000])
    )
    ids = pa.array([f"Q{k}" for k in range(rows)])
    path = tmp_path / "answers.parquet"
    pq.write_table(pa.table({"question_id": ids, "answer": answer}), path)
    assert path.stat().st_size < 1_000_000
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "MALLOC_ARENA_MAX": "2"}
    done = subprocess.run(
        [sys.executable, "-c", PARQUET_CHILD, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])["outcome"]
    assert outcome == f"read {rows} rows"
