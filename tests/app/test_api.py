"""The Space through its public API (gradio_client against a launched app)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .helpers import Running, judge_variant, submit_args

PUBLIC = {"/leaderboard", "/submit", "/browse", "/item", "/compare"}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "space.md"


def test_api_endpoints_named_documented_and_internal_hidden(launch) -> None:
    app: Running = launch()
    info = app.client().view_api(print_info=False, return_format="dict")
    assert set(info["named_endpoints"]) == PUBLIC
    assert info["unnamed_endpoints"] == {}
    for name in PUBLIC:
        assert info["named_endpoints"][name]["description"], name


def test_api_endpoints_listed_in_docs() -> None:
    """docs/space.md has one row per public endpoint (PUBLIC is the server's set, above)."""
    text = DOCS.read_text(encoding="utf-8")
    api = text[text.index("## API") : text.index("## Storage")]
    assert set(re.findall(r"^\| `(/\w+)` \|", api, flags=re.MULTILINE)) == PUBLIC


def test_leaderboard_lists_reference_rows(launch) -> None:
    app = launch()
    judges, models = app.client().predict("core", "", api_name="/leaderboard")
    names = [row[judges["headers"].index("name")] for row in judges["data"]]
    assert "Physicians (leave-one-out) — ceiling" in names
    assert "GPT-5.4 Mini" in names
    badges = {row[judges["headers"].index("badge")] for row in judges["data"]}
    assert "physician ceiling" in badges
    assert len(models["data"]) == 5


def test_leaderboard_search_filters_rows(launch) -> None:
    app = launch()
    judges, models = app.client().predict("core", "gemma", api_name="/leaderboard")
    names = [row[judges["headers"].index("name")] for row in judges["data"]]
    assert names and all("Gemma" in n for n in names)
    assert len(models["data"]) == 2


def test_submit_valid_judge_scores_and_stores(launch, judge_csv: Path) -> None:
    app = launch()
    client = app.client()
    earlier = submit_args(judge_csv)[:-2]  # a caller from before the price fields (issue 37)
    status, result, problems = client.predict(*earlier, api_name="/submit")
    assert status.startswith("Accepted"), status
    record = result["record"]
    assert record["kind"] == "judge" and record["meta"]["name"] == "My judge"
    assert "usage" not in record["meta"]
    assert record["core"]["kappa"] is not None
    assert problems["data"] == []
    stored = list((app.results / "records").glob("*.json"))
    assert [p.stem for p in stored] == [record["id"]]
    uploads = list((app.results / "uploads").iterdir())
    assert [p.name for p in uploads] == [f"{record['submission']['content_hash']}.csv"]
    judges, _ = client.predict("core", "My judge", api_name="/leaderboard")
    row = judges["data"][0]
    assert row[judges["headers"].index("badge")] == "self-reported"


def test_submit_invalid_file_lists_every_problem(launch, bad_judge_csv: Path) -> None:
    app = launch()
    status, result, problems = app.client().predict(*submit_args(bad_judge_csv), api_name="/submit")
    assert status.startswith("Not accepted")
    assert result["ok"] is False and result["record"] is None
    assert len(problems["data"]) >= 2
    text = json.dumps(problems["data"])
    assert "vielleicht" in text and "NOPE" in text
    assert not (app.results / "records").exists() or not list((app.results / "records").iterdir())


def test_submit_validate_only_stores_nothing(launch, judge_csv: Path) -> None:
    app = launch()
    status, result, _ = app.client().predict(
        *submit_args(judge_csv, validate_only=True), api_name="/submit"
    )
    assert status.startswith("Dry run: scored, not stored") and "validate only" in status
    assert "core kappa 0." in status and "95% CI" in status and "Accepted" not in status
    assert result["summary"]["kind"] == "judge" and result["dry_run"] is True
    assert result["record"]["kind"] == "judge"  # what would be stored ...
    assert app.state.store.records() == []  # ... and was not


def test_submit_duplicate_content_refused(launch, judge_csv: Path, tmp_path: Path) -> None:
    app = launch()
    client = app.client()
    first, _, _ = client.predict(*submit_args(judge_csv), api_name="/submit")
    assert first.startswith("Accepted")
    same = tmp_path / "renamed.jsonl"
    import pandas as pd

    pd.read_csv(judge_csv).to_json(same, orient="records", lines=True, force_ascii=False)
    status, _, _ = client.predict(*submit_args(same, name="Again"), api_name="/submit")
    assert status.startswith("Not accepted") and "submitted before" in status
    assert len(app.state.store.records()) == 1


def test_submit_rate_limit_per_account(launch, sample_release, tmp_path: Path) -> None:
    app = launch(rate_limit=2)
    client = app.client()
    statuses = []
    for k in range(3):
        path = tmp_path / f"v{k}.csv"
        judge_variant(sample_release, k).to_csv(path, index=False)
        statuses.append(client.predict(*submit_args(path), api_name="/submit")[0])
    assert statuses[0].startswith("Accepted") and statuses[1].startswith("Accepted")
    assert statuses[2].startswith("Not accepted") and "rate limit" in statuses[2]


def test_submit_requires_login_when_configured(launch, judge_csv: Path) -> None:
    app = launch(require_login=True, login_button=False)
    status, _, _ = app.client().predict(*submit_args(judge_csv), api_name="/submit")
    assert status == "Not accepted: Sign in with Hugging Face to submit."
    assert app.state.store.records() == []


def test_submit_model_answers(launch, answers_csv: Path) -> None:
    app = launch()
    status, result, _ = app.client().predict(
        *submit_args(answers_csv, kind="answers", name="My model", family="Gemma"),
        api_name="/submit",
    )
    assert status.startswith("Accepted"), status
    assert result["record"]["kind"] == "answers"
    _, models = app.client().predict("core", "My model", api_name="/leaderboard")
    assert len(models["data"]) == 1


def test_browse_filters_and_search(launch) -> None:
    client = launch().client()
    count, rows = client.predict("core", "all", "all", "all", [], None, "", api_name="/browse")
    assert count.startswith("2 of 6")
    count, rows = client.predict(
        "all", "all", "all", "all", [], None, "Karpaltunnel", api_name="/browse"
    )
    assert [r[0] for r in rows["data"]] == ["S-E01"]
    count, rows = client.predict(
        "all",
        "all",
        "all",
        "all",
        ["chosen judge disagrees with consensus"],
        None,
        "",
        api_name="/browse",
    )
    assert "choose a judge" in count


def test_browse_judge_filter_accepts_ids(launch, judge_csv: Path) -> None:
    """/browse's judge takes what /compare takes (a paper evaluator's model id, a submitted
    judge's record id or an 8-character prefix of it) as well as the display name."""
    app = launch()
    client = app.client()
    flag = ["chosen judge disagrees with consensus"]

    def items(judge: str) -> tuple[str, list[str]]:
        count, rows = client.predict(
            "all", "all", "all", "all", flag, judge, "", api_name="/browse"
        )
        return count, [r[0] for r in rows["data"]]

    roster = app.state.release.roster
    for evaluator in roster.evaluator_ids:
        by_name = items(roster.name(evaluator))
        assert "of 6" in by_name[0]
        assert items(evaluator) == by_name
    status, result, _ = client.predict(*submit_args(judge_csv), api_name="/submit")
    assert status.startswith("Accepted"), status
    rid = result["record"]["id"]
    by_name = items("submitted: My judge")
    assert "of 6" in by_name[0]
    assert items(rid) == by_name and items(rid[:8]) == by_name
    assert "unknown judge" in items("no-such-judge")[0]


def test_item_loads_with_labels_and_blind_hides_models(launch) -> None:
    client = launch().client()
    header, answers, labels = client.predict("S-C01", False, api_name="/item")
    assert "S-C01" in header and "Femur" in header
    assert answers["data"][0][1] == "Gemini 2.5 Flash"
    raters = [r[0] for r in labels["data"]]
    assert "P01" in raters and "Gemini 3 Flash" in raters
    header, blind, _ = client.predict("S-C01", True, api_name="/item")
    assert {r[1] for r in blind["data"]} == {"(hidden)"}
    assert sorted(r[2] for r in blind["data"]) == sorted(r[2] for r in answers["data"])


def test_item_unknown_id_is_escaped(launch) -> None:
    header, answers, _ = launch().client().predict("<b>x</b>", False, api_name="/item")
    assert "<b>" not in header and "&lt;b&gt;" in header
    assert answers["data"] == [] or answers["data"] == [[""]] or not answers["headers"]


def test_submitted_judge_appears_in_browse(launch, judge_csv: Path) -> None:
    app = launch()
    client = app.client()
    client.predict(*submit_args(judge_csv, name="Browse judge"), api_name="/submit")
    _, _, labels = client.predict("S-C01", False, api_name="/item")
    assert "submitted: Browse judge" in [r[0] for r in labels["data"]]


def test_opening_browse_refreshes_its_judge_list(launch, judge_csv: Path) -> None:
    """A judge submitted by someone else appears in Browse's judge filter when the tab is
    opened (as in Compare), without a restart or a reload (issue 27)."""
    import gradio as gr

    app = launch()
    tab = next(b for b in app.demo.blocks.values() if isinstance(b, gr.Tab) and b.id == "browse")
    on_open = [
        f for f in app.demo.fns.values() if (tab._id, "select") in [tuple(t) for t in f.targets]
    ]
    assert len(on_open) == 1
    before = on_open[0].fn()["choices"]
    assert "submitted: Another visitor" not in str(before)
    status, _, _ = app.client().predict(
        *submit_args(judge_csv, name="Another visitor"), api_name="/submit"
    )
    assert status.startswith("Accepted"), status
    after = on_open[0].fn()
    assert "submitted: Another visitor" in str(after["choices"])
    assert "value" not in after  # the chosen judge stays
