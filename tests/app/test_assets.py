"""Gradio's front-end files from memory (issue 39: the page load of a new visitor)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from medqade.app import assets


def front_end(tmp_path: Path) -> Path:
    (tmp_path / "assets").mkdir()
    (tmp_path / "static" / "fonts").mkdir(parents=True)
    (tmp_path / "assets" / "index-abc.js").write_text("export const x = 1;\n" * 100)
    (tmp_path / "assets" / "tiny-abc.css").write_text("a{}")
    (tmp_path / "static" / "fonts" / "f.woff2").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "secret.txt").write_text("not served")
    return tmp_path


def client(root: Path) -> tuple[TestClient, list[str]]:
    """The middleware in front of an app that records what reached it."""
    seen: list[str] = []

    async def inner(request: Request) -> PlainTextResponse:
        seen.append(request.url.path)
        return PlainTextResponse("gradio", status_code=404)

    files = assets.frontend_files(root)
    app = Starlette(
        routes=[Route("/{path:path}", inner, methods=["GET", "HEAD", "POST"])],
        middleware=[Middleware(assets.FrontendAssets, files=files)],
    )
    return TestClient(app), seen


def test_front_end_files_are_the_two_folders_listing(tmp_path: Path) -> None:
    files = assets.frontend_files(front_end(tmp_path))
    assert sorted(files) == [
        "/assets/index-abc.js",
        "/assets/tiny-abc.css",
        "/static/fonts/f.woff2",
    ]
    assert files["/static/fonts/f.woff2"] == tmp_path / "static" / "fonts" / "f.woff2"


def test_files_are_the_files_own_bytes_compressed_once_when_accepted(tmp_path: Path) -> None:
    root = front_end(tmp_path)
    http, seen = client(root)
    script = (root / "assets" / "index-abc.js").read_bytes()
    packed = http.get("/assets/index-abc.js", headers={"accept-encoding": "gzip, br"})
    assert packed.status_code == 200 and packed.headers["content-encoding"] == "gzip"
    assert packed.content == script  # decompressed by the client
    assert int(packed.headers["content-length"]) < len(script) / 5
    assert packed.headers["content-type"].startswith("text/javascript")
    assert "immutable" in packed.headers["cache-control"]
    plain = http.get("/assets/index-abc.js", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == script
    tiny = http.get("/assets/tiny-abc.css", headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in tiny.headers and tiny.text == "a{}"
    assert tiny.headers["content-type"].startswith("text/css")
    font = http.get("/static/fonts/f.woff2", headers={"accept-encoding": "gzip"})
    assert font.content == bytes(range(256)) * 4 and "content-encoding" not in font.headers
    assert "cache-control" not in font.headers  # no content hash in the name
    head = http.head("/assets/index-abc.js")
    assert head.status_code == 200 and head.content == b""
    assert seen == []


def test_a_script_is_compressed_once(tmp_path: Path) -> None:
    root = front_end(tmp_path)
    middleware = assets.FrontendAssets(PlainTextResponse("x"), assets.frontend_files(root))
    first = middleware.body("/assets/index-abc.js", compressed=True)
    assert first is not None and first[1]
    assert gzip.decompress(first[0]) == (root / "assets" / "index-abc.js").read_bytes()
    (root / "assets" / "index-abc.js").write_text("changed")  # kept: not read again
    again = middleware.body("/assets/index-abc.js", compressed=True)
    assert again is not None and again[0] is first[0]


def test_everything_else_goes_on_to_gradio(tmp_path: Path) -> None:
    http, seen = client(front_end(tmp_path))
    for path in ("/assets/../secret.txt", "/assets/missing.js", "/secret.txt", "/", "/static/"):
        assert http.get(path).text == "gradio"
    assert http.post("/assets/index-abc.js").text == "gradio"
    assert "/secret.txt" in seen and "/assets/missing.js" in seen
    assert len(seen) == 6


def test_the_installed_gradio_page_scripts_are_among_the_files() -> None:
    """The page's own entry script (named in Gradio's index.html) is served from memory."""
    files = assets.frontend_files()
    page = (next(iter(files.values())).parents[1] / "index.html").read_text()
    entry = re.search(r'src="\./assets/([^"]+\.js)"', page)
    assert entry is not None and f"/assets/{entry.group(1)}" in files
