"""No held-out label leaves the Space (issue 35): a differential test.

The sample is built with 3 of its 6 items held out, with two canaries in the withheld labels: a
review note and a vote split that no public answer has. The Space is started twice in-process
over the public build: once alone, once with the private part to score on. A judge is submitted
to both. Then everything a visitor can reach is asked of both Spaces and compared:

* every public API endpoint, enumerated from the Blocks (and checked against ``view_api``), each
  input varied over its choices, the held-out ids and malformed ids (a new endpoint is covered
  without touching this file: only an upload endpoint needs a plan of its own);
* the page's item view of every item with every filter and judge, and the ``?item=`` deep link;
* Compare's page tables, the per-physician table, the submission result and every download the
  pages wrote (leaderboard CSV and JSON, result record, problems CSV, templates).

What shows items (Browse, the item views, templates) must be identical. What shows aggregate
numbers (leaderboard, Compare, the submission's result) may differ in its numbers only: every
fragment of it that names a held-out item must be identical. Neither canary appears anywhere, and
the private Space did score with the held-out labels (its numbers differ, its record carries the
contamination check), so the comparison is not vacuous.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from html import unescape
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Final

import gradio as gr
import pandas as pd
import pytest

from medqade.app.browse import FLAG_JUDGE, FLAGS
from medqade.app.config import SpaceConfig
from medqade.app.tab_submit import Shown
from medqade.app.ui import build_app, launch_kwargs
from medqade.dataset.build import build
from medqade.dataset.holdout import HoldOut
from medqade.dataset.release import Release, load_release
from medqade.labelstudio.review_queue import review_notes

from .helpers import Running, judge_variant, on_free_port, submit_args
from .test_browser import ARGS, CHROMIUM

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
HELD: Final = ("S-C01", "S-E03", "S-E04")
CANARY_NOTE: Final = "Kanarienvogel 7f3a nur intern"
CANARY_VOTES: Final = "3 R / 6 F / 1 k.A."
CANARY_ANSWER: Final = ("S-C01", "qwen3:4b")
REVIEWS: Final = (
    "question_id,model,reviewer,codes,note\n"
    f"S-C01,qwen3:4b,R1,unscharf,{CANARY_NOTE}\n"
    "S-C02,qwen3:4b,R2,treffend,öffentlich sichtbar\n"
)
AGGREGATE: Final = {"leaderboard", "compare", "submit"}
"""Endpoints that show aggregate numbers: only their fragments naming a held-out item must be
identical. Every other endpoint, a new one included, must answer identically."""
SUBMITTED: Final = "<submitted>"


@pytest.fixture(scope="module")
def canary_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample with reviews and a held-out answer voted 3 R / 6 F / 1 k.A., built with 3
    items held out: (public build, private part)."""
    root = tmp_path_factory.mktemp("leak")
    raw = root / "raw"
    shutil.copytree(SAMPLE, raw)
    ratings = pd.read_csv(raw / "ratings.csv", dtype=str)
    item, model = CANARY_ANSWER
    rows = ratings.index[(ratings["question_id"] == item) & (ratings["model"] == model)]
    votes = ["Richtig"] * 3 + ["Falsch"] * 6 + ["Keine Angabe"]
    ratings.loc[rows, "label"] = votes[: len(rows)]
    ratings.to_csv(raw / "ratings.csv", index=False)
    (raw / "reviews.csv").write_text(REVIEWS, encoding="utf-8")
    build(raw, root / "pub", hold_out=HoldOut(3, 7), private_out=root / "priv")
    return root / "pub", root / "priv"


@dataclass
class Space:
    run: Running
    restored: bool
    record_id: str = ""

    @property
    def demo(self) -> Any:
        return self.run.demo

    def fn(self, name: str) -> Any:
        return next(f.fn for f in self.demo.fns.values() if f.api_name == name)

    def symbolic(self, value: Any) -> Any:
        """``value`` with this Space's submitted record id (and its prefixes) as
        :data:`SUBMITTED` (the same upload scored on two releases has two ids)."""
        text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
        rid = self.record_id
        for n in (len(rid), 16, 12, 8):
            if rid:
                text = text.replace(rid[:n], SUBMITTED)
        return json.loads(text)

    def concrete(self, value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(SUBMITTED, self.record_id)
        if isinstance(value, list):
            return [self.concrete(v) for v in value]
        return value


@pytest.fixture(scope="module")
def spaces(
    canary_build: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Space]]:
    pub, priv = canary_build
    public = load_release(pub)
    restored = public.with_private(priv)
    root = tmp_path_factory.mktemp("leak-spaces")
    judge = root / "judge.csv"
    judge_variant(public, 0).to_csv(judge, index=False)
    out: dict[str, Space] = {}
    for name, scored in (("public", public), ("private", restored)):
        results = root / f"results-{name}"
        config = SpaceConfig(results_dir=results, rate_limit=0, resamples=20)
        demo = build_app(
            public, results, config, scoring_release=scored, background=False, analyses=False
        )
        demo.queue(default_concurrency_limit=4)

        def on(port: int, demo: Any = demo, config: SpaceConfig = config) -> None:
            kwargs = launch_kwargs(replace(config, port=port, host="127.0.0.1"))
            demo.launch(prevent_thread_lock=True, quiet=True, **kwargs)

        _, port = on_free_port(on)
        space = Space(
            Running(demo, f"http://127.0.0.1:{port}/", demo.medqade_state, results),
            scored.restored,
        )
        status, result, _ = space.run.client().predict(*submit_args(judge), api_name="/submit")
        assert status.startswith("Accepted"), status
        space.record_id = str(result["record"]["id"])
        out[name] = space
    try:
        yield out
    finally:
        for space in out.values():
            space.demo.close()


# --- what is compared ---------------------------------------------------------------------


def plain(value: Any) -> Any:
    """JSON-like data of a handler's answer (frames as headers and rows, updates as dicts)."""
    if isinstance(value, pd.DataFrame):
        return {"headers": [str(c) for c in value.columns], "data": value.values.tolist()}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, Shown):
        return {"record_id": value.record_id, "warnings": list(value.warnings)}
    return value


def names_held_out(value: Any) -> bool:
    return isinstance(value, str) and any(h in value for h in HELD)


HTML_PART = re.compile(r"(?=<(?:tr|p|li)[ >])")
"""Where an HTML text is cut into the fragments :func:`mentions` compares."""


def mentions(value: Any) -> Counter[str]:
    """Every fragment of ``value`` that names a held-out item: a text, a table row or an
    object (e.g. one of Compare's answers) that holds the id directly, as JSON."""
    found: Counter[str] = Counter()
    if isinstance(value, str) and HTML_PART.search(value):
        # HTML (e.g. Compare's headline and its answers table in one block): each paragraph,
        # table row or list item is a fragment, so a held-out answer's row is compared apart
        # from the aggregate numbers beside it
        for part in HTML_PART.split(value):
            if names_held_out(part):
                found[part] += 1
    elif isinstance(value, str):
        if names_held_out(value):
            found[value] = 1
    elif isinstance(value, dict):
        if any(names_held_out(v) for v in value.values()):
            found[json.dumps(value, sort_keys=True, ensure_ascii=False)] += 1
        else:
            for v in value.values():
                found += mentions(v)
    elif isinstance(value, list):
        flat = all(not isinstance(v, dict | list) for v in value)
        html = any(isinstance(v, str) and HTML_PART.search(v) for v in value)
        if flat and html:
            for v in value:
                found += mentions(v)
        elif flat and any(names_held_out(v) for v in value):
            found[json.dumps(value, ensure_ascii=False)] += 1
        elif not flat:
            for v in value:
                found += mentions(v)
    return found


def text_mentions(name: str, text: str) -> Counter[str]:
    """The fragments of a download that name a held-out item (JSON: as above; else lines)."""
    if name.endswith(".json"):
        return mentions(json.loads(text))
    return Counter(line for line in text.splitlines() if names_held_out(line))


# --- what is asked --------------------------------------------------------------------------


def public_fns(demo: Any) -> dict[str, Any]:
    return {f.api_name: f for f in demo.fns.values() if f.api_visibility == "public"}


def strings(space: Space) -> list[str]:
    """Text inputs: every held-out id, one of their answers, ids a visitor could mistype or
    overdo, and the judges (paper and submitted) as the judge filter and Compare name them."""
    state = space.run.state
    students = state.release.roster.student_ids
    held = [*HELD, f"{HELD[0]}/{students[-1]}", HELD[0].lower(), f" {HELD[1]} ", "S-C9", "x" * 300]
    judges = [j for j in state.browse.judge_choices() if not j.startswith("submitted")]
    tokens = [t for _, t in state.compare_choices() if t != space.record_id]
    return [*held, *judges, *tokens, SUBMITTED]


def generic_calls(space: Space, fn: Any) -> list[list[Any]]:
    """Every input at its default, then each input in turn over its values: its choices, the
    :func:`strings` for text, both states of a checkbox."""
    inputs = list(fn.inputs)
    if any(isinstance(c, gr.File | gr.UploadButton) for c in inputs):
        raise AssertionError(
            f"/{fn.api_name} takes a file: give it a plan in PLANS (what to upload, with the "
            "held-out items in it) so the leak test covers it"
        )
    base = [c.value if not isinstance(c, gr.CheckboxGroup) else list(c.value or []) for c in inputs]
    calls = [base]
    for k, c in enumerate(inputs):
        values: list[Any] = []
        choices = [v for _, v in getattr(c, "choices", None) or []]
        if isinstance(c, gr.CheckboxGroup):
            values = [[v] for v in choices]
        elif isinstance(c, gr.Checkbox):
            values = [True, False]
        elif isinstance(c, gr.Textbox) or getattr(c, "allow_custom_value", False):
            values = [*choices, *strings(space)]
        else:
            values = choices
        calls += [[*base[:k], v, *base[k + 1 :]] for v in values]
    if fn.api_name == "browse":  # the judge filter with each judge
        labels = [c.label for c in inputs]
        flags, judge = labels.index("Filters"), labels.index("Judge (for its filter)")
        for name in strings(space):
            call = list(base)
            call[flags], call[judge] = [FLAG_JUDGE], name
            calls.append(call)
    unique: list[list[Any]] = []
    for call in calls:
        if call not in unique:
            unique.append(call)
    return unique


def submit_plan(space: Space, tmp: Path) -> list[list[Any]]:
    """/submit: the submitted judge again as a dry run (scored, not stored), and a file whose
    problems name held-out items."""
    release = space.run.state.release
    judge = tmp / "again.csv"
    judge_variant(release, 1).to_csv(judge, index=False)
    bad = tmp / "bad.csv"
    bad.write_text(
        "question_id,model,label\nS-C01,gemini-2.5-flash,vielleicht\n"
        "S-E03,qwen3:4b,Richtig\nS-E03,qwen3:4b,Falsch\nS-E04,nope,Richtig\n",
        encoding="utf-8",
    )
    return [submit_args(judge, validate_only=True), submit_args(bad, name="Broken")]


def observe(space: Space, tmp: Path) -> dict[str, tuple[str, Any]]:
    """Everything asked of ``space``: ``key -> (exact | aggregate, answer)``."""
    seen: dict[str, tuple[str, Any]] = {}
    client = space.run.client()
    info = client.view_api(print_info=False, return_format="dict")
    fns = public_fns(space.demo)
    assert {f"/{n}" for n in fns} == set(info["named_endpoints"]), "enumerated from the Blocks"
    assert info["unnamed_endpoints"] == {}
    for name, fn in fns.items():
        plan = submit_plan(space, tmp) if name == "submit" else generic_calls(space, fn)
        kind = "aggregate" if name in AGGREGATE else "exact"
        for k, args in enumerate(plan):
            answer = client.predict(*space.concrete(args), api_name=f"/{name}")
            seen[f"/{name} {k} {space.symbolic(args) if name != 'submit' else ''}"] = (
                kind,
                space.symbolic(plain(answer)),
            )
    state = space.run.state
    item_ui, deep_link = space.fn("item_ui"), space.fn("deep_link")
    judges = [None, *state.browse.judge_choices()]
    for item in [*state.release.item_ids, *strings(space)[:7]]:
        for blind in (False, True):
            for flags in [[], *([f] for f in FLAGS)]:
                for judge in judges if flags == [FLAG_JUDGE] else [None]:
                    html = item_ui(str(item), blind, flags, judge)
                    seen[f"item_ui {item} {blind} {flags} {judge}"] = ("exact", html)
            request = SimpleNamespace(query_params={"item": str(item)})
            seen[f"deep_link {item} {blind}"] = ("exact", plain(deep_link(request, blind)))
    compare_ui = space.fn("ui")
    tokens = [t for _, t in state.compare_choices()]
    for a in tokens:
        for view in ("core", "full"):
            answer = plain(compare_ui(a, "physicians", view))
            seen[f"compare ui {space.symbolic(a)} {view}"] = ("aggregate", space.symbolic(answer))
            answer = plain(compare_ui(tokens[1], a, view))
            seen[f"compare ui2 {space.symbolic(a)} {view}"] = ("aggregate", space.symbolic(answer))
    for view in ("core", "full"):
        answer = space.fn("leaderboard_ui")(view, "", [], {}, "kappa", None, "")
        seen[f"leaderboard_ui {view}"] = ("aggregate", space.symbolic(plain(answer)))
    seen["physicians"] = ("aggregate", plain(space.fn("show_physicians")()))
    result = space.fn("render_result")(Shown(space.record_id))
    seen["result"] = ("aggregate", space.symbolic(plain(result)))
    return seen


def downloads(space: Space) -> dict[str, str]:
    root = space.demo.medqade_exports.root
    return {p.name: p.read_text(encoding="utf-8") for p in root.iterdir() if p.is_file()}


# --- the test -------------------------------------------------------------------------------


def test_no_held_out_label_leaves_the_space(
    spaces: dict[str, Space], canary_build: tuple[Path, Path], tmp_path: Path
) -> None:
    pub, priv = canary_build
    public = load_release(pub)
    restored = public.with_private(priv)
    assert tuple(public.item_ids[public.held_out]) == HELD
    assert _canaries_loaded(restored)  # the private Space holds both canaries
    seen = {name: observe(space, tmp_path) for name, space in spaces.items()}
    files = {name: downloads(space) for name, space in spaces.items()}

    alone, private = seen["public"], seen["private"]
    assert alone.keys() == private.keys()
    differing = []
    for key, (kind, answer) in alone.items():
        other = private[key][1]
        if kind == "exact":
            assert answer == other, f"{key}: the Space shows something else with held-out labels"
        else:
            assert mentions(answer) == mentions(other), f"{key}: a held-out item is shown apart"
            differing += [key] if answer != other else []
    # the private Space scored with the held-out labels: its aggregates differ
    assert any(k.startswith("/leaderboard") for k in differing), differing
    assert any(k.startswith("compare ui") for k in differing), differing

    listed: dict[str, Counter[str]] = {}
    for name, found in files.items():
        assert any(f.startswith("medqade-result-") for f in found), sorted(found)
        assert any(f.startswith("medqade-judges-") for f in found), sorted(found)
        listed[name] = Counter()
        for file, text in found.items():
            listed[name] += text_mentions(file, spaces[name].symbolic(text))
            for canary in (CANARY_NOTE, CANARY_VOTES):
                assert canary not in text, f"{file} of the {name} Space shows a held-out label"
        templates = {f: t for f, t in found.items() if f.startswith("medqade-template-")}
        assert len(templates) == 2
    assert listed["public"] == listed["private"]
    assert {f for f in files["public"] if "template" in f} == {
        f for f in files["private"] if "template" in f
    }

    for name, observed in seen.items():
        text = json.dumps(observed, ensure_ascii=False)
        for canary in (CANARY_NOTE, CANARY_VOTES):
            assert canary not in text, f"the {name} Space shows a held-out label: {canary!r}"
        assert "öffentlich sichtbar" in text  # a public review is shown: reviews are read
    record = spaces["private"].run.state.store.get(spaces["private"].record_id)
    assert record is not None and record.contamination is not None
    stored_alone = spaces["public"].run.state.store.get(spaces["public"].record_id)
    assert stored_alone is not None and stored_alone.contamination is None


def test_a_held_out_item_says_why_and_shows_no_label(spaces: dict[str, Space]) -> None:
    """The item view of a held-out item, with the private labels loaded: one line says the
    labels are held out; no consensus word, no vote split, no physician row."""
    space = spaces["private"]
    for item in HELD:
        html = unescape(space.fn("item_ui")(item, False, [], None))
        assert "held out for the leaderboard's contamination check" in html
        assert "consensus Richtig" not in html and "consensus Falsch" not in html
        assert " R / " not in html and ">P01<" not in html
        _, answers, labels = space.fn("item")(item, False)
        assert set(answers["consensus"]) == {"held out"} and set(answers["votes"]) == {""}
        assert set(labels["role"]) == {"paper evaluator", "submitted judge"}
    public_item = space.fn("item_ui")("S-C02", False, [], None)
    assert "held out" not in public_item and " R / " in public_item


def _canaries_loaded(release: Release) -> bool:
    answers = release.answers
    item, model = CANARY_ANSWER
    row = answers[(answers["question_id"] == item) & (answers["model"] == model)].iloc[0]
    votes = (row["votes_richtig"], row["votes_falsch"], row["votes_keine_angabe"])
    notes = review_notes(release).get(f"{item}/{model}", [])
    return tuple(int(v) for v in votes) == (3, 6, 1) and any(CANARY_NOTE in n for n in notes)


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` executable on PATH")
def test_browser_a_held_out_item_page_says_held_out_and_shows_no_votes(
    spaces: dict[str, Space],
) -> None:
    """In Chromium, ``?item=`` of a held-out item on the Space with the private labels: the
    item opens, says its labels are held out, and shows no vote split and no physician row."""
    from playwright.sync_api import expect, sync_playwright

    url = spaces["private"].run.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}?item={HELD[0]}", wait_until="domcontentloaded")
            item = page.locator("#mq-item")
            expect(item).to_contain_text("contamination check", timeout=30_000)
            expect(item).to_contain_text("labels held out")
            text = item.inner_text()
            assert " R / " not in text and "k.A." not in text.split("R = Richtig")[0]
            assert "P01" not in text and CANARY_NOTE not in text
        finally:
            browser.close()
