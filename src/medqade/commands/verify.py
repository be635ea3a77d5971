"""``medqade verify``: ask a record's judge again on a seeded sample of its questions and check
that it reproduces the stored labels (:mod:`medqade.runners.verify`); the result and the re-run's
Inspect log are stored beside the record (:mod:`medqade.scoring.policy.verification`)."""

from __future__ import annotations

import argparse
import json
import secrets
from pathlib import Path

from medqade.commands._args import add_data_argument, positive_int
from medqade.dataset.sources import open_release
from medqade.measures import REFERENCE_PA, SAMPLE_QUESTIONS
from medqade.runners.judge import RESPONSE_FORMATS
from medqade.runners.options import (
    JUDGE_MAX_TOKENS,
    add_endpoint_arguments,
    add_sampling_arguments,
)
from medqade.scoring.intake import Limits
from medqade.scoring.policy import (
    check_verification_targets,
    results_folder_of,
    write_verification,
)
from medqade.scoring.record import ScoreRecord

NAME = "verify"
HELP = "Ask a record's judge again on a sample of its questions: does it reproduce its labels?"
EPILOG = f"""\
RECORD is a judge record: records/<id>.json of a results folder (its stored upload holds the
labels; an Inspect log is the preferred upload), or any record file with --labels, the file it
was scored from. K questions the record labelled are drawn (half core, seeded by --seed; a
fresh seed when none is given, stored with the result) and asked again, each in the order the
stored labels record. Pass when the upper bound of the 95% interval of the agreement (PA) of
new against stored labels reaches the judge's own run-to-run PA: the record's self-consistency
when it has one, else {REFERENCE_PA:g}.

Writes verifications/<record id>-<seed>.json and .eval (the Inspect log) into the record's
results folder, or into --out DIR; never over an existing file. Exit status 0: passed, 1:
failed (the record cannot be marked verified: medqade score --verified --verification FILE).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", type=Path, help="the judge record (records/<id>.json)")
    add_endpoint_arguments(p)
    add_data_argument(p)
    p.add_argument(
        "--labels",
        type=Path,
        default=None,
        help="the file the record was scored from (default: its stored upload in the results "
        "folder); checked against the record's content hash",
    )
    p.add_argument(
        "--sample",
        type=positive_int,
        default=SAMPLE_QUESTIONS,
        metavar="K",
        help=f"questions to ask again (default {SAMPLE_QUESTIONS}, i.e. "
        f"{5 * SAMPLE_QUESTIONS} answers)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the sample and its resamples (default: drawn now, and stored)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="results folder to write verifications/ into (default: the record's own)",
    )
    p.add_argument(
        "--prompt-file",
        type=Path,
        default=None,
        help="the record's own system prompt (required when the record names one)",
    )
    p.add_argument(
        "--response-format",
        choices=RESPONSE_FORMATS,
        default="json_schema",
        help="structured output to ask for first (as medqade judge)",
    )
    add_sampling_arguments(p, JUDGE_MAX_TOKENS)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the verification as JSON")
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def _record(path: Path) -> ScoreRecord:
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a JSON record ({exc})") from None
    if not isinstance(obj, dict) or "submission" not in obj or "id" not in obj:
        raise ValueError(f"{path}: not a score record (no id and submission)")
    return ScoreRecord.from_json(obj)


def run(args: argparse.Namespace) -> int:
    from medqade.runners import run_settings
    from medqade.runners import verify as verifying

    record = _record(args.record)
    root = results_folder_of(args.record)
    out = args.out if args.out is not None else root
    if out is None:
        raise ValueError(
            f"{args.record} is not in a results folder's records/: give --out DIR for the "
            "verification and --labels FILE, the file it was scored from"
        )
    if args.labels is None and root is None:
        raise ValueError(f"{args.record}: give --labels FILE, the file the record was scored from")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    if seed < 0:
        raise ValueError(f"--seed must be 0 or more, got {seed}")
    inputs = [(Path(args.record), "the record")]
    for path, what in ((args.labels, "--labels"), (args.prompt_file, "--prompt-file")):
        if path is not None:
            inputs.append((Path(path), f"the file of {what}"))
    check_verification_targets(out, str(record.id), seed, inputs)  # before anything is asked
    settings = run_settings.settings_of(args)
    release = open_release(args.data)
    limits = Limits()
    if args.labels is not None:
        sub = verifying.labels_of_file(
            record, release, Path(args.labels).read_bytes(), Path(args.labels).name, limits
        )
    else:
        assert root is not None
        sub = verifying.labels_of_store(record, release, root, limits)
    prompt = Path(args.prompt_file).read_bytes() if args.prompt_file is not None else None
    system = verifying.system_prompt(record, prompt)
    try:
        found = verifying.verify(
            record,
            release,
            sub,
            settings,
            questions=args.sample,
            seed=seed,
            system=system,
            response_format=args.response_format,
        )
    except KeyboardInterrupt:
        print("interrupted: nothing was written")
        return 130
    path = write_verification(out, found.verification, found.log, inputs)
    if args.json:
        print(json.dumps(found.verification.to_json(), ensure_ascii=False, indent=2))
    else:
        print(found.verification.line())
        print(f"wrote {path} and its Inspect log {path.with_suffix('.eval').name}")
    return 0 if found.verification.passed else 1
