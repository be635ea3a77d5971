"""``medqade publish``: upload a build folder to a Hugging Face dataset repo (one commit)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from medqade.dataset.publish import check_repo_id, format_plan, plan, publish

NAME = "publish"
HELP = "Upload a build folder to a Hugging Face dataset repo in one commit (--dry-run lists it)."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("out", type=Path, help="the build folder written by `medqade build`")
    p.add_argument("--repo-id", required=True, help="dataset repo on the Hub, ORG/NAME")
    p.add_argument("--private", action="store_true", help="create the repo as private")
    p.add_argument("--tag", default=None, help="tag the upload commit, e.g. v1.0")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print path, size and sha256 of every file; upload nothing",
    )
    p.add_argument(
        "--token-env",
        default=None,
        metavar="VAR",
        help="read the Hub token from this environment variable "
        "(default: huggingface_hub's own login / HF_TOKEN)",
    )


def run(args: argparse.Namespace) -> int:
    check_repo_id(args.repo_id)
    if args.dry_run:
        entries = plan(args.out)
        print(f"dry run: would upload {args.out} to dataset repo {args.repo_id}")
        print(format_plan(entries))
        return 0
    token = None
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            raise ValueError(f"--token-env {args.token_env}: that environment variable is not set")
    result = publish(args.out, args.repo_id, private=args.private, tag=args.tag, token=token)
    where = result.commit_url or f"https://huggingface.co/datasets/{result.repo_id}"
    tagged = f", tagged {result.tag}" if result.tag else ""
    print(f"published {len(result.files)} files to {where}{tagged}")
    return 0
