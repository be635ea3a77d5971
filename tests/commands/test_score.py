"""``medqade score``: summary, --json, --out, --validate-only, labels and user errors; the
same rules and the same record as the Space's /submit (:mod:`medqade.scoring.policy.policy`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.dataset.release import Release

Write = Callable[[str, str | bytes], Path]

ANSWERS = "question_id,answer\nS-C01,Femur\nS-C02,Aspirin\nS-E01,N. medianus\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_prints_a_summary(
    sample_dir: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("a.csv", ANSWERS)
    code, out, _ = run(
        capsys, "score", str(path), "--data", str(sample_dir), "--name", "Mein Modell"
    )
    assert code == 0
    assert out.startswith("Mein Modell (answers), scope partial")
    assert "anchored accuracy" in out and "flags: partial_coverage" in out


def test_score_json_with_metadata_flags(
    sample_dir: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("a.csv", ANSWERS)
    prompt = write("prompt.txt", "Antworte kurz.")
    out_path = path.parent / "record.json"
    code, out, _ = run(
        capsys, "score", str(path), "--data", str(sample_dir), "--json", "--out", str(out_path),
        "--name", "M", "--model-id", "m-1", "--revision", "2026-01", "--family", "qwen",
        "--organisation", "Org", "--link", "https://example.org/m", "--prompt-file", str(prompt),
        "--decoding", "temperature=0,max_tokens=32", "--resamples", "0",
    )  # fmt: skip
    assert code == 0
    record = json.loads(out)
    assert json.loads(out_path.read_text(encoding="utf-8")) == record
    meta = record["meta"]
    assert meta["family"] == "Qwen" and meta["prompt"] == "own"
    assert meta["prompt_sha256"] == hashlib.sha256(b"Antworte kurz.").hexdigest()
    assert meta["decoding"] == {"max_tokens": 32, "temperature": 0}
    assert meta["verified"] is False


def test_score_with_labels_for_unmatched_answers(
    sample_dir: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("a.csv", ANSWERS)
    labels = write("l.csv", "question_id,label\nS-C02,Falsch\n")
    code, out, _ = run(
        capsys, "score", str(path), "--data", str(sample_dir), "--json", "--resamples", "0",
        "--labels", str(labels), "--judge-name", "J", "--judge-family", "Qwen", "--family", "Qwen",
    )  # fmt: skip
    assert code == 0
    record = json.loads(out)
    assert record["accuracy"]["judged"]["n_judged"] == 1
    assert "same_family_judge" in record["flags"]


def test_score_validate_only(
    sample_dir: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write("a.csv", ANSWERS)
    code, out, _ = run(capsys, "score", str(good), "--data", str(sample_dir), "--validate-only")
    assert code == 0 and "OK, answers" in out
    bad = write("b.csv", "question_id;answer\nS-C01;Femur\n")
    code, _, err = run(capsys, "score", str(bad), "--data", str(sample_dir), "--validate-only")
    assert code == 2 and "use commas" in err


def test_score_bad_file_exits_2_with_rows(
    sample_dir: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("j.csv", "question_id,model,label\nS-C01,qwen3:4b,ja\nS-X,qwen3:4b,nein\n")
    code, out, err = run(capsys, "score", str(path), "--data", str(sample_dir))
    assert code == 2 and out == ""
    assert "j.csv, line 3, column 'question_id': unknown question id" in err


def test_score_missing_file(sample_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "score", "nope.csv", "--data", str(sample_dir))
    assert code == 2 and "no such file" in err


def test_score_bad_decoding(
    sample_dir: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("a.csv", ANSWERS)
    code, _, err = run(capsys, "score", str(path), "--data", str(sample_dir), "--decoding", "{x")
    assert code == 2 and "--decoding" in err


def test_score_judge_summary(
    sample_dir: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        "j.csv", "question_id,model,label\nS-C01,qwen3:4b,Falsch\nS-C02,qwen3:4b,Richtig\n"
    )
    code, out, _ = run(capsys, "score", str(path), "--data", str(sample_dir), "--resamples", "20")
    assert code == 0
    assert (
        "core: kappa" in out
        and "physicians (leave-one-out, each physician" in out
        and "verdict" in out
    )


def test_score_refuses_a_name_passing_for_another_row(
    sample_dir: Path, tmp_path: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38: ``--validate-only`` and ``--results`` refuse a display name or model id that
    reads as a reference or physicians' row (the Space's rule, one function), saying which."""
    path = write("a.csv", ANSWERS)
    base = ["score", str(path), "--data", str(sample_dir)]
    code, _, err = run(capsys, *base, "--validate-only", "--name", "Physician  ceiling")
    assert code == 2 and "would pass for the physicians' row" in err and "a.csv" in err
    code, _, err = run(capsys, *base, "--validate-only", "--model-id", "Ｇｅｍｉｎｉ 3 Flash")
    assert code == 2 and "the paper evaluator Gemini 3 Flash" in err
    code, out, _ = run(capsys, *base, "--validate-only", "--name", "Mein Modell")
    assert code == 0 and "OK, answers" in out
    results = tmp_path / "results"
    stored = [*base, "--resamples", "0", "--results", str(results)]
    code, _, err = run(capsys, *stored, "--name", "G\u0435mini 3 Fl\u200dash")
    assert code == 2 and "would pass for the paper evaluator Gemini 3 Flash" in err
    assert list(results.glob("records/*.json")) == []


def test_score_validate_only_shows_the_score_not_stored(
    sample_dir: Path, tmp_path: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39: ``--validate-only`` checked the file and scored nothing; it now scores it as
    the real run does (the same library call) and says the result was not stored."""
    path = write("a.csv", ANSWERS)
    results = tmp_path / "results"
    base = ["score", str(path), "--data", str(sample_dir), "--resamples", "20"]
    code, out, _ = run(capsys, *base, "--validate-only", "--results", str(results))
    assert code == 0 and "dry run: scored, not stored: accuracy 1.000" in out
    assert "(95% CI " in out
    assert list(results.glob("records/*.json")) == []
    code, out, _ = run(capsys, *base, "--validate-only", "--json")
    report = json.loads(out)
    assert report["ok"] is True and report["stored"] is False
    code, out, _ = run(capsys, *base, "--json")
    assert report["score"].startswith(
        f"accuracy {json.loads(out)['accuracy_core']['anchored']:.3f}"
    )


def test_validate_only_refuses_what_the_real_run_refuses(
    sample_dir: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 34: the dry run applies every rule of the real run (one
    :func:`medqade.scoring.policy.policy.check`), the metadata's link among them."""
    path = write("a.csv", ANSWERS)
    base = ["score", str(path), "--data", str(sample_dir), "--resamples", "0"]
    link = ["--link", "javascript:alert(1)"]
    code, _, err = run(capsys, *base, *link)
    assert code == 2 and "not an http(s) link" in err
    code, out, err = run(capsys, *base, "--validate-only", *link)
    assert code == 2 and "OK" not in out
    assert "not an http(s) link" in err and "javascript:alert(1)" in err
    code, out, _ = run(capsys, *base, "--validate-only", "--json", *link)
    report = json.loads(out)
    assert code == 2 and not report["ok"] and report["kind"] == "answers"
    assert any("not an http(s) link" in p for p in report["problems"])
    code, _, err = run(capsys, *base, "--validate-only", "--decoding", "temperature")
    assert code == 0


def test_validate_only_with_results_refuses_a_duplicate(
    sample_dir: Path, tmp_path: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    """The dry run against a results folder refuses what storing would refuse."""
    path = write("a.csv", ANSWERS)
    results = tmp_path / "results"
    base = ["score", str(path), "--data", str(sample_dir), "--results", str(results)]
    code, out, _ = run(capsys, *base, "--validate-only")
    assert code == 0 and "OK, answers" in out
    assert run(capsys, *base, "--resamples", "0")[0] == 0
    code, _, err = run(capsys, *base, "--validate-only")
    assert code == 2 and "submitted before" in err


def test_one_submission_one_record_from_the_cli_and_the_space(
    sample: Release, sample_dir: Path, tmp_path: Path, write: Write,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Issue 34: the same file and fields give one record id whichever front end they come
    through (one :class:`medqade.scoring.intake.meta.SubmissionForm` parse): stored by ``medqade
    score --results``, the Space's /submit of them is refused as a duplicate of that very record."""
    from medqade.app.config import SpaceConfig
    from medqade.app.state import SpaceState

    path = write("a.csv", ANSWERS)
    fields = {
        "name": "Mein Modell",
        "model_id": "mein-modell-7b",
        "family": "Qwen",
        "link": "https://example.org/card",
        "prompt": "official",
        "decoding": "temperature=0, max_tokens=64",
        "notes": "eine Notiz",
    }
    space_form = {**fields, "revision": "", "organisation": "", "prompt_sha256": ""}
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in fields.items()]

    def space(results: Path) -> SpaceState:
        config = SpaceConfig(results_dir=results, rate_limit=0, resamples=10)
        return SpaceState(sample, results, config, background=False, analyses=False)

    alone = space(tmp_path / "space-alone").submit(path, "answers", space_form, None)
    assert alone.ok and alone.record is not None
    stored = alone.record.to_json()
    assert stored["meta"]["decoding"] == {"max_tokens": 64, "temperature": 0}
    results = tmp_path / "results"
    argv = ["score", str(path), "--data", str(sample_dir), "--resamples", "10"]
    code, out, _ = run(capsys, *argv, "--json", "--results", str(results), *flags)
    assert code == 0
    cli = json.loads(out)
    assert cli["meta"] == stored["meta"]
    assert cli["id"] == stored["id"]
    shared = space(results)
    again = shared.submit(path, "answers", space_form, None)
    assert not again.ok and "submitted before" in again.message
    assert f"record {cli['id'][:16]}" in again.message
    dry = shared.submit(path, "answers", space_form, None, validate_only=True)
    assert not dry.ok and "submitted before" in dry.message
    assert len(list(results.glob("records/*.json"))) == 1


def test_the_space_refuses_malformed_decoding_as_the_cli_does(
    sample: Release, sample_dir: Path, tmp_path: Path, write: Write,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    from medqade.app.config import SpaceConfig
    from medqade.app.state import SpaceState

    path = write("a.csv", ANSWERS)
    results = tmp_path / "results"
    config = SpaceConfig(results_dir=results, rate_limit=0, resamples=1)
    state = SpaceState(sample, results, config, background=False, analyses=False)
    outcome = state.submit(path, "answers", {"decoding": "{x"}, None)
    assert not outcome.ok and "decoding: not valid JSON" in outcome.message
    code, _, err = run(capsys, "score", str(path), "--data", str(sample_dir), "--decoding", "{x")
    assert code == 2 and "--decoding: not valid JSON" in err


JUDGE = "question_id,model,label\n" + "".join(
    f"{q},{m},{label}\n"
    for q in ("S-C01", "S-C02")
    for m, label in zip(
        ("gemini-2.5-flash", "gpt-5-nano", "gemma3:27b", "gemma3:4b", "qwen3:4b"),
        ("Richtig", "Falsch", "Richtig", "Falsch", "Falsch"),
        strict=True,
    )
)


@pytest.mark.parametrize(
    ("decoding", "reason"),
    [
        (["--decoding", "temperature=0"], "not informative: deterministic decoding"),
        ([], None),
    ],
)
def test_self_consistency_of_a_deterministic_judge_is_withheld(
    sample_dir: Path,
    write: Write,
    capsys: pytest.CaptureFixture[str],
    decoding: list[str],
    reason: str | None,
) -> None:
    a = write("a.csv", JUDGE)
    b = write("b.csv", JUDGE.replace("S-C02,qwen3:4b,Falsch", "S-C02,qwen3:4b,Richtig"))
    argv = ["score", str(a), str(b), "--data", str(sample_dir), "--resamples", "10"]
    code, out, _ = run(capsys, *argv, *decoding, "--json")
    assert code == 0
    cons = json.loads(out)["behaviour"]["consistency"]
    assert cons["not_informative"] == reason
    assert (cons["kappa"] is None) is (reason is not None)
    code, out, _ = run(capsys, *argv, *decoding)
    (line,) = [x for x in out.splitlines() if x.startswith("self-consistency")]
    assert line.startswith(f"self-consistency (2 runs): {reason or 'intra-rater kappa'}")


def _judge_file(release: Release, write: Write) -> Path:
    """The first paper evaluator's labels on every answer of the release, as a label file."""
    lab = release.evaluator_labels[0]
    rows = ["question_id,model,label"]
    for i, qid in enumerate(release.item_ids):
        for s, model in enumerate(release.roster.student_ids):
            if lab[i, s] in (0, 1):
                rows.append(f"{qid},{model},{'Richtig' if lab[i, s] == 1 else 'Falsch'}")
    return write("judge.csv", "\n".join(rows) + "\n")


def test_score_with_private_labels_scores_every_item_and_says_when_it_cannot(
    sample_dir: Path,
    sample: Release,
    holdout_dirs: tuple[Path, Path],
    write: Write,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With --private-labels the numbers are those of the build without a hold-out; without
    it one line says the held-out items were not scored, and fewer answers are counted."""
    pub, priv = holdout_dirs
    path = _judge_file(sample, write)
    common = ("--resamples", "20", "--json")
    code, full_out, _ = run(capsys, "score", str(path), "--data", str(sample_dir), *common)
    assert code == 0
    code, both_out, err = run(
        capsys, "score", str(path), "--data", str(pub), "--private-labels", str(priv), *common
    )
    assert code == 0 and "note:" not in err
    code, alone_out, err = run(capsys, "score", str(path), "--data", str(pub), *common)
    assert code == 0
    assert err.count("\n") == 1 and "3 of 6 items hold their labels out" in err
    full, both, alone = (json.loads(x) for x in (full_out, both_out, alone_out))
    for block in ("core", "full"):
        assert both[block]["kappa"] == full[block]["kappa"]
        assert both[block]["n"] == full[block]["n"]
        assert alone[block]["n"] < full[block]["n"]
