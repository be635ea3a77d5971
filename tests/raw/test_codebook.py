"""The codebook: the German default's structure, the rules a review must keep, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.files.problems import InputError
from medqade.raw.codebook import DEFAULT_CODEBOOK, load_codebook


def test_default_codebook_has_one_exclusive_required_group_and_combinable_ones() -> None:
    groups = DEFAULT_CODEBOOK.groups
    assert [g.id for g in groups] == ["bezug", "sprache", "sicherheit"]
    assert groups[0].exclusive and groups[0].required
    assert not any(g.exclusive or g.required for g in groups[1:])
    ids = DEFAULT_CODEBOOK.code_ids
    assert len(ids) == len(set(ids))
    assert all(c.label and c.description for g in groups for c in g.codes)


def test_problems_with_names_each_broken_rule() -> None:
    book = DEFAULT_CODEBOOK
    assert book.problems_with(["unscharf", "sprachmischung", "dosis"]) == []
    msgs = [m for m, _ in book.problems_with(["unscharf", "verfehlt"])]
    assert any("exclude each other" in m for m in msgs)
    msgs = [m for m, _ in book.problems_with(["dosis"])]
    assert msgs == ["no code of the group 'Bezug der Antwort zur Frage'"]
    msgs = [m for m, _ in book.problems_with(["treffend", "erfunden"])]
    assert msgs == ["unknown code 'erfunden'"]
    msgs = [m for m, _ in book.problems_with(["treffend", "treffend"])]
    assert msgs == ["code(s) given twice: treffend"]


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "book.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_owners_codebook_is_loaded_from_its_file(tmp_path: Path) -> None:
    data = {
        "name": "eigen",
        "groups": [
            {
                "id": "art",
                "title": "Art",
                "exclusive": True,
                "required": True,
                "codes": [{"id": "a1", "label": "Eins"}, {"id": "a2", "label": "Zwei"}],
            }
        ],
    }
    book = load_codebook(_write(tmp_path, data))
    assert book.name == "eigen" and book.code_ids == ("a1", "a2")
    assert book.label("a2") == "Zwei"


def test_bad_codebook_names_every_fault(tmp_path: Path) -> None:
    data = {
        "groups": [
            {"id": "g", "title": "G", "exclusive": "ja", "codes": [{"id": "A-1", "label": ""}]},
            {"id": "h", "title": "H", "required": True, "codes": [{"id": "x", "label": "X"}]},
        ]
    }
    with pytest.raises(InputError) as info:
        load_codebook(_write(tmp_path, data))
    text = str(info.value)
    assert "groups[0]: 'exclusive' must be true or false, got 'ja'" in text
    assert "groups[0].codes[0]: code id 'A-1' must be lower-case" in text
    assert "groups[0].codes[0]: 'label' must be non-empty text" in text
    assert "groups[1]: only an exclusive group can be required" in text


def test_codebook_that_is_not_json_is_one_problem_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "book.json"
    path.write_text('{\n  "groups": [,]\n}', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_codebook(path)
    assert "book.json, line 2: malformed JSON" in str(info.value)


def _group(gid: str, code: str) -> dict[str, object]:
    return {"id": gid, "title": gid.title(), "codes": [{"id": code, "label": code.title()}]}


def test_codebook_duplicate_group_ids(tmp_path: Path) -> None:
    path = _write(tmp_path, {"groups": [_group("art", "a1"), _group("art", "a2")]})
    with pytest.raises(InputError) as info:
        load_codebook(path)
    assert "book.json: groups[1]: group id 'art' is used twice" in str(info.value)


@pytest.mark.parametrize("gid", ["note", "answer"])
def test_codebook_group_id_reserved(tmp_path: Path, gid: str) -> None:
    path = _write(tmp_path, {"groups": [_group("art", "a1"), _group(gid, "a2")]})
    with pytest.raises(InputError) as info:
        load_codebook(path)
    assert f"book.json: groups[1]: the group id {gid!r} is reserved" in str(info.value)
