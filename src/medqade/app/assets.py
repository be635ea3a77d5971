"""Gradio's own front-end files answered from memory (issue 39: a new visitor's page load).

Before the judges show, a new visitor's browser fetches about 90 of Gradio's script and style
files from the Space (each component type on the page with its dependencies). Gradio answers
each through its router, reading the file and compressing it again for every visitor: 6-17 ms of
server time per file on a small machine, most of the page load.
:class:`FrontendAssets`, an ASGI middleware in front of Gradio's routes, answers
``GET``/``HEAD`` of ``/assets/<name>`` and ``/static/<path>`` for the files of the installed
Gradio's front-end folders, each script and style compressed once (gzip, for a client that
accepts it) when first asked for and then kept in memory. The bytes are the files' own; a
path is only looked up in the folders' listing, never joined from the request; every other
request goes on to Gradio. Names under ``/assets/`` carry a content hash, so the browser may
keep them (``immutable``).
"""

from __future__ import annotations

import gzip
import mimetypes
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final

from starlette.types import ASGIApp, Receive, Scope, Send

FRONTEND: Final = "templates/frontend"
FOLDERS: Final = {"/assets/": "assets", "/static/": "static"}
"""URL prefix -> folder of Gradio's front end (its routes ``/assets/...`` and ``/static/...``)."""
HASHED: Final = "/assets/"
"""Files whose names carry a content hash (cached by the browser for a year)."""
COMPRESSIBLE: Final = (".js", ".mjs", ".css", ".json", ".html", ".svg", ".txt", ".map")
MIN_COMPRESSED: Final = 400
"""Smaller files are sent as they are (as Gradio's own middleware does)."""
MAX_BYTES: Final = 2_000_000
"""Larger files (none that a page loads at start) are left to Gradio."""
TYPES: Final = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css"}


def frontend_files(root: Path | None = None) -> dict[str, Path]:
    """URL path -> file for every file of Gradio's front-end folders under ``root`` (default:
    the installed Gradio's)."""
    base = root if root is not None else Path(str(resources.files("gradio").joinpath(FRONTEND)))
    out: dict[str, Path] = {}
    for prefix, folder in FOLDERS.items():
        top = base / folder
        if not top.is_dir():
            continue
        for path in top.rglob("*"):
            if path.is_file():
                out[prefix + path.relative_to(top).as_posix()] = path
    return out


class FrontendAssets:
    """ASGI middleware: Gradio's front-end files from memory (see the module docstring)."""

    def __init__(self, app: ASGIApp, files: Mapping[str, Path] | None = None) -> None:
        self.app = app
        self.files = dict(frontend_files() if files is None else files)
        self._packed: dict[str, bytes] = {}

    def body(self, path: str, compressed: bool) -> tuple[bytes, bool] | None:
        """The file's bytes, gzip-compressed (once, then kept) when ``compressed`` and worth
        it, and whether they are compressed; ``None`` for a file over :data:`MAX_BYTES`."""
        packed = self._packed.get(path) if compressed else None
        if packed is not None:
            return packed, True
        file = self.files[path]
        size = file.stat().st_size
        if size > MAX_BYTES:
            return None
        if compressed and size >= MIN_COMPRESSED and path.endswith(COMPRESSIBLE):
            packed = gzip.compress(file.read_bytes(), compresslevel=6, mtime=0)
            self._packed[path] = packed
            return packed, True
        return file.read_bytes(), False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", "")) if scope["type"] == "http" else ""
        root = str(scope.get("root_path", "") or "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if path not in self.files or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        accepts = _header(scope, b"accept-encoding")
        try:
            found = self.body(path, "gzip" in accepts)
        except OSError:  # gone from disk: Gradio answers (404)
            found = None
        if found is None:
            await self.app(scope, receive, send)
            return
        body, packed = found
        kind = (
            TYPES.get(Path(path).suffix)
            or mimetypes.guess_type(path)[0]
            or "application/octet-stream"
        )
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        headers = [
            (b"content-type", kind.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"vary", b"Accept-Encoding"),
        ]
        if packed:
            headers.append((b"content-encoding", b"gzip"))
        if path.startswith(HASHED):
            headers.append((b"cache-control", b"public, max-age=31536000, immutable"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


def middleware() -> list[Any]:
    """The ``middleware`` argument of Gradio's FastAPI app (``launch(app_kwargs=...)``)."""
    from starlette.middleware import Middleware

    return [Middleware(FrontendAssets)]


__all__: Sequence[str] = ["FrontendAssets", "frontend_files", "middleware"]
