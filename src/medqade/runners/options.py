"""Command-line options shared by ``medqade answer`` and ``medqade judge``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from medqade import atomic
from medqade.runners.cache import check_cache_dir
from medqade.runners.jobs import Job, Outcome, Parser, RunSummary
from medqade.runners.settings import (
    DEFAULT_KEY_ENV,
    DUMMY_KEY,
    Endpoint,
    RetryPolicy,
    RunConfig,
    Sampling,
    default_cache_dir,
)
from medqade.runners.student import SPLIT_CHOICES
from medqade.sources import add_data_argument

JUDGE_MAX_TOKENS = 256
"""Default reply cap of ``medqade judge``: a verdict object needs well under 100 tokens."""
ANSWER_MAX_TOKENS = 32
"""Default reply cap of ``medqade answer``: the answer is a word or a short term."""

ORDER_SEED = 5
"""Seed of the order in which a runner shows the five answers to a judge (recorded per item)."""


def _temperature(text: str) -> float | None:
    if text.strip().lower() in {"none", "default"}:
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number or 'none' (server default), got {text!r}"
        ) from None


def _max_tokens(text: str) -> int | None:
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number or 'none' (no limit), got {text!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _extra_body(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("expected a JSON object, e.g. '{\"top_k\": 1}'")
    return value


def add_run_arguments(
    p: argparse.ArgumentParser, default_max_tokens: int, default_concurrency: int = 8
) -> None:
    """The options every runner command takes (model, endpoint, sampling, retries, cache)."""
    p.add_argument(
        "--model",
        required=True,
        help="model name as the server knows it (checked against its /models list)",
    )
    p.add_argument(
        "--skip-model-check",
        action="store_true",
        help="do not check --model against the server's /models list",
    )
    p.add_argument(
        "--base-url",
        default=None,
        help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (default: OpenAI)",
    )
    p.add_argument(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help=f"environment variable with the API key (default {DEFAULT_KEY_ENV}; "
        f"unset means {DUMMY_KEY!r}, fine for local vLLM/Ollama)",
    )
    add_data_argument(p)
    p.add_argument(
        "--split",
        choices=(*SPLIT_CHOICES, "pool"),
        default="all",
        help="items to ask (pool: every item of the release's pool, see docs/pool.md)",
    )
    p.add_argument("--out", type=Path, required=True, help="output file")
    p.add_argument("--prompt-file", type=Path, default=None, help="system prompt to use instead")
    p.add_argument(
        "--temperature",
        type=_temperature,
        default=0.0,
        help="sampling temperature (default 0; 'none' leaves it to the server)",
    )
    p.add_argument(
        "--reasoning-effort", default=None, help="e.g. none, minimal, low (passed through)"
    )
    p.add_argument(
        "--max-tokens",
        type=_max_tokens,
        default=default_max_tokens,
        metavar="N",
        help=f"longest reply in tokens (default {default_max_tokens}; 'none' sends no limit; "
        "reasoning models count their thinking here, so raise it for them)",
    )
    p.add_argument(
        "--extra-body",
        type=_extra_body,
        default=None,
        metavar="JSON",
        help="JSON object merged into every request body",
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=default_concurrency,
        help=f"requests in flight (default {default_concurrency})",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=5,
        help="retries per item on 429/5xx/timeouts (default 5)",
    )
    p.add_argument(
        "--max-invalid",
        type=int,
        default=2,
        help="re-asks per item after an invalid output (default 2)",
    )
    p.add_argument(
        "--backoff",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="first retry wait, doubled each retry, capped at 60 s (default 1)",
    )
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
    p.add_argument(
        "--seed",
        type=int,
        default=ORDER_SEED,
        help=f"seed of the shuffled answer order (default {ORDER_SEED})",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N items (trial run)")
    p.add_argument(
        "--cache-dir", type=Path, default=None, help="response cache (default <out>.cache/)"
    )
    p.add_argument("--dry-run", action="store_true", help="print the first request; send nothing")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def runner_inputs(args: argparse.Namespace) -> list[tuple[Path, str]]:
    """What a runner reads, which its ``--out`` may never be or lie inside."""
    read: list[tuple[Path, str]] = []
    if args.data is not None and Path(args.data).exists():
        read.append((Path(args.data), "the release it reads (--data)"))
    if getattr(args, "prompt_file", None) is not None:
        read.append((Path(args.prompt_file), "the prompt file (--prompt-file)"))
    return read


def run_config(args: argparse.Namespace, label: str) -> RunConfig:
    """The frozen :class:`RunConfig` of parsed arguments (raises ``ValueError`` on bad values,
    :class:`~medqade.atomic.OutputRefused` for a cache folder the run may not write)."""
    cache_dir = args.cache_dir or default_cache_dir(args.out)
    check_cache_dir(cache_dir, runner_inputs(args))
    out, cache = (Path(os.path.abspath(p)).resolve() for p in (args.out, cache_dir))
    if out == cache or cache in out.parents:  # found only after the run has been paid for
        raise atomic.OutputRefused(
            f"--cache-dir {cache_dir} is or contains --out {args.out}; give the cache its own "
            "folder (default: OUT.cache beside --out)"
        )
    return RunConfig(
        endpoint=Endpoint(
            model=args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            timeout=args.timeout,
        ),
        sampling=Sampling(
            temperature=args.temperature,
            reasoning_effort=args.reasoning_effort,
            extra_body=args.extra_body or {},
            max_tokens=args.max_tokens,
        ),
        retry=RetryPolicy(
            max_retries=args.max_retries,
            max_invalid=args.max_invalid,
            backoff_base=args.backoff,
            seed=args.seed,
        ),
        concurrency=args.concurrency,
        cache_dir=cache_dir,
        progress=not args.no_progress,
        label=label,
        check_model=not args.skip_model_check,
    )


def dry_run_text(job: Job, config: RunConfig, n_items: int) -> str:
    """What ``--dry-run`` prints: the first request's messages and parameters (no key)."""
    params: dict[str, Any] = {"model": config.endpoint.model}
    sampling = config.sampling.fingerprint()
    extra = sampling.pop("extra_body")
    params.update({k: v for k, v in sampling.items() if v is not None})
    if job.response_format is not None:
        params["response_format"] = job.response_format
    params.update(extra)
    lines = [
        f"dry run: {n_items} item(s) would be sent to "
        f"{config.endpoint.base_url or 'the OpenAI API'}; nothing was sent.",
        f"first item: {job.item_id}",
    ]
    for message in job.messages:
        lines += [f"--- {message['role']} ---", message["content"]]
    lines += ["--- request parameters ---", json.dumps(params, ensure_ascii=False, indent=2)]
    return "\n".join(lines)


def execute(
    jobs: Sequence[Job], parse: Parser, config: RunConfig
) -> tuple[list[Outcome], RunSummary] | None:
    """:func:`~medqade.runners.engine.run_jobs`, or ``None`` after Ctrl-C (a rerun resumes)."""
    from medqade.runners.engine import run_jobs  # the openai client loads only when needed

    config.endpoint.api_key()  # a missing key variable fails before anything is written
    try:
        return run_jobs(jobs, parse, config)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: finished items are kept in {config.cache_dir}; "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return None


def report(summary: RunSummary, out: Path, config: RunConfig) -> int:
    """Print the run summary and where the output went; the exit status (1: nothing usable)."""
    print(summary.format())
    print(f"wrote {out}")
    if summary.items and not summary.ok:
        causes = ", ".join(f"{n} {kind}" for kind, n in summary.error_kinds)
        if summary.invalid:
            causes = ", ".join(filter(None, [f"{summary.invalid} invalid output", causes]))
        print(
            f"error: no item succeeded against {config.endpoint.base_url or 'the OpenAI API'} "
            f"({causes}); see 'error' and 'raw' in {out}",
            file=sys.stderr,
        )
        return 1
    if summary.failed:
        print(
            f"warning: {summary.failed} of {summary.items} items are missing (see 'error' and "
            "'raw' in the output); rerunning retries the errors, cached invalid outputs stay",
            file=sys.stderr,
        )
    return 0
