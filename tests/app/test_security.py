"""Submitter text is never markup, file names are never paths, limits hold before parsing."""

from __future__ import annotations

import copy
import errno
import json
import logging
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr
import httpx
import pytest

from medqade import scoring
from medqade.app import cells
from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.files import atomic

from .helpers import IMG, SCRIPT, Running, judge_variant, submit_args

SECRET = "hf_NEVERshownSECRET0123456789"
LONG = "x" * 60_000


def _handler(demo: Any, name: str) -> Any:
    """The function of the (private) event handler ``name``, e.g. a deep-link loader."""
    return next(f.fn for f in demo.fns.values() if f.name == name)


def _request(**params: str) -> Any:
    return SimpleNamespace(query_params=params)


def _stored(app: Running, judge_csv: Path) -> dict[str, Any]:
    """Another user's accepted judge submission in ``app``'s results folder."""
    outcome = app.state.submit(judge_csv, "judge", {"name": "Someone"}, "someone-else")
    assert outcome.ok and outcome.record is not None, outcome.message
    return outcome.record.to_json()


def _hostile(app: Running, tmp_path: Path, record: dict[str, Any]) -> list[str]:
    """Server paths a visitor may try: the environment, a dotfile with a token, absolute,
    relative and traversal paths, another user's stored upload (and its name)."""
    env = tmp_path / ".env"
    env.write_text(f"HF_TOKEN={SECRET}\n", encoding="utf-8")
    upload = app.results / "uploads" / record["space"]["uploads"][0]
    return [
        "/proc/self/environ",
        "../" * 12 + "proc/self/environ",
        str(env),
        os.path.relpath(env),
        str(upload),
        os.path.relpath(upload),
        "../" * 12 + str(upload).lstrip("/"),
        f"uploads/{upload.name}",
        upload.name,
    ]


def test_plain_escapes_markup() -> None:
    assert cells.plain(SCRIPT) == "&lt;script&gt;window.__mq_xss = 1&lt;/script&gt;"
    assert "<" not in cells.plain(IMG) and '"' not in cells.plain(IMG)


def test_submit_javascript_link_refused(launch, judge_csv: Path) -> None:
    app = launch()
    status, _, problems = app.client().predict(
        *submit_args(judge_csv, link="javascript:alert(1)"), api_name="/submit"
    )
    assert status.startswith("Not accepted")
    assert "not an http(s) link" in json.dumps(problems["data"])
    assert app.state.store.records() == []


def test_submit_markup_in_metadata_stays_text(launch, judge_csv: Path) -> None:
    app = launch()
    client = app.client()
    status, result, _ = client.predict(
        *submit_args(judge_csv, name=SCRIPT, organisation=IMG, notes=IMG), api_name="/submit"
    )
    assert status.startswith("Accepted")
    # stored and served as the literal text, only ever as Textbox / Dataframe cell values
    assert result["record"]["meta"]["name"] == SCRIPT
    judges, _ = client.predict("core", "mq_xss", api_name="/leaderboard")
    assert judges["data"][0][judges["headers"].index("name")] == SCRIPT
    header, _, labels = client.predict("S-C01", False, api_name="/item")
    assert "<script" not in header and "<img" not in header
    assert f"submitted: {SCRIPT}" in [r[0] for r in labels["data"]]


def test_uploaded_file_name_never_used(launch, sample_release, tmp_path: Path) -> None:
    weird = tmp_path / "..%2F..%2Fevil <img src=x onerror=y>.csv"
    judge_variant(sample_release, 0).to_csv(weird, index=False)
    app = launch()
    status, result, _ = app.client().predict(*submit_args(weird), api_name="/submit")
    assert status.startswith("Accepted")
    stored = sorted(p.name for p in (app.results / "uploads").iterdir())
    assert stored == [f"{result['record']['submission']['content_hash']}.csv"]
    text = json.dumps(result)
    assert "evil" not in text and "onerror" not in text
    # .lock: the writers' lock (pid, host, since; the Hub mirror leaves dotfiles out)
    assert sorted(p.name for p in app.results.iterdir()) == [
        ".lock",
        "records",
        "reference",
        "uploads",
    ]


def test_upload_over_size_limit_refused_before_parsing(
    sample_release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SpaceConfig(results_dir=tmp_path / "r", max_upload_mb=0.001, resamples=10)
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    big = tmp_path / "big.csv"
    big.write_bytes(b"question_id,model,label\n" + b"S-C01,gpt-5-nano,Richtig\n" * 100)

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("parse_submission must not see an oversized file")

    monkeypatch.setattr(scoring, "parse_submission", boom)
    outcome = state.submit(big, "judge", {}, None)
    assert not outcome.ok and "more than the limit of 1,048 bytes" in outcome.message


def test_upload_over_row_limit_refused_before_parsing(
    sample_release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SpaceConfig(results_dir=tmp_path / "r", max_rows=10, resamples=10)
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    many = tmp_path / "many.csv"
    many.write_bytes(b"question_id,model,label\n" + b"S-C01,gpt-5-nano,Richtig\n" * 50)
    monkeypatch.setattr(scoring, "parse_submission", lambda *a, **k: pytest.fail("parsed"))
    outcome = state.submit(many, "judge", {}, None)
    assert not outcome.ok and "more than the limit of 10 rows" in outcome.message


def test_server_rejects_upload_over_size_limit(launch, tmp_path: Path) -> None:
    app = launch(max_upload_mb=0.001)
    big = tmp_path / "big.csv"
    big.write_bytes(b"question_id,model,label\n" + b"S-C01,gpt-5-nano,Richtig\n" * 200)
    with pytest.raises(Exception, match=r"(?i)size|large|413"):
        app.client().predict(*submit_args(big), api_name="/submit")
    assert app.state.store.records() == []


def test_no_secrets_or_account_names_in_results_or_logs(
    sample_release, judge_csv: Path, tmp_path: Path, monkeypatch, caplog
) -> None:
    secret = "hf_SECRETtoken1234567890"
    monkeypatch.setenv("HF_TOKEN", secret)
    caplog.set_level(logging.DEBUG)
    config = SpaceConfig(results_dir=tmp_path / "r", resamples=10)
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    outcome = state.submit(judge_csv, "judge", {"name": "x"}, "some-hf-user")
    assert outcome.ok
    blob = b"".join(p.read_bytes() for p in (tmp_path / "r").rglob("*") if p.is_file())
    assert secret.encode() not in blob and b"some-hf-user" not in blob
    assert state.account("some-hf-user").encode() in blob
    assert secret not in caplog.text


def test_compare_api_server_path_refused(
    launch, judge_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/compare takes row ids only: no path (server file, dotfile, stored upload) is opened."""
    monkeypatch.setenv("HF_TOKEN", SECRET)
    app = launch()
    record = _stored(app, judge_csv)
    client = app.client()
    for token in [*_hostile(app, tmp_path, record), str(judge_csv.resolve())]:
        for a, b in ((token, "physicians"), ("physicians", token)):
            result = client.predict(a, b, "core", api_name="/compare")
            assert set(result) == {"error"}, token
            assert "not a paper evaluator" in result["error"], token
            assert SECRET not in json.dumps(result) and "HF_TOKEN" not in json.dumps(result)


def test_compare_api_long_value_refused(launch) -> None:
    result = launch().client().predict(LONG, "physicians", "core", api_name="/compare")
    assert result == {
        "error": "a judge row id has at most 200 characters, got 60,000; pick a row from the "
        "list (a paper evaluator id, 'physicians', a baseline id or a record id)"
    }


def test_compare_api_other_users_upload_only_by_board_id(launch, judge_csv: Path) -> None:
    """Another user's submission is compared by the id of its public leaderboard row; a
    stored record the leaderboard does not show cannot be named, nor can its upload."""
    app = launch()
    record = _stored(app, judge_csv)
    client = app.client()
    shown = client.predict(record["id"], "physicians", "core", api_name="/compare")
    assert shown["a"] == {"token": record["id"], "name": "Someone", "source": "submission"}
    hidden = copy.deepcopy(record)
    hidden["id"] = "f" * 32
    hidden["space"]["key"] = "another-key"
    for block in ("core", "full"):
        hidden.pop(block, None)  # a record without a block has no leaderboard row
    (app.results / "records" / f"{hidden['id']}.json").write_text(json.dumps(hidden))
    app.state.store.reload()
    assert hidden["id"] not in app.state.board_judge_ids()
    assert hidden["id"] not in [token for _, token in app.state.compare_choices()]
    for token in (hidden["id"], hidden["id"][:8], record["submission"]["content_hash"]):
        result = client.predict(token, "physicians", "core", api_name="/compare")
        assert set(result) == {"error"} and "not a paper evaluator" in result["error"], token


def test_compare_deep_link_path_refused(
    launch, judge_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``?tab=compare&a=...&b=...`` with a path or a 60,000-character value: one readable
    message, the overlong value not put into the list, no file opened."""
    monkeypatch.setenv("HF_TOKEN", SECRET)
    app = launch()
    record = _stored(app, judge_csv)
    from_url = _handler(app.demo, "from_url")
    for token in _hostile(app, tmp_path, record):
        a, b, _, summary, *_ = from_url(_request(tab="compare", a=token, b="physicians"))
        assert (a, b) == (token, "physicians")
        assert "Cannot compare" in summary and "not a paper evaluator" in summary
        assert SECRET not in summary
    a, b, _, summary, *_ = from_url(_request(tab="compare", a=LONG, b=LONG))
    assert a == b == gr.skip()
    assert "at most 200 characters, got 60,000" in summary and LONG not in summary


def test_item_api_and_deep_link_long_id_refused(launch) -> None:
    app = launch()
    header, _, _ = app.client().predict(LONG, False, api_name="/item")
    assert "at most 200 characters (this one has 60,000)" in header and LONG not in header
    _, item_id, html = _handler(app.demo, "deep_link")(_request(item=LONG), False)
    assert item_id == gr.skip() and "at most 200 characters" in html and LONG not in html


def test_read_endpoints_hostile_strings_open_nothing(
    launch, judge_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/leaderboard, /browse and /item treat paths and overlong values as text: no match."""
    monkeypatch.setenv("HF_TOKEN", SECRET)
    app = launch()
    record = _stored(app, judge_csv)
    client = app.client()
    for token in [*_hostile(app, tmp_path, record), LONG]:
        judges, models = client.predict("core", token, api_name="/leaderboard")
        assert judges["data"] == [] and models["data"] == [], token[:80]
        count, rows = client.predict(
            "all", "all", "all", "all", [], None, token, api_name="/browse"
        )
        assert count.startswith("0 of") and rows["data"] in ([], [[""]] * len(rows["data"]))
        header, _, _ = client.predict(token, False, api_name="/item")
        assert "No question set" in header or "at most 200 characters" in header
        for text in (json.dumps(judges), json.dumps(rows), header):
            assert SECRET not in text


def test_submit_server_path_as_file_refused(
    launch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/submit's file is a Gradio upload: a server path sent in its place is refused by
    Gradio before the handler runs, and nothing of the file comes back."""
    monkeypatch.setenv("HF_TOKEN", SECRET)
    app = launch()
    env = tmp_path / ".env"
    env.write_text(f"HF_TOKEN={SECRET}\n", encoding="utf-8")
    form = ["judge", "x", "", "", None, "", "", "", "", "", "", False, None]
    with httpx.Client(base_url=app.url, timeout=60) as http:
        for path in ("/proc/self/environ", str(env), "../" * 12 + "proc/self/environ"):
            data = [{"path": path, "meta": {"_type": "gradio.FileData"}}, *form]
            started = http.post("gradio_api/call/submit", json={"data": data})
            assert started.status_code == 200
            event = started.json()["event_id"]
            answer = http.get(f"gradio_api/call/submit/{event}").text
            assert "event: error" in answer and SECRET not in answer, answer
    assert app.state.store.records() == []


@pytest.mark.parametrize("code", [errno.EROFS, errno.ENOSPC])
def test_submit_results_folder_unwritable_not_stored(
    launch, judge_csv: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    """A read-only or full results folder: /submit says the submission was not stored and
    what to do, not "Error" (tests may run as root, where chmod does not stop writes: the
    write itself raises)."""
    app = launch()
    real = atomic.write_bytes

    def refuse(path: Path, data: bytes) -> None:
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(atomic, "write_bytes", refuse)
    client = app.client()
    status, result, _ = client.predict(*submit_args(judge_csv), api_name="/submit")
    assert status.startswith("Not accepted: judge.csv: the file was checked and scored")
    assert f"({os.strerror(code)}), so the submission was not stored" in status
    assert "Submit it again later" in status and str(app.results) not in status
    assert result["record"] is None and app.state.store.records() == []
    monkeypatch.setattr(atomic, "write_bytes", real)
    status, _, _ = client.predict(*submit_args(judge_csv), api_name="/submit")
    assert status.startswith("Accepted"), status  # not held for a duplicate


def test_stored_upload_unreadable_content_not_logged(
    sample_release, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stored upload that no longer parses is skipped with a log line naming the record,
    never the file's content (the Space's logs are not the place for it either)."""
    results = tmp_path / "r"
    (results / "uploads").mkdir(parents=True)
    (results / "records").mkdir()
    name = f"{'ab' * 32}.csv"
    (results / "uploads" / name).write_text(f"HF_TOKEN={SECRET}\nX=1\n", encoding="utf-8")
    record = {
        "id": "cd" * 16,
        "kind": "judge",
        "dataset": {"hash": sample_release.data_hash},  # on this release's board
        "space": {"key": "k", "uploads": [name]},
    }
    (results / "records" / f"{record['id']}.json").write_text(json.dumps(record))
    caplog.set_level(logging.WARNING)
    config = SpaceConfig(results_dir=results, resamples=10)
    SpaceState(sample_release, results, config, background=False, analyses=False)
    assert f"stored upload of record {record['id'][:16]} cannot be read" in caplog.text
    assert SECRET not in caplog.text and "HF_TOKEN" not in caplog.text


def test_space_read_only_results_folder_keeps_reference_rows(
    sample_release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    """The reference rows' cache cannot be written: the Space still shows them (the cache is
    only a shortcut), and the log says why it was not written."""

    def refuse(path: Path, data: bytes) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(atomic, "write_bytes", refuse)
    caplog.set_level(logging.WARNING)
    config = SpaceConfig(results_dir=tmp_path / "r", resamples=10)
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    sources = {str(r.meta.source if r.meta else None) for r in state.records()}
    assert {"paper", "physicians"} <= sources
    assert "reference rows not cached in reference (Read-only file system)" in caplog.text


def test_every_public_endpoint_answers_hostile_text_without_leaks(
    launch, judge_csv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NUL bytes, 100k characters, unicode look-alikes, traversal and record-id prefixes in
    every free-text argument of the five public endpoints: an answer or a one-line error,
    never a traceback, a server path, an environment value or a stored record's upload."""
    from gradio_client.exceptions import AppError

    monkeypatch.setenv("MEDQADE_TEST_SECRET", SECRET)
    app = launch()
    record = _stored(app, judge_csv)
    client = app.client()
    rid = str(record["id"])
    values = [
        "/proc/self/environ",
        "../" * 8 + "etc/passwd",
        "a\x00b",
        "x" * 100_000,
        "\u202e/cte/\u202d",
        "ＰＨＹＳＩＣＩＡＮＳ",
        "physicians\x00",
        "file:///proc/self/environ",
        rid[:7],
        rid.upper(),
        rid + "/../" + rid,
    ]
    calls: list[tuple[str, tuple[Any, ...]]] = []
    for v in values:
        calls += [
            ("/compare", (v, "physicians", "core")),
            ("/compare", ("physicians", v, "full")),
            ("/leaderboard", ("core", v)),
            ("/item", (v, False)),
            ("/browse", ("all", "all", "all", "all", [], None, v)),
            ("/submit", tuple(submit_args(judge_csv, name=v, notes=v, prompt=v, decoding=v))),
        ]
    for api, args in calls:
        try:
            out = client.predict(*args, api_name=api)
        except AppError as exc:  # Gradio's own check of an argument
            out = str(exc)
        text = json.dumps(out, default=str)
        where = f"{api} {json.dumps(args, default=str)[:80]}"
        assert "Traceback" not in text and SECRET not in text, where
        assert str(app.results) not in text and str(judge_csv.parent) not in text, where
        assert "root:" not in text and "HOME=" not in text and "PATH=" not in text, where


def _fn_index(demo: Any, name: str) -> int:
    """The fn_index of the (private) event handler ``name``, as a client would find it."""
    return next(i for i, f in demo.fns.items() if f.name == name)


def _post(app: Running, name: str, data: list[Any], session: str = "attacker") -> Any:
    """Drive the handler ``name`` over plain HTTP, as an attacker would: by fn_index."""
    body = {"fn_index": _fn_index(app.demo, name), "data": data, "session_hash": session}
    return httpx.post(f"{app.url}gradio_api/run/predict", json=body, timeout=120)


def test_private_leaderboard_handler_over_http_stays_bounded(launch) -> None:
    """Issue 38: the page's leaderboard handler driven with many distinct margins kept one
    board (and downloads) per margin. Off the page's grid a margin is refused (the default is
    used, and the note says why); on it, the boards kept and the download folder stay bounded."""
    from medqade.app.state import BOARDS_KEPT

    app = launch()
    root = app.demo.medqade_exports.root
    odd = [round(0.05 + k * 0.000_37, 6) for k in range(1, 25)]
    notes = []
    for k, margin in enumerate(odd):  # a new session each time: nothing is skipped as shown
        data = ["core", "", ["kappa"], None, "kappa", margin, ""]
        res = _post(app, "leaderboard_ui", data, session=f"odd-{k}")
        assert res.status_code == 200, res.text
        notes.append(json.dumps(res.json()["data"][0]))
    assert all("steps of 0.01" in n for n in notes), notes[:2]
    assert len(app.state._boards) <= 1 + 1  # the default board only (both views at most)
    for k in range(BOARDS_KEPT + 6):
        data = ["full", "", ["kappa"], None, "PA", k / 100, ""]
        res = _post(app, "leaderboard_ui", data, session=f"grid-{k}")
        assert res.status_code == 200, res.text
    assert len(app.state._boards) <= BOARDS_KEPT
    assert len([p for p in root.iterdir() if p.name.startswith("medqade-")]) <= 3 * 2 + 2


def test_render_result_cannot_be_driven_with_a_forged_table(launch) -> None:
    """Issue 38: the private render_result, called directly with a large table, wrote it to
    disk (the export folder and Gradio's cache) without any submission. It now reads only the
    session's result held on the server: a forged payload writes nothing."""
    app = launch()
    root = app.demo.medqade_exports.root

    def export_bytes() -> int:
        return sum(f.stat().st_size for f in root.iterdir())

    before = export_bytes()
    rows = [[f"row {i}", "label", "x" * 200, "forged", "fix"] for i in range(5_000)]
    table = {"headers": ["line", "column", "value", "problem", "fix"], "data": rows}
    forged = {"ok": True, "record": {"id": "0" * 64}, "warnings": ["w" * 10_000]}
    for data in ([forged, table], [table], [None]):
        res = _post(app, "render_result", data)
        assert "forged" not in res.text and "w" * 10_000 not in res.text
    assert export_bytes() == before


@pytest.mark.parametrize(
    "name", ["Gemini 3 Flash", "Physicians", "Physician ceiling", "Ｐｈｙｓｉｃｉａｎｓ"]
)
def test_submit_name_passing_for_another_row_refused(launch, judge_csv: Path, name: str) -> None:
    """Issue 38: a submission named as a reference or physicians' row stood on the board
    beside the real rows. The Space refuses it (the same rule as ``medqade score``) with a
    status line that says why and what to do, and stores nothing."""
    app = launch()
    status, _, problems = app.client().predict(
        *submit_args(judge_csv, name=name), api_name="/submit"
    )
    assert status.startswith("Not accepted: ") and "would pass for" in status, status
    assert "meta.name" in json.dumps(problems["data"])
    assert app.state.store.records() == []


def test_render_result_shows_the_sessions_own_submission_over_http(launch, judge_csv: Path) -> None:
    """What the page does, over plain HTTP: /submit, then render_result in the same session,
    shows that submission's result (the state travels on the server); the same call in
    another session shows nothing."""
    app = launch()
    (path,) = httpx.post(
        f"{app.url}gradio_api/upload",
        files={"files": (judge_csv.name, judge_csv.read_bytes())},
        timeout=60,
    ).json()
    file = {"path": path, "orig_name": judge_csv.name, "meta": {"_type": "gradio.FileData"}}
    form = submit_args(judge_csv)[1:]
    res = _post(app, "submit", [file, *form], session="mine")
    assert res.status_code == 200, res.text
    assert str(res.json()["data"][0]).startswith("Accepted"), res.text
    (record,) = app.state.store.records()
    shown = _post(app, "render_result", [None], session="mine").json()["data"]
    assert shown[0].get("visible") is True  # the result box
    assert str(record.id)[:16] in json.dumps(shown)  # its record download
    other = _post(app, "render_result", [None], session="someone-else").json()["data"]
    assert other[0].get("visible") is False and str(record.id)[:16] not in json.dumps(other)


def test_leaderboard_handler_keeps_no_visitor_text_of_any_size(launch) -> None:
    """What the page shows is remembered per session (Gradio keeps up to 10,000 sessions):
    a megabyte of search text sent to the private refresh is not kept, and the note says
    why every row is shown."""
    app = launch()
    index = _fn_index(app.demo, "leaderboard_ui")
    state_block = app.demo.fns[index].inputs[3]  # what the session shows (a gr.State)
    huge = "x" * 1_000_000
    res = _post(app, "leaderboard_ui", ["core", huge, ["kappa"], None, "kappa", 0.05, ""], "big")
    assert res.status_code == 200, res.text
    assert "more than 200" in json.dumps(res.json()["data"][0])
    kept = app.demo.state_holder["big"][state_block._id]
    assert len(repr(kept)) < 5_000


def test_submissions_scored_at_once_are_bounded_by_the_setting(
    sample_release: Any, tmp_path: Path
) -> None:
    """``MEDQADE_SUBMIT_CONCURRENCY`` is the /submit event's concurrency limit (issue 38: the
    per-submission memory budget times this must fit the Space; docs/space.md)."""
    from medqade.app.config import DEFAULT_SUBMIT_CONCURRENCY, ENV_SUBMIT_CONCURRENCY
    from medqade.app.ui import build_app

    env = {ENV_SUBMIT_CONCURRENCY: "3"}
    config = SpaceConfig.from_env(env, results_dir=tmp_path / "r", rate_limit=0, resamples=10)
    assert config.submit_concurrency == 3
    assert SpaceConfig.from_env({}, results_dir=tmp_path / "r").submit_concurrency == (
        DEFAULT_SUBMIT_CONCURRENCY
    )
    with pytest.raises(ValueError, match=ENV_SUBMIT_CONCURRENCY):
        SpaceConfig.from_env({ENV_SUBMIT_CONCURRENCY: "0"}, results_dir=tmp_path / "r")
    demo = build_app(sample_release, tmp_path / "r", config, background=False, analyses=False)
    (submit,) = [f for f in demo.fns.values() if f.api_name == "submit"]
    assert submit.concurrency_limit == 3
