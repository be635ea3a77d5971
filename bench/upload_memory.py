"""Peak memory of reading hostile uploads: ZIP-bomb Inspect logs, a huge JSON line, a Parquet
file of one long repeated text, and a normal log for contrast.

Usage::

    .venv/bin/python bench/upload_memory.py [--data BUILD | --synthetic]

Each case runs in a fresh child process, twice: through :func:`medqade.scoring.parse_submission`
and :func:`~medqade.scoring.score` with 1,000 resamples (what ``medqade score`` does with a
file) and through the Space's submit path
(``SpaceState.submit``, the ``/submit`` handler's work, with its results folder in a temporary
directory). The child reports its resident memory after its imports and the release are loaded
(*base*), then resets the kernel's peak (``/proc/self/clear_refs``) and reports the peak
(``VmHWM``) after the upload, so *added* is what the upload cost.
Without ``--data`` the sample release (``data/sample``, 6 question sets) is built into a
temporary folder; ``--synthetic`` takes the embedded synthetic release (3,800 sets, built into
the cache on first use). The normal log is ``inspect eval medqade/judge`` with a mock model
over all of the release's sets.

The bombs are written by ``tests/scoring/eval_zip.py`` from a log of the sample release (every
file stays under the Space's 20 MiB upload limit, so each reaches the reader): a ``header.json``
declaring 2 bytes that unpacks to 3 GB (Zstandard) or 1 GB (deflate), an honest 1.9 GB
``header.json`` of whitespace (a 2 MB file), 45,000 empty members, a JSON Lines file whose
second line is 15 MB, and a Parquet file with a 1 MB answer on 20,000 rows. Prints a table;
asserts nothing (the budget is in docs/space.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "scoring"))

CHILD = """
import json, sys, tempfile
from pathlib import Path
from medqade.dataset.release import load_release
from medqade.files.problems import InputError
from medqade.scoring import parse_submission, score
import inspect_ai.log

def status_kb(key):
    return next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith(key))

release = load_release(Path(sys.argv[1]))
path, how = Path(sys.argv[2]), sys.argv[3]
if how == "space":
    from dataclasses import replace
    from medqade.app.config import SpaceConfig
    from medqade.app.state import SpaceState
    results = Path(tempfile.mkdtemp()) / "results"
    config = SpaceConfig(results_dir=results, rate_limit=0)  # 1,000 resamples, as deployed
    state = SpaceState(release, results, config, background=False, analyses=False)
with open("/proc/self/clear_refs", "w") as f:  # the peak (VmHWM) starts again from here
    f.write("5")
base = status_kb("VmRSS")
if how == "space":
    outcome = state.submit(path, None, {"name": "Bench"}, "bench-user")
    first = str(outcome.problems[0]) if outcome.problems else outcome.message
    said = "scored" if outcome.ok else "refused: " + first.splitlines()[0][:160]
else:
    try:
        sub = parse_submission(path.read_bytes(), path.name, release)
        score(release, sub, {"name": "Bench"}, 1000)
        said = "scored"
    except InputError as exc:
        said = "refused: " + str(exc.problems[0])[:160]
peak = status_kb("VmHWM")
print(json.dumps({"base_mb": base / 1024, "peak_mb": peak / 1024, "said": said}))
"""


def normal_log(data: Path, folder: Path) -> bytes:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from medqade.dataset.release import load_release
    from medqade.runners.inspect_tasks import judge

    n = load_release(data).n_items
    reply = json.dumps({**{f"resp_{i}": "Richtig" for i in range(1, 6)}, "difficulty": "Mittel"})
    outputs = []
    for _ in range(n):  # with usage given, Inspect counts no tokens itself (no download)
        out = ModelOutput.from_content("mockllm/model", reply)
        out.usage = ModelUsage(input_tokens=900, output_tokens=60, total_tokens=960)
        outputs.append(out)
    (log,) = inspect_eval(
        judge(data=str(data), split="all", resamples=0),
        model=get_model("mockllm/model", custom_outputs=outputs),
        log_dir=str(folder / "logs"),
        display="none",
    )
    return Path(log.location).read_bytes()


def cases(log: bytes, small: bytes, folder: Path) -> dict[str, Path]:
    """The normal ``log``, and the bombs made from ``small`` (a log of the sample release, so
    that every file stays under the Space's 20 MiB upload limit and reaches the reader)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from eval_zip import Member, bomb_member, members_of, write_zip

    members = members_of(small)
    rest = [m for m in members if m.name != "header.json"]
    head = next(m for m in members if m.name == "header.json").data
    made = {
        "normal judge log": log,
        "zstd: header.json declares 2 B, unpacks 3 GB": write_zip(
            [bomb_member("header.json", 3 * 2**30, 93, declared=2), *rest]
        ),
        "deflate: header.json declares 2 B, unpacks 1 GB": write_zip(
            [bomb_member("header.json", 2**30, 8, declared=2), *rest]
        ),
        "honest 1.9 GB header.json of whitespace": write_zip(
            [bomb_member("header.json", 1_900_000_000, 93, fill=b" ", tail=head), *rest]
        ),
        "45,000 empty members": write_zip(
            members + [Member(f"junk/{k}", b"", method=0) for k in range(45_000)]
        ),
    }
    paths = {}
    for k, (label, data) in enumerate(made.items()):
        paths[label] = folder / f"case{k}.eval"
        paths[label].write_bytes(data)
    line = folder / "huge_line.jsonl"
    line.write_bytes(
        b'{"meta": {"name": "x"}}\n{"question_id": "Q", "answer": ['
        + b"{}," * 5_000_000
        + b"{}]}\n"
    )
    paths["JSON Lines: one 15 MB line"] = line
    rows = 20_000
    answer = pa.DictionaryArray.from_arrays(
        pa.array([0] * rows, pa.int32()), pa.array(["a" * 1_000_000])
    )
    parquet = folder / "repeated.parquet"
    ids = pa.array([f"Q{k}" for k in range(rows)])
    pq.write_table(pa.table({"question_id": ids, "answer": answer}), parquet)
    paths["Parquet: a 1 MB answer on 20,000 rows"] = parquet
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--synthetic", action="store_true", help="the 3,800-set release")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="medqade-upload-memory-") as tmp:
        folder = Path(tmp)
        from medqade.dataset.build import build

        sample = folder / "sample"
        build(ROOT / "data" / "sample", sample)
        data = args.data
        if args.synthetic:
            from medqade.dataset.sources import default_build

            data = default_build(print, hold_out=None)
        elif data is None:
            data = sample
        small = normal_log(sample, folder) if sample != data else None
        log = normal_log(data, folder)
        paths = cases(log, small or log, folder)
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        print(f"load: {Path('/proc/loadavg').read_text().strip()}")
        columns = f"{'file':>9} {'path':6} {'base MB':>8} {'peak MB':>8} {'added':>7}"
        print(f"{'case':48} {columns}  outcome")
        for label, path in paths.items():
            for how in ("score", "space"):
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, str(data), str(path), how],
                    capture_output=True,
                    text=True,
                    env=env,
                    check=False,
                )
                if done.returncode:
                    print(f"{label:48} {how}: child failed: {done.stderr.strip()[-300:]}")
                    continue
                r = json.loads(done.stdout.strip().splitlines()[-1])
                size = path.stat().st_size / 1e6
                added = r["peak_mb"] - r["base_mb"]
                print(
                    f"{label:48} {size:7.2f}MB {how:6} {r['base_mb']:8.0f} {r['peak_mb']:8.0f} "
                    f"{added:7.0f}  {r['said'][:90]}"
                )
        print(f"load: {Path('/proc/loadavg').read_text().strip()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
