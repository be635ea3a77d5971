"""The page's stylesheet and ``<head>``: well formed, and styling what the app writes."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from medqade.app import page_head, phone
from medqade.scoring import JUDGE_COLUMNS, JudgeRow


def _without_comments(css: str) -> str:
    return re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)


def test_css_comments_and_braces_are_closed() -> None:
    css = page_head.CSS
    assert css.count("/*") == css.count("*/")
    body = _without_comments(css)
    depth = 0
    for char in body:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, "a closing brace without its opening one"
    assert depth == 0


def test_every_class_of_the_phone_cards_has_a_rule() -> None:
    plain = {c: None for c in JUDGE_COLUMNS} | {"rank": 1, "rank_worst": 2, "name": "A"}
    plain |= {"kappa": 0.7, "kappa_low": 0.65, "kappa_high": 0.75, "verdict": "non-inferior"}
    row = replace(JudgeRow.from_json(plain | {"flags": ""}), verified=True)
    written = set(re.findall(r'class="([^"]+)"', phone.judges_cards([row], "core")))
    classes = {c for attr in written for c in attr.split()}
    styled = set(re.findall(r"\.(mq-[\w-]+)", _without_comments(page_head.CSS)))
    assert {"mq-card-verdict", "mq-badge", "mq-b-verified"} <= classes
    assert classes - styled <= {"mq-card", "mq-cards-head"}, classes - styled


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def test_head_holds_the_viewport_and_one_script() -> None:
    head = _Head()
    head.feed(page_head.HEAD)
    assert ("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}) in (
        head.tags
    )
    assert [t for t, _ in head.tags] == ["meta", "script"]
    assert len(head.scripts) == 1 and "postMessage" in head.scripts[0]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to parse the script")
def test_head_script_is_valid_javascript(tmp_path: Path) -> None:
    head = _Head()
    head.feed(page_head.HEAD)
    script = tmp_path / "head.js"
    script.write_text(head.scripts[0], encoding="utf-8")
    node = shutil.which("node")
    assert node is not None
    checked = subprocess.run([node, "--check", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
