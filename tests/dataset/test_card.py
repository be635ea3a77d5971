"""The dataset card (:mod:`medqade.dataset.card`): its YAML block (license, gating, configs,
features) and the README a build writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from medqade import vocab
from medqade.dataset.build import build
from medqade.dataset.card import GATING_FIELDS, card_data, render_card

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


@pytest.fixture(scope="module")
def meta(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("card") / "build"
    build(SAMPLE, out)
    data: dict[str, Any] = json.loads((out / "release.json").read_text(encoding="utf-8"))
    return data


def test_card_data_names_license_gating_and_every_config(meta: dict[str, Any]) -> None:
    data = card_data(meta, ()).to_dict()
    assert data["license"] == "cc-by-nc-4.0" and data["language"] == ["de"]
    assert data["size_categories"] == ["n<1K"]
    assert data["extra_gated_fields"] == GATING_FIELDS
    assert data["medqade_canary"] == vocab.CANARY
    assert ("synthetic" in data["tags"]) == bool(meta["synthetic"])
    configs = {c["config_name"]: c for c in data["configs"]}
    assert set(configs) == set(meta["configs"]) and configs["questions"]["default"] is True
    assert {f["split"] for f in configs["answers"]["data_files"]} == set(vocab.SPLITS)


def test_the_rendered_card_starts_with_its_yaml_block(meta: dict[str, Any]) -> None:
    text = render_card(meta, ())
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n", 2)[1])
    assert header["license"] == "cc-by-nc-4.0"
    assert vocab.CANARY in text
