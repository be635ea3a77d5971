"""``medqade score``: score judge labels or model answers against the physician consensus."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from medqade import atomic, hub_eval
from medqade.commands._args import add_data_argument, add_margin_argument, non_negative_int
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.publish import REPO_ID
from medqade.release import HUB_ID
from medqade.scoring import Limits, attach_labels, parse_submission, score, validate_only
from medqade.scoring.meta import PROMPTS
from medqade.sources import open_release

NAME = "score"
HELP = "Score a judge-label or model-answer submission against the physician consensus."

EPILOG = """\
Judge labels: CSV/JSONL/Parquet rows question_id,model,label[,difficulty], or the output of
`medqade judge` (question_id, order, resp_1..resp_5 per question). Model answers: rows
question_id,answer (the output of `medqade answer`); --labels adds a judge's verdicts on those
answers (rows question_id,label[,answer]) for the ones that match no physician-labelled answer.
A JSONL file may start with a {"meta": {...}} line; flags override it.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="submission file (.csv, .jsonl or .parquet)")
    add_data_argument(p)
    p.add_argument("--kind", choices=("judge", "answers"), default=None, help="default: detect")
    p.add_argument("--json", action="store_true", help="print the result record as JSON")
    p.add_argument("--out", type=Path, default=None, help="also write the record to this file")
    p.add_argument("--validate-only", action="store_true", help="check the file, do not score")
    hub = p.add_argument_group("the Hub's leaderboard (.eval_results for your model repo)")
    hub.add_argument(
        "--eval-results",
        type=Path,
        default=None,
        metavar="FILE.yaml",
        help="also write the result as a Hub .eval_results entry (headline value, CI in notes)",
    )
    hub.add_argument(
        "--hub-dataset",
        default=None,
        metavar="ORG/NAME",
        help="the benchmark dataset on the Hub (default: --data, when it is a Hub repo id)",
    )
    hub.add_argument("--hub-revision", default=None, help="the dataset revision scored (git SHA)")
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
    meta.add_argument("--verified", action="store_true", help="maintainers: mark as verified")
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
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def _decoding(text: str) -> dict[str, Any] | str:
    text = text.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--decoding: not valid JSON ({exc.msg})") from None
        if not isinstance(value, dict):
            raise ValueError("--decoding: expected a JSON object")
        return value
    if "=" not in text:
        return text
    out: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, raw = part.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--decoding: expected key=value, got {part!r}")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw.strip()
    return out


def meta_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The metadata flags as a dict (unset flags left out)."""
    meta: dict[str, Any] = {}
    for key in ("name", "model_id", "revision", "family", "organisation", "link", "prompt"):
        value = getattr(args, key)
        if value:
            meta[key] = value
    if args.notes:
        meta["notes"] = args.notes
    if args.prompt_file is not None:
        meta["prompt_sha256"] = hashlib.sha256(args.prompt_file.read_bytes()).hexdigest()
        meta.setdefault("prompt", "own")
    if args.decoding:
        meta["decoding"] = _decoding(args.decoding)
    if args.verified:
        meta["verified"] = True
    judge = {
        "name": args.judge_name,
        "model_id": args.judge_model_id,
        "family": args.judge_family,
        "core_kappa": args.judge_kappa,
    }
    judge = {k: v for k, v in judge.items() if v is not None}
    if judge:
        meta["judge"] = judge
    return meta


def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _num(x: Any) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _signed(x: Any) -> str:
    return "n/a" if x is None else f"{x:+.3f}"


def _points(x: Any) -> str:
    return "n/a" if x is None else f"{x:+.1f}"


def _ci(pair: Any, fmt: Any = _num) -> str:
    if not pair or pair[0] is None:
        return ""
    return f" [{fmt(pair[0])}, {fmt(pair[1])}]"


def summary(record: dict[str, Any]) -> str:
    """A readable multi-line summary of a result record."""
    meta = record["meta"]
    sub = record["submission"]
    lines = [
        f"{meta.get('name') or meta.get('model_id') or 'submission'} ({record['kind']}), "
        f"scope {sub['scope']}, {sub['rows']} rows; record {record['id'][:16]}",
    ]
    if record["dataset"]["synthetic"]:
        lines.append("dataset: SYNTHETIC release (not physician data)")
    if record["kind"] == "judge":
        for split in ("core", "full"):
            b = record.get(split)
            if b:
                lines.append(
                    f"{split:>5}: kappa {_num(b['kappa'])}{_ci(b['kappa_ci'])}  "
                    f"PA {_pct(b['pa'])}{_ci(b['pa_ci'], _pct)}  "
                    f"PABAK {_num(b['pabak'])}{_ci(b['pabak_ci'])}  n={b['n']}"
                )
        for split in ("core", "full"):
            b = record.get(split)
            if b and b.get("rated"):
                r = b["rated"]
                lines.append(
                    f"{split:>5} when rated (abstentions dropped, the paper's): kappa "
                    f"{_num(r['kappa'])}  PA {_pct(r['pa'])}  coverage {_pct(b['coverage'])}  "
                    f"abstention {_pct(b.get('abstention'))}"
                )
        ref = record["physician_reference"]
        lines.append(
            f"physicians (leave-one-out): kappa {_num(ref['kappa'])}{_ci(ref['kappa_ci'])} "
            "(abstentions count as disagreements)"
        )
        for key, label in (
            ("physician_difference", "core, judge in each physician's place"),
            ("extension_difference", "extension, judge in each primary physician's place"),
        ):
            diff = record.get(key)
            if not diff:
                continue
            primary = diff.get("primary", "kappa")
            margin = (diff.get("margins") or {}).get(primary, diff.get("margin"))
            verdict = record.get("verdict") if key == "physician_difference" else diff["verdict"]
            lines.append(
                f"judge - physicians ({label}): {primary} {_signed(diff[primary])}"
                f"{_ci(diff[f'{primary}_ci'], _signed)}; verdict (margin {margin:g}): "
                f"{verdict or 'n/a'}"
            )
        alt = record.get("alt_test")
        if alt:
            lines.append(
                f"alt-test (epsilon {alt['epsilon']:g}): winning rate "
                f"{_num(alt['winning_rate'])}, {'passed' if alt['passed'] else 'failed'}"
            )
        a = record["abstention"]
        tiers = ", ".join(_pct(x) for x in a["by_tier"])
        lines.append(f"abstention: {_pct(a['global'])} (tiers 1-4: {tiers})")
        for t in (record.get("bias") or {}).get("targets", []):
            lines.append(
                f"{t['kind']} bias on {t['student']}: {100 * t['bias']:+.1f} points"
                f"{_ci([100 * x if x is not None else None for x in t['bias_ci']], _points)}"
                if t["bias"] is not None
                else f"{t['kind']} bias on {t['student']}: n/a"
            )
        d = record["disagreements"]
        lines.append(f"disagrees with a unanimous physician panel on {d['n']} answers")
    else:
        for key, label in (("accuracy_core", "core"), ("accuracy", "all")):
            b = record.get(key)
            if not b:
                continue
            line = (
                f"{label:>4}: anchored accuracy {_pct(b['anchored'])}{_ci(b['ci'], _pct)}, "
                f"bounds {_pct(b['lower'])}-{_pct(b['upper'])}, coverage {_pct(b['coverage'])}, "
                f"{b['pooled_anchors']} pooled anchors"
            )
            if b.get("judged"):
                j = b["judged"]
                line += f"; judged {_pct(j['estimate'])}{_ci(j['ci'], _pct)}"
            lines.append(line)
    if record["flags"]:
        lines.append("flags: " + ", ".join(record["flags"]))
    lines.extend(f"note: {w}" for w in record["warnings"][:20])
    return "\n".join(lines)


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


RECORD_KEYS = ("schema_version", "id", "kind", "submission")
"""Keys every score record has: a JSON file with them is an earlier ``score --out``."""


def is_record(path: Path) -> bool:
    """Whether ``path`` holds a score record (an earlier ``score --out``), unchanged since it
    was written (its ``id`` is the hash of its content), which may be replaced."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    from medqade.scoring.records import record_id

    return (
        isinstance(data, dict)
        and all(k in data for k in RECORD_KEYS)
        and data["kind"] in ("judge", "answers")
        and data.get("id") == record_id(data)  # unchanged since written: content-addressed
    )


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse ``--out`` / ``--eval-results`` targets the output policy forbids, before
    scoring (:func:`medqade.atomic.check_file`)."""
    inputs: list[tuple[Path, str]] = [(args.file, "the submission")]
    if args.labels is not None:
        inputs.append((args.labels, "the labels file (--labels)"))
    if args.data is not None and Path(args.data).exists():
        inputs.append((Path(args.data), "the release it scores against (--data)"))
    if args.out is not None:
        output = atomic.FileOutput(
            kind="score record",
            inputs=tuple(inputs),
            owned=is_record,
            fix="choose a new file name (e.g. score.json), or move the file away",
        )
        atomic.check_file(args.out, output)
    if args.eval_results is not None:
        if args.out is not None and Path(args.out).resolve() == Path(args.eval_results).resolve():
            raise atomic.OutputRefused(
                f"--eval-results {args.eval_results} is the same file as --out; give each "
                "its own file"
            )
        hub_eval.check_eval_results_target(args.eval_results, inputs)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    dataset_id = None
    if not args.validate_only:
        _check_outputs(args)
    if args.eval_results is not None and not args.validate_only:
        dataset_id = hub_dataset(args)
    release = open_release(args.data)
    limits = Limits()
    if args.validate_only:
        labels = None
        if args.labels is not None:
            labels = (args.labels.read_bytes(), args.labels.name)
        report = validate_only(path.read_bytes(), path.name, release, args.kind, limits, labels)
        if args.json:
            print(json.dumps(report, ensure_ascii=False, indent=2))
        elif report["ok"]:
            print(
                f"{path.name}: OK, {report['kind']} ({report['format']}), {report['rows']} rows, "
                f"scope {report['scope']}"
            )
            for w in report["warnings"]:
                print(f"note: {w}")
        else:
            print(f"{path.name}: {len(report['problems'])} problems", file=sys.stderr)
            for p in report["problems"]:
                print(f"  - {p}", file=sys.stderr)
        return 0 if report["ok"] else 2
    sub = parse_submission(path.read_bytes(), path.name, release, args.kind, limits)
    if args.labels is not None:
        sub = attach_labels(sub, args.labels.read_bytes(), args.labels.name, release, limits)
    record = score(
        release, sub, meta_from_args(args), args.resamples, args.seed, margin=args.margin
    )
    text = json.dumps(record, ensure_ascii=False, indent=2)
    hub_text = None
    if dataset_id is not None:
        hub_text = hub_eval.eval_results_yaml(
            record, dataset_id, revision=args.hub_revision, space_id=args.space_id
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
