"""The private part of a build with held-out labels: its documented files and manifest, read
back and checked; a changed file, a foreign folder or another build's private part refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from medqade.dataset.build import build
from medqade.dataset.holdout import ANSWER_LABELS, HoldOut
from medqade.dataset.private_part import (
    NAME,
    PrivateManifest,
    private_files,
    read_private,
)
from medqade.dataset.release import load_release
from medqade.files.problems import InputError

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("private")
    out = {}
    for name, n in (("a", 2), ("b", 3)):
        out[f"pub_{name}"], out[f"priv_{name}"] = root / f"pub_{name}", root / f"priv_{name}"
        build(SAMPLE, out[f"pub_{name}"], hold_out=HoldOut(n), private_out=out[f"priv_{name}"])
    return out


def test_the_documented_files_and_manifest(parts: dict[str, Path]) -> None:
    priv = parts["priv_a"]
    names = sorted(p.relative_to(priv).as_posix() for p in priv.rglob("*") if p.is_file())
    assert names == [
        "data/answers/core.parquet",
        "data/answers/extension.parquet",
        "data/questions/core.parquet",
        "data/questions/extension.parquet",
        "data/ratings/core.parquet",
        "data/ratings/extension.parquet",
        "medqade-private.json",
    ]
    assert pq.read_schema(priv / "data/answers/core.parquet").names == [
        "answer_id",
        "question_id",
        *ANSWER_LABELS,
    ]
    assert pq.read_schema(priv / "data/questions/core.parquet").names == [
        "question_id",
        "difficulty_mean",
        "difficulty_tier",
        "difficulty_ratings",
    ]
    manifest = json.loads((priv / "medqade-private.json").read_text("utf-8"))
    assert manifest["name"] == NAME and manifest["format"] == 1
    assert set(manifest) == {
        "name", "format", "items", "seed", "item_ids", "public_data_hash", "source_hash", "files"
    }  # fmt: skip
    part = read_private(priv)
    held = load_release(parts["pub_a"]).held_out
    assert sorted(part.manifest.all_ids) == sorted(
        load_release(parts["pub_a"]).item_ids[held].tolist()
    )
    assert private_files(priv) == {"medqade-private.json", *manifest["files"]}
    assert private_files(parts["pub_a"]) is None
    again = PrivateManifest.from_json((priv / "medqade-private.json").read_bytes(), "x")
    assert again.to_json() == (priv / "medqade-private.json").read_text("utf-8")


def test_a_changed_or_missing_file_is_refused(parts: dict[str, Path], tmp_path: Path) -> None:
    priv = tmp_path / "priv"
    shutil.copytree(parts["priv_a"], priv)
    (priv / "data/ratings/core.parquet").write_bytes(b"not parquet")
    with pytest.raises(InputError, match=r"data/ratings/core\.parquet is changed"):
        read_private(priv)
    (priv / "data/ratings/core.parquet").unlink()
    with pytest.raises(InputError, match=r"data/ratings/core\.parquet is missing"):
        read_private(priv)
    with pytest.raises(InputError, match=r"no medqade-private\.json"):
        read_private(parts["pub_a"])
    (priv / "medqade-private.json").write_text('{"name": "other"}', encoding="utf-8")
    with pytest.raises(InputError, match="does not name"):
        read_private(priv)


def test_another_builds_private_part_is_refused(parts: dict[str, Path]) -> None:
    public = load_release(parts["pub_a"])
    with pytest.raises(InputError, match="withheld from another build"):
        public.with_private(parts["priv_b"])
    restored = public.with_private(parts["priv_a"])
    with pytest.raises(InputError, match="restored already"):
        restored.with_private(parts["priv_a"])
