"""Cold start of the Space as a user waits for it: process start to the first HTTP 200.

Usage::

    .venv/bin/python bench/space_cold.py [--data D] [--repeat 3]

Starts ``medqade space`` (the console script beside this interpreter) in a fresh process with
an empty results folder on a free port, and times from the spawn to the first answer of the
page, then to the log line that says the process is ready. Includes the interpreter start and
every import (``import gradio`` alone takes seconds), which ``bench/space.py`` leaves out.
Each run gets a fresh results folder (the reference rows are computed in the background after
the page serves, as on a new Space); the synthetic release is built before the first run.
The Analysis figures are cached in the user cache folder (``medqade.app.figure_cache``): the
first run after a change of the code or the release computes them, later runs read them.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one(data: str | None, timeout: float) -> float:
    port = free_port()
    results = tempfile.mkdtemp(prefix="medqade-cold-")
    exe = Path(sys.executable).with_name("medqade")
    cmd = [str(exe), "space", "--port", str(port), "--results", results]
    if data:
        cmd += ["--data", data]
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - t0 < timeout:
            if proc.poll() is not None:
                raise RuntimeError(f"medqade space exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    if r.status == 200:
                        return time.perf_counter() - t0
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.05)
        raise TimeoutError("the Space did not serve in time")
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="build folder (default: synthetic)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=180.0)
    args = parser.parse_args()
    times = [one(args.data, args.timeout) for _ in range(args.repeat)]
    print(
        f"cold start, process start to first HTTP 200: median {statistics.median(times):.1f} s, "
        f"min {min(times):.1f} s, max {max(times):.1f} s ({len(times)} runs)"
    )


if __name__ == "__main__":
    main()
