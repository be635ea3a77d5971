"""Tests of medqade.dataset.meta: the one reader and writer of a build's ``release.json``.

Oracle for the bytes: the format the build always wrote, ``json.dumps(obj, ensure_ascii=False,
indent=2, sort_keys=True) + "\\n"``, applied to the parsed file by the standard library.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from medqade import vocab
from medqade.dataset.meta import RELEASE_JSON, ReleaseMeta
from medqade.dataset.release import load_release, read_meta
from medqade.files.problems import InputError

ROSTER = vocab.DEFAULT_ROSTER.to_dict()


def _old_format(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def test_a_built_release_json_reads_and_writes_back_byte_identical(built_sample: Path) -> None:
    text = (built_sample / RELEASE_JSON).read_text(encoding="utf-8")
    assert text == _old_format(json.loads(text))  # the build wrote the format it always did
    meta = ReleaseMeta.from_json(text, RELEASE_JSON)
    assert meta.to_json() == text
    assert meta.to_dict() == json.loads(text)
    assert read_meta(built_sample) == meta
    assert load_release(built_sample).meta == meta


def test_the_typed_fields_are_the_files_values(built_sample: Path) -> None:
    raw = json.loads((built_sample / RELEASE_JSON).read_text(encoding="utf-8"))
    meta = read_meta(built_sample)
    assert meta.name == "MedQADE"
    assert meta.configs == tuple(raw["configs"])
    assert meta.is_synthetic is bool(raw["synthetic"])
    assert meta.parsed_roster.to_dict() == raw["roster"]
    assert dict(meta.files or {}) == raw["files"]
    assert meta.other == {}


def test_unknown_keys_are_kept_and_absent_keys_stay_absent() -> None:
    obj = {"roster": ROSTER, "configs": ["questions"], "from_the_future": {"x": [1, "ü"]}}
    meta = ReleaseMeta.from_json(json.dumps(obj), "r.json")
    assert meta.version is None and meta.files is None and meta.pool is None
    assert meta.pool_judges == () and not meta.has_pool_judgments and not meta.is_synthetic
    assert meta.to_json() == _old_format(obj)
    assert replace(meta, version="9").to_dict() == {**obj, "version": "9"}


@pytest.mark.parametrize(
    ("obj", "why"),
    [
        ([1, 2], "not a JSON object"),
        ({"configs": []}, "no 'roster'"),
        ({"roster": ROSTER, "configs": "questions"}, "'configs' not a list"),
        ({"roster": ROSTER, "configs": [], "synthetic": "yes"}, "'synthetic' is \"yes\""),
        ({"roster": ROSTER, "configs": [], "n_warnings": True}, "'n_warnings' is true"),
        ({"roster": {"students": 3}, "configs": []}, "its roster is not valid"),
    ],
)
def test_a_non_build_file_is_refused_with_what_and_the_fix(obj: object, why: str) -> None:
    with pytest.raises(InputError) as caught:
        ReleaseMeta.from_json(json.dumps(obj), "some/release.json")
    text = str(caught.value)
    assert "some/release.json" in text and why in text
    assert "rebuild the folder with `medqade build RAW OUT`" in text


def test_text_that_is_not_json_is_refused() -> None:
    with pytest.raises(InputError, match="not valid UTF-8 JSON"):
        ReleaseMeta.from_json(b"\xff{", "r.json")
