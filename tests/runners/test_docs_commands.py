"""README's and docs/runners.md's Inspect commands, run as they stand (issue 36).

Every ``bash`` block after a ``<!-- run by tests/runners/test_docs_commands.py -->`` line is
run with ``bash -e`` in a fresh folder, with this environment's ``inspect`` and ``medqade`` on
``PATH``; the only change is the server's address (``http://127.0.0.1:8765/v1`` becomes the
test server's, which takes a free port). The block after ``<!-- checked by ...: the server's
flags -->`` starts llama-cpp-python: its flags must be those the test server is started with.
Against the real llama-cpp-python server (``real_server``, skipped with the reason without it)
and, always, against the stub server (the same commands; the stub answers every format).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from servers.llama_server import LlamaServer
from servers.stub_server import StubServer

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "README.md", ROOT / "docs" / "runners.md")
RUN_MARK = "<!-- run by tests/runners/test_docs_commands.py -->"
SERVER_MARK = "<!-- checked by tests/runners/test_docs_commands.py: the server's flags -->"
DOC_URL = "http://127.0.0.1:8765/v1"
_BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)


def blocks(path: Path, mark: str) -> list[str]:
    """The ``bash`` blocks that follow ``mark`` in ``path`` (the next block after each)."""
    text = path.read_text(encoding="utf-8")
    out = []
    for part in text.split(mark)[1:]:
        found = _BLOCK.search(part)
        assert found is not None, f"{path.name}: no bash block after {mark}"
        out.append(found.group(1))
    return out


def _documented() -> list[tuple[str, str]]:
    return [(p.name, b) for p in DOCS for b in blocks(p, RUN_MARK)]


def test_each_doc_has_a_block_the_test_runs() -> None:
    assert {name for name, _ in _documented()} == {p.name for p in DOCS}
    for _, block in _documented():
        assert DOC_URL in block and "LLAMA_API_KEY=" in block
        assert "inspect eval medqade/judge" in block and "medqade score" in block


def _run(block: str, base_url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INSPECT_", "LLAMA_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["NO_COLOR"] = "1"
    script = block.replace(DOC_URL, base_url)
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def _check(done: subprocess.CompletedProcess[str], cwd: Path) -> None:
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert len(list((cwd / "logs").glob("*.eval"))) == 1
    inspect_part, _, score_part = done.stdout.partition("Log: logs/")
    assert "(judge), scope partial, 2 rows" in score_part, out[-4000:]  # medqade score
    # two of the core's sets: Inspect's metrics and the score say so; Inspect gives no verdict
    assert re.search(r"covered_core\s+0\.010", inspect_part), inspect_part[-3000:]
    assert re.search(r"partial_coverage\s+1\.000", inspect_part), inspect_part[-3000:]
    assert "verdict_" not in inspect_part
    assert "flags: partial_coverage" in score_part


@pytest.mark.parametrize(("doc", "block"), _documented(), ids=lambda x: str(x)[:20])
def test_doc_commands_against_the_stub(doc: str, block: str, tmp_path: Path) -> None:
    with StubServer() as stub:
        done = _run(block, stub.base_url, tmp_path)
        assert stub.requests, "the commands never reached the server"
    _check(done, tmp_path)


def test_doc_server_flags_are_the_test_servers(tmp_path: Path) -> None:
    (block,) = blocks(ROOT / "docs" / "runners.md", SERVER_MARK)
    argv = shlex.split(block)
    assert argv[:3] == ["python", "-m", "llama_cpp.server"]
    with open(os.devnull, "wb") as log:
        tested = LlamaServer(Path("python"), Path("model.gguf"), log).argv()[1:]
    flags = dict(zip(argv[3::2], argv[4::2], strict=True))
    given = dict(zip(tested[2::2], tested[3::2], strict=True))
    for flag, value in flags.items():
        if flag == "--port":
            continue  # the test server takes a free port
        assert given.get(flag) == value, (flag, value, given.get(flag))


@pytest.mark.real_server
@pytest.mark.parametrize(("doc", "block"), _documented(), ids=lambda x: str(x)[:20])
def test_doc_commands_against_the_real_server(
    doc: str, block: str, tmp_path: Path, server: LlamaServer
) -> None:
    done = _run(block, server.base_url, tmp_path)
    _check(done, tmp_path)
