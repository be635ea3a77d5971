"""``medqade space``: run the leaderboard Space locally; ``medqade space deploy`` uploads it."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from medqade.app.config import DEFAULT_MAX_UPLOAD_MB, DEFAULT_RATE_WINDOW_DAYS, SpaceConfig
from medqade.commands._args import add_data_argument, add_private_argument

NAME = "space"
HELP = "Run the leaderboard Space locally (`medqade space deploy` uploads it to the Hub)."


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_argument(p)
    add_private_argument(p)
    p.add_argument(
        "--results",
        type=Path,
        default=None,
        help="results folder (default: results under the MedQADE user cache folder); other "
        "Spaces, rescore and score --results may share it: each write takes its lock (.lock) "
        "in turn and re-checks duplicates and the rate limit against what the others stored",
    )
    p.add_argument("--port", type=int, default=None, help="port (default: Gradio's, 7860)")
    p.add_argument("--host", default=None, help="interface to listen on (default 127.0.0.1)")
    p.add_argument(
        "--rate-limit",
        type=int,
        default=None,
        help="submissions per account per window (default $MEDQADE_RATE_LIMIT or 5; 0 = off)",
    )
    p.add_argument(
        "--rate-window-days",
        type=float,
        default=None,
        help=f"length of the rate-limit window in days (default {DEFAULT_RATE_WINDOW_DAYS:g})",
    )
    p.add_argument(
        "--max-upload-mb",
        type=float,
        default=None,
        help=f"largest accepted upload in MiB (default {DEFAULT_MAX_UPLOAD_MB:g})",
    )
    p.add_argument(
        "--require-login",
        action="store_true",
        help="ask for a Hugging Face login before a submission (always on in a Space)",
    )
    p.add_argument(
        "--results-repo",
        default=None,
        help="mirror the results folder to this Hub dataset repo (ORG/NAME)",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    d = sub.add_parser("deploy", help="assemble the Space folder and upload it (one commit)")
    d.add_argument("--space-id", required=True, help="the Space on the Hub, ORG/NAME")
    d.add_argument("--dataset", required=True, help="the dataset repo the Space loads, ORG/NAME")
    d.add_argument(
        "--results-repo",
        dest="deploy_results_repo",
        default=None,
        help="dataset repo that keeps the submissions, ORG/NAME",
    )
    d.add_argument("--private", action="store_true", help="create the Space as private")
    d.add_argument(
        "--space-dir",
        type=Path,
        default=None,
        help="folder with app.py, requirements.txt, README.md (default: space/ of the checkout)",
    )
    d.add_argument(
        "--dry-run", action="store_true", help="list path, size and sha256; upload nothing"
    )
    d.add_argument(
        "--token-env",
        default=None,
        metavar="VAR",
        help="read the Hub token from this environment variable (default: huggingface_hub's)",
    )


def _deploy(args: argparse.Namespace) -> int:
    from medqade.app.deploy import assemble, deploy
    from medqade.dataset.publish import check_repo_id, format_plan

    check_repo_id(args.space_id)
    bundle = assemble(args.dataset, args.deploy_results_repo, args.space_dir)
    if args.dry_run:
        print(f"dry run: would upload to Space {args.space_id} (dataset {args.dataset})")
        print(format_plan(bundle.entries()))
        return 0
    token = None
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            raise ValueError(f"--token-env {args.token_env}: that environment variable is not set")
    result = deploy(bundle, args.space_id, private=args.private, token=token)
    where = result.commit_url or f"https://huggingface.co/spaces/{result.space_id}"
    print(f"deployed {len(result.files)} files to {where}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.action == "deploy":
        return _deploy(args)
    # Gradio is the Space's UI, an optional extra; only medqade.app imports it
    if importlib.util.find_spec("gradio") is None:
        print(
            "medqade space: the Space needs Gradio, which is not installed; "
            "install it with: pip install 'medqade[space]'",
            file=sys.stderr,
        )
        return 2
    config = SpaceConfig.from_env(
        data=args.data,
        private_labels=str(args.private_labels) if args.private_labels else None,
        results_dir=args.results,
        port=args.port,
        host=args.host,
        rate_limit=args.rate_limit,
        rate_window_days=args.rate_window_days,
        max_upload_mb=args.max_upload_mb,
        require_login=True if args.require_login else None,
        results_repo=args.results_repo,
    )
    from medqade.app.serve import serve

    if not config.data:  # the embedded synthetic release: say what a first build is doing
        from medqade.dataset.sources import default_build

        default_build(progress=_progress)
    _progress("loading the release and starting the Space; it prints its address once it serves")
    serve(config)
    return 0


def _progress(message: str) -> None:
    print(f"medqade space: {message}", file=sys.stderr, flush=True)
