"""The Analysis figures cached on disk (issue 27): a second start on the same release serves
them without computing the analyses again; anything else in the cache is recomputed."""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from medqade.analyses import report as report_mod
from medqade.app import analysis, figure_cache
from medqade.app.config import SpaceConfig
from medqade.app.figure_cache import FigureCache
from medqade.app.state import SpaceState
from medqade.app.tab_analysis import Plots, judge_records
from medqade.files import folder_output

RESAMPLES = 20
SECRET = b"the Space's own key, not in the cache folder"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, int]:
    """A cache folder of this test's own, and how often the analyses and figures ran."""
    monkeypatch.setenv("MEDQADE_CACHE", str(tmp_path / "cache"))
    calls = {"reproduce": 0, "figure": 0}
    reproduce, figure = report_mod.reproduce, analysis.figure

    def counting_reproduce(*args: Any, **kwargs: Any) -> Any:
        calls["reproduce"] += 1
        return reproduce(*args, **kwargs)

    def counting_figure(*args: Any, **kwargs: Any) -> Any:
        calls["figure"] += 1
        return figure(*args, **kwargs)

    monkeypatch.setattr(report_mod, "reproduce", counting_reproduce)
    monkeypatch.setattr(analysis, "figure", counting_figure)
    return calls


def start(release: Any, tmp_path: Path) -> tuple[SpaceState, Plots, dict[str, str]]:
    """One start as ``build_app`` wires it (in the background: the records are set before the
    report is ready): the state, its plots, and every figure the Analysis tab serves first
    (the risk curves with the first judge), as PNG data URLs."""
    results = tmp_path / "results"
    config = SpaceConfig(results_dir=results, resamples=RESAMPLES)
    plots = Plots(FigureCache.of(release, config.resamples, config.seed, secret=SECRET))
    state = SpaceState(
        release,
        results,
        config,
        on_report=plots.warm,
        cached_report=plots.load,
    )
    plots.records = state.records
    report = state.report.result(timeout=120)
    state._thread.join(60)
    served = {key: plots.get(report, key).plot for key, _, _ in analysis.FIGURES}
    first = next(iter(judge_records(state.records())))  # the judge the tab shows first
    served["risk-judge"] = plots.get(report, "risk", first).plot
    return state, plots, served


def test_second_start_reads_the_cache_and_serves_the_same_bytes(
    sample_release, tmp_path: Path, counted: dict[str, int]
) -> None:
    first, _, served = start(sample_release, tmp_path)
    assert counted["reproduce"] == 1
    drawn = counted["figure"]
    assert drawn >= len(analysis.FIGURES) + 1
    folders = list((tmp_path / "cache" / figure_cache.FOLDER).iterdir())
    assert len(folders) == 1 and sorted(p.name for p in folders[0].iterdir()) == sorted(
        (folder_output.MARKER, *figure_cache.FILES)
    )

    second, _, again = start(sample_release, tmp_path)
    assert counted == {"reproduce": 1, "figure": drawn}  # nothing computed or drawn again
    assert again == served  # byte-identical images
    report_a, report_b = first.report.result(), second.report.result()
    assert report_b is not report_a and report_b.to_json() == report_a.to_json()
    assert analysis.panel_frame(report_b).equals(analysis.panel_frame(report_a))


def test_a_cached_report_is_ready_before_the_reference_rows(
    sample_release, tmp_path: Path, counted: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart serves once the cache is read, not after the reference rows (computed in
    the background on a fresh results folder); the first judge's figures follow them."""
    start(sample_release, tmp_path)
    seen: list[bool] = []
    load = SpaceState._load_references

    def loading(self: SpaceState) -> None:
        seen.append(self.report.done())
        load(self)

    monkeypatch.setattr(SpaceState, "_load_references", loading)
    drawn = counted["figure"]
    shutil.rmtree(tmp_path / "results")  # the reference rows are computed again
    state, _, _ = start(sample_release, tmp_path)
    assert seen == [True] and counted == {"reproduce": 1, "figure": drawn}
    assert state.references_ready


def test_build_app_wires_the_cache(sample_release, tmp_path: Path, counted: dict[str, int]) -> None:
    from medqade.app.ui import build_app

    config = SpaceConfig(results_dir=tmp_path / "results", resamples=RESAMPLES)
    for _ in range(2):
        demo = build_app(sample_release, config.results_dir, config, background=False)
        assert demo.medqade_state.report.result(timeout=120)
    assert counted["reproduce"] == 1


def test_another_release_or_code_misses(
    sample_release, tmp_path: Path, counted: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    start(sample_release, tmp_path)
    cache = FigureCache.of(sample_release, RESAMPLES, SpaceConfig().seed, secret=SECRET)
    assert cache.load() is not None
    for change in ({"data_hash": "0" * 64}, {"resamples": RESAMPLES + 1}, {"seed": 1}):
        other = replace(cache, key=cache.key | change)
        assert other.folder != cache.folder and other.load() is None

    monkeypatch.setattr(figure_cache, "code_fingerprint", lambda: "another code")
    moved = FigureCache.of(sample_release, RESAMPLES, SpaceConfig().seed, secret=SECRET)
    assert moved.load() is None
    start(sample_release, tmp_path)
    assert counted["reproduce"] == 2  # computed again, and cached under the new key
    assert len(list((tmp_path / "cache" / figure_cache.FOLDER).iterdir())) == 2


def test_public_and_restored_labels_of_a_hold_out_have_their_own_entries(
    sample_release, holdout_build: tuple[Path, Path], tmp_path: Path
) -> None:
    """The public build, it with its held-out labels restored and the build without a
    hold-out share the data hash; their figures differ, so their cache folders do too (the one
    without a hold-out keeps its key)."""
    from medqade.dataset.release import load_release

    public = load_release(holdout_build[0])
    restored = public.with_private(holdout_build[1])
    seed = SpaceConfig().seed
    caches = [
        FigureCache.of(r, RESAMPLES, seed, secret=SECRET, root=tmp_path)
        for r in (sample_release, public, restored)
    ]
    assert len({c.folder for c in caches}) == 3
    assert "held_out" not in caches[0].key
    assert caches[2].key["held_out"] == {"items": 3, "restored": True}


def test_the_fingerprint_follows_the_code() -> None:
    assert figure_cache.code_fingerprint() == figure_cache.code_fingerprint()
    assert "analyses" in figure_cache.CODE and "app/analysis.py" in figure_cache.CODE


@pytest.mark.parametrize("name", figure_cache.FILES)
def test_a_corrupted_file_is_recomputed(
    sample_release, tmp_path: Path, counted: dict[str, int], name: str
) -> None:
    _, _, served = start(sample_release, tmp_path)
    cache = FigureCache.of(sample_release, RESAMPLES, SpaceConfig().seed, secret=SECRET)
    path = cache.folder / name
    content = path.read_bytes()
    path.write_bytes(content[: len(content) // 2] + b"x")
    assert cache.load() is None
    _, _, again = start(sample_release, tmp_path)
    assert counted["reproduce"] == 2 and again == served
    assert path.read_bytes() != content  # an edited file is left as it is, never replaced


def rewrite(cache: FigureCache, name: str, content: bytes) -> None:
    """Replace one file and its hash in the marker, as a foreign writer could."""
    (cache.folder / name).write_bytes(content)
    marker_path = cache.folder / folder_output.MARKER
    marker = json.loads(marker_path.read_text(encoding="utf-8"))
    marker["sha256"][name] = hashlib.sha256(content).hexdigest()
    marker_path.write_text(json.dumps(marker), encoding="utf-8")


class Foreign:
    def __reduce__(self) -> tuple[Any, ...]:
        return (print, ("ran code from the cache",))


def test_foreign_content_is_never_trusted(
    sample_release, tmp_path: Path, counted: dict[str, int], capsys
) -> None:
    start(sample_release, tmp_path)
    cache = FigureCache.of(sample_release, RESAMPLES, SpaceConfig().seed, secret=SECRET)
    good = {name: (cache.folder / name).read_bytes() for name in figure_cache.FILES}
    assert cache.load() is not None

    rewrite(cache, figure_cache.REPORT_FILE, pickle.dumps(Foreign()))
    assert cache.load() is None
    assert "ran code" not in capsys.readouterr().out
    rewrite(cache, figure_cache.REPORT_FILE, pickle.dumps({"not": "a report"}))
    assert cache.load() is None
    rewrite(cache, figure_cache.REPORT_FILE, good[figure_cache.REPORT_FILE])
    assert cache.load() is not None

    key = json.loads(good[figure_cache.KEY_FILE]) | {"seed": 1}
    rewrite(cache, figure_cache.KEY_FILE, json.dumps(key).encode())
    assert cache.load() is None
    rewrite(cache, figure_cache.KEY_FILE, good[figure_cache.KEY_FILE])

    figures = json.loads(good[figure_cache.FIGURES_FILE])
    figures[0]["value"]["plot"] = "javascript:alert(1)"
    rewrite(cache, figure_cache.FIGURES_FILE, json.dumps(figures).encode())
    assert cache.load() is None
    rewrite(cache, figure_cache.FIGURES_FILE, good[figure_cache.FIGURES_FILE])
    assert cache.load() is not None

    (cache.folder / "extra.txt").write_text("foreign", encoding="utf-8")
    assert cache.load() is None


def test_a_folder_writer_cannot_forge_the_seal(
    sample_release, tmp_path: Path, counted: dict[str, int]
) -> None:
    """Issue 38: figures.json edited with its hash edited in the marker was served (the
    hashes live beside the files). The seal is keyed by the Space's secret: an edit, a seal
    recomputed without the key, or an entry sealed under another key is never served."""
    _, _, served = start(sample_release, tmp_path)
    cache = FigureCache.of(sample_release, RESAMPLES, SpaceConfig().seed, secret=SECRET)
    good = {name: (cache.folder / name).read_bytes() for name in figure_cache.FILES}
    figures = json.loads(good[figure_cache.FIGURES_FILE])
    figures[0]["value"]["plot"] = "data:image/png;base64,Zm9yZ2Vk"  # a valid-looking image
    forged = json.dumps(figures).encode()
    rewrite(cache, figure_cache.FIGURES_FILE, forged)
    assert cache.load() is None
    # the writer reseals with a key of its own (it cannot read the Space's) and fixes the marker
    guess = FigureCache(cache.key, cache.root, b"a key the writer made up!")
    contents = {**good, figure_cache.FIGURES_FILE: forged}
    rewrite(cache, figure_cache.SEAL_FILE, guess.seal(contents).encode())
    assert cache.load() is None
    # the same entry, read by a Space with another key, is not served either
    for name, content in good.items():
        rewrite(cache, name, content)
    assert cache.load() is not None
    assert replace(cache, secret=b"another Space's secret key").load() is None
    _, _, again = start(sample_release, tmp_path)  # the good entry is served unchanged
    assert again == served and counted["reproduce"] == 1


def test_an_oversized_file_is_never_read(
    sample_release, tmp_path: Path, counted: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    start(sample_release, tmp_path)
    cache = FigureCache.of(sample_release, RESAMPLES, SpaceConfig().seed, secret=SECRET)
    assert cache.load() is not None
    with (cache.folder / folder_output.MARKER).open("ab") as fh:  # a folder-writer grows the marker
        fh.truncate(figure_cache.MAX_FILE_BYTES + 1)  # sparse: no disk used
    read: list[str] = []
    original = Path.read_bytes

    def counting(self: Path) -> bytes:
        read.append(self.name)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    assert cache.load() is None
    assert folder_output.MARKER not in read


def test_the_seal_key_is_derived_from_the_account_key(tmp_path: Path) -> None:
    from medqade.app.accounts import AccountHasher

    config = SpaceConfig(results_dir=tmp_path / "results")
    first, second = AccountHasher(config), AccountHasher(config)
    seal = first.derive(figure_cache.SEAL_PURPOSE)
    assert seal == second.derive(figure_cache.SEAL_PURPOSE) and len(seal) == 32
    assert seal != first.derive("another purpose")
    assert seal.hex()[:32] != first("figure-cache-seal")  # never an account hash
    other = AccountHasher(SpaceConfig(results_dir=tmp_path / "other", account_key="k" * 40))
    assert other.derive(figure_cache.SEAL_PURPOSE) != seal
    with pytest.raises(ValueError, match="secret"):
        FigureCache({}, tmp_path, b"short")


def test_the_tab_refills_once_the_reference_rows_arrive(
    sample_release, tmp_path: Path, counted: dict[str, int]
) -> None:
    """A restart serves before the reference rows: a visit before them shows no judge, and
    opening the tab again once they are loaded fills the judges (it is not skipped)."""
    from types import SimpleNamespace

    from medqade.app.tab_analysis import AnalysisHandlers

    state, plots, _ = start(sample_release, tmp_path)
    early = SimpleNamespace(
        report=state.report, store=state.store, references_ready=False, records=list
    )
    handlers = AnalysisHandlers(SimpleNamespace(state=early), plots)  # type: ignore[arg-type]
    key = handlers.analysis_ui(None, "")[-1]
    assert key and handlers.analysis_ui(None, key)[-1] != key  # skipped: nothing new
    early.references_ready, early.records = True, state.records
    filled = handlers.analysis_ui(None, key)
    assert filled[-1] not in ("", key)
    choice = filled[len(analysis.FIGURES) + 1]
    assert choice["value"] == next(iter(judge_records(state.records())))


def test_saving_removes_older_entries_beyond_keep_and_nothing_else(tmp_path: Path) -> None:
    """Each code or release change makes a new entry; a save keeps the newest KEEP (its own
    included) and removes only older folders that are exactly figure-cache entries."""
    import os

    root = tmp_path / figure_cache.FOLDER
    keep = figure_cache.KEEP
    made = []
    for k in range(keep + 2):
        cache = FigureCache({"entry": k}, root, SECRET)
        assert cache.save({"report": k}, {})  # type: ignore[arg-type]
        os.utime(cache.folder, (1_000_000 + k, 1_000_000 + k))
        made.append(cache.folder)
    assert {p.name for p in root.iterdir()} == {p.name for p in made[-keep:]}
    foreign = root / "not-a-cache"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    extra = made[-1].with_name("copied-entry")
    shutil.copytree(made[-1], extra)
    (extra / "mine.txt").write_text("added by hand", encoding="utf-8")
    os.utime(extra, (1, 1))
    link = root / "link-to-entry"
    link.symlink_to(made[-2], target_is_directory=True)

    newest = FigureCache({"entry": "newest"}, root, SECRET)
    assert newest.save({"report": "newest"}, {})  # type: ignore[arg-type]
    left = {p.name for p in root.iterdir()}
    kept = {p.name for p in made[-(keep - 1) :]}
    assert left == {newest.folder.name, *kept, "not-a-cache", "copied-entry", "link-to-entry"}
    assert (foreign / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert newest.prune() == []  # nothing more to remove
