"""Command-line options shared by ``medqade answer`` and ``medqade judge`` (argument parsing
only: the run itself is :mod:`medqade.runners.inspect_run`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from medqade.dataset.sources import add_data_argument
from medqade.runners.student import SPLIT_CHOICES

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DUMMY_KEY = "EMPTY"
"""Sent when the default key variable is unset: local vLLM and Ollama servers accept anything."""
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
    """The options every runner command takes (model, endpoint, sampling, retries)."""
    add_endpoint_arguments(p)
    add_data_argument(p)
    p.add_argument(
        "--split",
        choices=(*SPLIT_CHOICES, "pool"),
        default="all",
        help="items to ask (pool: every item of the release's pool, see docs/pool.md)",
    )
    p.add_argument("--out", type=Path, required=True, help="output file")
    p.add_argument("--prompt-file", type=Path, default=None, help="system prompt to use instead")
    add_sampling_arguments(p, default_max_tokens, default_concurrency)
    p.add_argument(
        "--seed",
        type=int,
        default=ORDER_SEED,
        help=f"seed of the shuffled answer order (default {ORDER_SEED})",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N items (trial run)")
    p.add_argument("--dry-run", action="store_true", help="print the first request; send nothing")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_endpoint_arguments(p: argparse.ArgumentParser) -> None:
    """Where the model is served: ``--model``, ``--skip-model-check``, ``--base-url``,
    ``--api-key-env`` (``medqade judge``, ``answer`` and ``verify``)."""
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


def add_sampling_arguments(
    p: argparse.ArgumentParser, default_max_tokens: int, default_concurrency: int = 8
) -> None:
    """How the model is asked: sampling, token limit, extra body, concurrency, retries and
    timeout (``medqade judge``, ``answer`` and ``verify``)."""
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
        help=f"requests in flight, Inspect's max_connections (default {default_concurrency})",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=5,
        help="retries per request on 429/5xx/timeouts, Inspect's backoff (default 5)",
    )
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")


def runner_inputs(args: argparse.Namespace) -> list[tuple[Path, str]]:
    """What a runner reads, which its ``--out`` may never be or lie inside."""
    read: list[tuple[Path, str]] = []
    if args.data is not None and Path(args.data).exists():
        read.append((Path(args.data), "the release it reads (--data)"))
    if getattr(args, "prompt_file", None) is not None:
        read.append((Path(args.prompt_file), "the prompt file (--prompt-file)"))
    return read
