"""``medqade score``: score judge labels or model answers against the physician consensus."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from medqade.commands._args import (
    add_data_argument,
    add_margin_argument,
    add_private_argument,
    non_negative_int,
)
from medqade.dataset import hub_eval
from medqade.dataset.publish import REPO_ID
from medqade.dataset.release import HUB_ID, Release
from medqade.dataset.sources import open_release, withheld_note
from medqade.files import atomic, file_output
from medqade.measures import BOOTSTRAP_SEED, DEFAULT_MARGIN
from medqade.scoring import Limits
from medqade.scoring.intake import FORM_KEYS, PRICES, PROMPTS, SubmissionForm
from medqade.scoring.metrics import is_record_file
from medqade.scoring.policy import (
    RateLimit,
    ResultsStore,
    Settings,
    Submitter,
    Upload,
    Verification,
    check,
    check_results_folder,
    read_verification,
    score_line,
    submit,
    upload_suffix,
)
from medqade.scoring.record import ScoreRecord, summary

NAME = "score"
CLI_ACCOUNT = "cli"
"""The account a record stored by ``medqade score --results`` is kept under (a maintainer's
run; the Space stores keyed hashes of user names instead)."""
HELP = "Score a judge-label or model-answer submission against the physician consensus."

EPILOG = """\
Judge labels: CSV/JSONL/Parquet rows question_id,model,label[,difficulty], or the output of
`medqade judge` (question_id, order, resp_1..resp_5 per question). Model answers: rows
question_id,answer (the output of `medqade answer`); --labels adds a judge's verdicts on those
answers (rows question_id,label[,answer]) for the ones that match no physician-labelled answer.
A JSONL file may start with a {"meta": {...}} line; flags override it.

Beyond agreement (the record's "behaviour"): an optional position column (1-5) or the
per-question order gives the judge's position bias; several files (or a run column) are runs
of one judge with reshuffled orders, scored for self-consistency beside the physicians'
re-ratings; token counts in the metadata ("usage": {"input_tokens", "output_tokens"}) and
--price-in/--price-out give the cost per 1,000 answers.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        type=Path,
        nargs="+",
        help="submission file (.csv, .jsonl, .parquet or an Inspect .eval log); judge labels: "
        "further files are more runs of the same judge (reshuffled orders), compared with the "
        "first for self-consistency",
    )
    add_data_argument(p)
    add_private_argument(p)
    p.add_argument("--kind", choices=("judge", "answers"), default=None, help="default: detect")
    p.add_argument("--json", action="store_true", help="print the result record as JSON")
    p.add_argument("--out", type=Path, default=None, help="also write the record to this file")
    p.add_argument(
        "--validate-only",
        action="store_true",
        help="check the file under every rule and score it as the real run would; store and "
        "write nothing",
    )
    hub = p.add_argument_group("the Hub's leaderboard (.eval_results for your model repo)")
    hub.add_argument(
        "--eval-results",
        type=Path,
        default=None,
        metavar="FILE.yaml",
        help="also write the result as a Hub .eval_results entry (headline value, CI in notes; "
        "the verdict at the leaderboard's margin, so not with another --margin)",
    )
    hub.add_argument(
        "--hub-dataset",
        default=None,
        metavar="ORG/NAME",
        help="the benchmark dataset on the Hub (default: --data, when it is a Hub repo id)",
    )
    hub.add_argument(
        "--hub-revision",
        default=None,
        help="the dataset revision scored (git SHA; default: the commit --data was read at)",
    )
    hub.add_argument(
        "--space-id", default=None, metavar="ORG/NAME", help="leaderboard Space named as source"
    )
    meta = p.add_argument_group("metadata (stored with the result)")
    meta.add_argument("--name", help="display name")
    meta.add_argument("--model-id", help="model id as served")
    meta.add_argument("--revision", help="model revision, snapshot or access date")
    meta.add_argument("--family", help="model family (a roster family such as GPT, or new)")
    meta.add_argument("--organisation", help="organisation")
    meta.add_argument("--link", help="https link to a model card or paper")
    meta.add_argument("--prompt", choices=PROMPTS, help="official prompt or own prompt")
    meta.add_argument("--prompt-file", type=Path, help="prompt file used (its SHA-256 is stored)")
    meta.add_argument(
        "--decoding", help='decoding settings: JSON ({"temperature": 0}) or key=value,key=value'
    )
    meta.add_argument("--notes", help="free text")
    meta.add_argument(
        "--verified",
        action="store_true",
        help="maintainers: mark as verified; needs --verification, a passing medqade verify "
        "of these labels",
    )
    meta.add_argument(
        "--verification",
        type=Path,
        default=None,
        metavar="FILE",
        help="with --verified: the verification medqade verify wrote for these labels "
        "(verifications/<record id>-<seed>.json); it must have passed",
    )
    meta.add_argument(
        "--results",
        type=Path,
        default=None,
        metavar="DIR",
        help="maintainers: also store the record in this results folder (a Space's), under "
        "the Space's rules: duplicates and copies of reference rows are refused; a running "
        "Space may share the folder (one write at a time, under its lock .lock)",
    )
    judge = p.add_argument_group("labels for model answers")
    judge.add_argument("--labels", type=Path, help="a judge's labels of the submitted answers")
    judge.add_argument("--judge-name", help="the judge's display name")
    judge.add_argument("--judge-model-id", help="the judge's model id")
    judge.add_argument("--judge-family", help="the judge's family")
    judge.add_argument("--judge-kappa", type=float, help="the judge's own core kappa, if known")
    stats = p.add_argument_group("statistics")
    stats.add_argument(
        "--resamples", type=non_negative_int, default=1000, help="bootstrap resamples"
    )
    stats.add_argument(
        "--seed", type=non_negative_int, default=BOOTSTRAP_SEED, help="bootstrap seed"
    )
    add_margin_argument(stats)
    cost = p.add_argument_group("cost (with token counts in the metadata's usage)")
    cost.add_argument(
        "--price-in",
        type=float,
        default=None,
        metavar="EUR_PER_MTOK",
        help="price of a million input tokens in EUR",
    )
    cost.add_argument(
        "--price-out",
        type=float,
        default=None,
        metavar="EUR_PER_MTOK",
        help="price of a million output tokens in EUR",
    )
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def meta_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The metadata flags as a dict (unset flags left out), parsed as the Space parses its
    form (:class:`medqade.scoring.intake.meta.SubmissionForm`)."""
    fields = {key: getattr(args, key) for key in (*FORM_KEYS, "notes", "decoding", *PRICES)}
    try:
        if args.prompt_file is not None:
            form = SubmissionForm.with_prompt_file(fields, args.prompt_file.read_bytes())
        else:
            form = SubmissionForm.from_fields(fields)
    except ValueError as exc:
        raise ValueError(f"--{exc}") from None
    judge = {
        "name": args.judge_name,
        "model_id": args.judge_model_id,
        "family": args.judge_family,
        "core_kappa": args.judge_kappa,
    }
    return replace(form, verified=bool(args.verified), judge=judge).meta()


def hub_dataset(args: argparse.Namespace) -> str:
    """The Hub dataset id the ``.eval_results`` entry names: ``--hub-dataset``, else ``--data``
    when that is a Hub repo id; ``ValueError`` otherwise."""
    dataset = args.hub_dataset
    data = args.data
    if dataset is None and data is not None and HUB_ID.match(str(data)) and not Path(data).exists():
        dataset = str(data)
    if dataset is None:
        raise ValueError(
            "--eval-results needs the benchmark dataset on the Hub: give --hub-dataset ORG/NAME "
            "(or --data ORG/NAME)"
        )
    for option, value in (("--hub-dataset", dataset), ("--space-id", args.space_id)):
        if value is not None and not REPO_ID.match(value):
            raise ValueError(f"{option} {value!r}: expected ORG/NAME")
    return str(dataset)


def check_hub_margin(args: argparse.Namespace) -> None:
    """Refuse ``--eval-results`` with a ``--margin`` other than the leaderboard's
    (:data:`~medqade.measures.paired.DEFAULT_MARGIN`), before anything is scored: the Hub
    entry publishes the verdict, and a verdict at the user's margin is not the one the
    leaderboard shows (:func:`medqade.dataset.hub_eval.check_record_margin`)."""
    if abs(args.margin - DEFAULT_MARGIN) > 1e-12:
        raise ValueError(
            f"--eval-results publishes the verdict at the leaderboard's margin "
            f"{DEFAULT_MARGIN:g}, not at --margin {args.margin:g}: drop --margin for the Hub "
            "entry (score again with --margin and without --eval-results to see your own)"
        )


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse ``--out`` / ``--eval-results`` targets the output policy forbids, before
    scoring (:func:`medqade.files.file_output.check_file`)."""
    inputs: list[tuple[Path, str]] = [(f, "the submission") for f in args.file]
    if args.labels is not None:
        inputs.append((args.labels, "the labels file (--labels)"))
    if args.data is not None and Path(args.data).exists():
        inputs.append((Path(args.data), "the release it scores against (--data)"))
    if args.out is not None:
        output = file_output.FileOutput(
            kind="score record",
            inputs=tuple(inputs),
            owned=is_record_file,
            fix="choose a new file name (e.g. score.json), or move the file away",
        )
        file_output.check_file(args.out, output)
    if args.eval_results is not None:
        if args.out is not None and Path(args.out).resolve() == Path(args.eval_results).resolve():
            raise atomic.OutputRefused(
                f"--eval-results {args.eval_results} is the same file as --out; give each "
                "its own file"
            )
        hub_eval.check_eval_results_target(args.eval_results, inputs)


def _uploads(args: argparse.Namespace) -> tuple[list[Upload], list[Upload]]:
    """The submission (and ``--labels``) as uploads, and further runs of the same judge."""
    files = [args.file[0]] if args.labels is None else [args.file[0], args.labels]
    uploads = [Upload(f.read_bytes(), f.name, upload_suffix(f.name)) for f in files]
    runs = [Upload(f.read_bytes(), f.name, upload_suffix(f.name)) for f in args.file[1:]]
    return uploads, runs


def _verification(args: argparse.Namespace) -> Verification | None:
    """The ``--verification`` file, read (a record is marked ``--verified`` only with a passing
    one of its labels: :func:`medqade.scoring.policy.verified_refusal`)."""
    if args.verification is None:
        return None
    if not args.verified:
        raise ValueError("--verification is read only with --verified; give both or neither")
    return read_verification(args.verification)


def _store(args: argparse.Namespace) -> ResultsStore | None:
    """The results folder of ``--results`` (account :data:`CLI_ACCOUNT`, no rate limit)."""
    if args.results is None:
        return None
    check_results_folder(args.results, "medqade score")
    return ResultsStore(args.results, RateLimit(0, 1.0))


def _check(args: argparse.Namespace, release: Release, limits: Limits) -> dict[str, Any]:
    """``--validate-only``: the Space's dry run (:func:`medqade.scoring.policy.policy.check`, every
    rule, against ``--results`` when given, scored as the real run is, nothing stored), as
    ``{"ok", "kind", "format", "rows", "scope", "coverage", "content_hash", "warnings",
    "problems", "stored", "score"}`` (problems as text; ``score`` the headline when scored)."""
    uploads, runs = _uploads(args)
    settings = Settings(args.resamples, args.seed, args.margin, limits)
    outcome = check(
        release,
        uploads,
        args.kind,
        meta_from_args(args),
        settings,
        store=_store(args),
        submitter=Submitter(CLI_ACCOUNT),
        runs=runs,
        verification=_verification(args),
    )
    empty = dict.fromkeys(("kind", "format", "rows", "scope", "coverage", "content_hash"))
    summary = (
        outcome.summary.to_json()
        if outcome.summary
        else {**empty, "kind": args.kind, "warnings": []}
    )
    problems = [str(p) for p in outcome.problems] or ([] if outcome.ok else [outcome.message])
    report = {"ok": outcome.ok, **summary, "problems": problems, "stored": False}
    if outcome.ok and outcome.record is not None:  # scored as the real run is, not stored
        report["score"] = score_line(outcome.record)
    return report


def _score(args: argparse.Namespace, release: Release, limits: Limits) -> ScoreRecord:
    """The record of the submission (and ``--labels``), through the library's one submission
    policy (:func:`medqade.scoring.policy.policy.submit`). Without ``--results`` nothing is stored
    and a copy of a reference row is scored and flagged; with it the record is stored there
    (as the account :data:`CLI_ACCOUNT`, no rate limit). A refusal is raised for ``main``."""
    uploads, runs = _uploads(args)
    settings = Settings(args.resamples, args.seed, args.margin, limits)
    store = _store(args)
    outcome = submit(
        release,
        uploads,
        args.kind,
        meta_from_args(args),
        settings,
        store=store,
        submitter=Submitter(CLI_ACCOUNT),
        runs=runs,
        verification=_verification(args),
    )
    if outcome.record is None:
        if isinstance(outcome.error, ValueError):  # InputError too: every problem listed
            raise outcome.error
        raise ValueError(outcome.message)
    # what the results folder added stays there: --out and --json are the scored record
    return replace(outcome.record, space=None)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file[0]
    for given in args.file:
        if not given.is_file():
            raise FileNotFoundError(f"{given}: no such file")
    if len(args.file) > 1 and (args.validate_only or args.labels is not None):
        raise ValueError(
            "several files are runs of one judge: give one file with --validate-only or --labels"
        )
    if len(args.file) > 1 and args.results is not None:
        raise ValueError(
            "several files are runs of one judge, and a results folder stores one file per "
            "record: give one file with --results (an Inspect log with --epochs holds all its "
            "runs in one file)"
        )
    dataset_id = None
    if not args.validate_only:
        _check_outputs(args)
    if args.eval_results is not None and not args.validate_only:
        check_hub_margin(args)
        dataset_id = hub_dataset(args)
    release = open_release(args.data, args.private_labels)
    note = withheld_note(release)
    if note is not None:  # a public build alone: the held-out items have no labels to score
        print(note, file=sys.stderr)
    limits = Limits()
    if args.validate_only:
        report = _check(args, release, limits)
        if args.json:
            print(json.dumps(report, ensure_ascii=False, indent=2))
        elif report["ok"]:
            print(
                f"{path.name}: OK, {report['kind']} ({report['format']}), {report['rows']} rows, "
                f"scope {report['scope']}"
            )
            print(f"{path.name}: dry run: scored, not stored: {report['score']}")
            for w in report["warnings"]:
                print(f"note: {w}")
        else:
            print(f"{path.name}: {len(report['problems'])} problems", file=sys.stderr)
            for p in report["problems"]:
                print(f"  - {p}", file=sys.stderr)
        return 0 if report["ok"] else 2
    record = _score(args, release, limits)
    obj = record.to_json()  # the JSON edge: --out, --json and the Hub entry
    text = json.dumps(obj, ensure_ascii=False, indent=2)
    hub_text = None
    if dataset_id is not None:
        revision = args.hub_revision or release.hub_revision
        hub_text = hub_eval.eval_results_yaml(
            obj, dataset_id, margin=DEFAULT_MARGIN, revision=revision, space_id=args.space_id
        )
    planned = []
    if args.out is not None:
        planned.append(atomic.Planned(args.out, (text + "\n").encode("utf-8"), "--out"))
    if hub_text is not None:
        planned.append(
            atomic.Planned(args.eval_results, hub_text.encode("utf-8"), "--eval-results")
        )
    atomic.write_files(planned)  # both files or neither
    if args.json:
        print(text)
    else:
        print(summary(record))
    if hub_text is not None:
        print(
            f"wrote {args.eval_results}: put it in your model repo's .eval_results/ folder",
            file=sys.stderr if args.json else sys.stdout,
        )
    return 0
