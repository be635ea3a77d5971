"""What ``--data`` names (:mod:`medqade.dataset.sources`): a build, a raw release built once
into the cache, or the embedded synthetic default; anything else is refused saying why."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from medqade.dataset import sources
from medqade.files.guards import PRIVATE_MANIFEST

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDQADE_CACHE", str(tmp_path / "c"))
    assert sources.cache_dir() == tmp_path / "c"


def test_a_build_is_used_as_it_is_and_a_raw_release_is_built_once(
    built_sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDQADE_CACHE", str(tmp_path / "cache"))
    assert sources.is_build(built_sample) and not sources.is_raw(built_sample)
    assert sources.resolve_data(str(built_sample)) == built_sample
    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw)
    assert sources.is_raw(raw) and not sources.is_build(raw)
    target = sources.resolve_data(raw)
    assert target.parent == tmp_path / "cache" and sources.is_build(target)
    stamp = (target / "release.json").stat().st_mtime_ns
    assert sources.resolve_data(raw) == target  # the cached build, not built again
    assert (target / "release.json").stat().st_mtime_ns == stamp


def test_anything_else_is_refused_saying_why(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="neither a MedQADE build folder nor a raw"):
        sources.resolve_data(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such folder, and not a Hub repo id"):
        sources.resolve_data(str(tmp_path / "missing" / "deeper"))


def test_the_default_build_says_each_step_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded default is synthesized and built once (stubbed here: the real build is
    tests/commands/test_synthesize.py's and tests/dataset/test_build.py's)."""
    import medqade.dataset.build
    import medqade.synthetic

    monkeypatch.setenv("MEDQADE_CACHE", str(tmp_path))

    def synthesize(raw: Path, seed: int) -> Path:
        assert seed == sources.SYNTHETIC_SEED
        shutil.copytree(SAMPLE, raw)
        return raw

    def build(raw: Path, out: Path, **held: Any) -> None:
        (out / "data").mkdir(parents=True)
        (out / "release.json").write_text("{}", encoding="utf-8")
        if held:
            held["private_out"].mkdir(parents=True)
            (held["private_out"] / PRIVATE_MANIFEST).write_text("{}", encoding="utf-8")

    monkeypatch.setattr(medqade.synthetic, "synthesize", synthesize)
    monkeypatch.setattr(medqade.dataset.build, "build", build)
    said: list[str] = []
    target = sources.default_build(said.append)
    assert [line[:5] for line in said] == ["[1/2]", "[2/2]", "synth"]
    assert sources.default_build(said.append) == target and len(said) == 3
    held = sources.DEFAULT_HOLD_OUT
    assert held is not None and f"{held.items} items' labels held out" in said[1]
    assert sources.default_targets(held)[0] == target


def test_the_default_is_opened_with_its_own_private_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ``--data``: the default build with its hold-out, its labels restored from the private
    part beside it; what the public sees is the build without them (``published``)."""
    import numpy as np

    import medqade.synthetic
    from medqade.dataset.build import build
    from medqade.dataset.holdout import HoldOut

    monkeypatch.setenv("MEDQADE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(sources, "DEFAULT_HOLD_OUT", HoldOut(3, 7))
    monkeypatch.setattr(
        medqade.synthetic, "synthesize", lambda raw, seed: shutil.copytree(SAMPLE, raw)
    )
    opened = sources.open_release()
    build(SAMPLE, tmp_path / "full")
    full = sources.open_release(tmp_path / "full")
    assert opened.restored and opened.held_out.sum() == 3 and not opened.withholds
    assert opened.published.withholds and opened.published.unlabelled.sum() == 3
    np.testing.assert_array_equal(opened.consensus, full.consensus)
    assert sources.open_release(None, None).data_hash == opened.data_hash


def test_open_release_restores_the_held_out_labels_and_refuses_a_wrong_private_part(
    tmp_path: Path,
) -> None:
    """``open_release(data, private)``: the public build alone withholds (one note line), with
    its private part every label is back and equals the build without a hold-out."""
    import numpy as np

    from medqade.dataset.build import build
    from medqade.dataset.holdout import HoldOut

    full, pub, priv = tmp_path / "full", tmp_path / "pub", tmp_path / "priv"
    build(SAMPLE, full)
    build(SAMPLE, pub, hold_out=HoldOut(3, 7), private_out=priv)
    alone = sources.open_release(pub)
    note = sources.withheld_note(alone)
    assert alone.withholds and note is not None and "3 of 6 items" in note
    assert "\n" not in note and "--private-labels" in note
    both = sources.open_release(pub, priv)
    reference = sources.open_release(full)
    assert not both.withholds and sources.withheld_note(both) is None
    assert both.held_out.sum() == 3
    np.testing.assert_array_equal(both.consensus, reference.consensus)
    np.testing.assert_array_equal(both.physician_labels, reference.physician_labels)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        sources.open_release(pub, tmp_path / "missing")
    with pytest.raises(ValueError, match="holds no labels out"):
        sources.open_release(full, priv)
