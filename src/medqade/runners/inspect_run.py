"""``medqade judge`` and ``medqade answer`` on Inspect: the options mapped onto
``inspect_ai.eval``, the output files written from its log.

The requests go through the Inspect tasks' own pieces (:mod:`~medqade.runners.inspect_tasks`:
samples, solvers, scorers) and Inspect's OpenAI-compatible provider
(``openai-api/medqade/MODEL`` at ``--base-url``): concurrency is Inspect's
``max_connections``, retries and backoff are Inspect's (``--max-retries``), ``--timeout`` is
its ``attempt_timeout``, ``--max-tokens``, ``--temperature``, ``--reasoning-effort`` and
``--extra-body`` its generate settings. The log goes to a temporary folder and is turned into
the commands' files (:func:`judge_rows`, :func:`answer_rows`).

What this layer adds, because Inspect does not do it:

- **One clear line when the server cannot be reached**, the key is refused or ``--model`` is
  not among the models it lists (:func:`check_server`, ``GET /models`` before the run;
  Inspect would retry each sample instead).
- **Resume from ``--out``.** The settings of a run are kept in the output's sidecar marker;
  a rerun with the same settings asks only the items that have no usable row yet (failed or
  missing), and keeps the others. Changed settings (model, prompt, seed, sampling) ask all.
- **Exit status 1 when no item succeeded**, with the causes (:func:`report`).

The structured-output fallback (``json_schema`` -> ``json_object`` with the schema ->
``json_object`` -> none, once for the run) is the judge solver's
(:func:`~medqade.runners.inspect_tasks.judge_solver`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Final

from medqade.runners.options import DEFAULT_KEY_ENV, DUMMY_KEY

OPENAI_URL: Final = "https://api.openai.com/v1"
SERVICE: Final = "medqade"
"""Inspect's service name for the endpoint: the model is ``openai-api/medqade/MODEL``."""
_KEY_HINT: Final = "check --model, --base-url and the API key variable"
_URL_HINT: Final = "is the server running there? check --base-url"


class RunAborted(ValueError):
    """The run cannot succeed and did not start: server unreachable, key refused, unknown
    model."""


@dataclass(frozen=True)
class RunSettings:
    """Where the model is served and how it is asked (the commands' options)."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    timeout: float = 120.0
    temperature: float | None = 0.0
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    concurrency: int = 8
    max_retries: int = 5
    check_model: bool = True
    progress: bool = True

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise ValueError("--model must name a model")
        if not self.timeout > 0:
            raise ValueError(f"--timeout must be positive, got {self.timeout}")
        if self.concurrency < 1:
            raise ValueError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.max_retries < 0:
            raise ValueError("--max-retries must be 0 or more")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"--max-tokens must be at least 1 or 'none', got {self.max_tokens}")
        reserved = sorted(set(self.extra_body) & {"model", "messages", "stream"})
        if reserved:
            raise ValueError(
                f"--extra-body must not set {', '.join(reserved)}: the runner sets those"
            )

    @property
    def url(self) -> str:
        return (self.base_url or OPENAI_URL).rstrip("/")

    def api_key(self) -> str:
        """The key from ``--api-key-env`` (default ``OPENAI_API_KEY``; that one unset means
        the dummy key local servers accept)."""
        var = self.api_key_env or DEFAULT_KEY_ENV
        key = os.environ.get(var, "")
        if key:
            return key
        if self.api_key_env is None:
            return DUMMY_KEY
        raise ValueError(f"environment variable {var} is not set; export the API key there")

    def sampling(self) -> dict[str, Any]:
        """The generate settings that change the replies (kept for resume, shown by dry runs)."""
        return {
            "temperature": self.temperature,
            "reasoning_effort": self.reasoning_effort,
            "max_tokens": self.max_tokens,
            "extra_body": dict(self.extra_body),
        }

    def generate_config(self) -> Any:
        """Inspect's ``GenerateConfig`` of these settings."""
        from inspect_ai.model import GenerateConfig

        return GenerateConfig(
            temperature=self.temperature,
            reasoning_effort=self.reasoning_effort,  # type: ignore[arg-type]
            max_tokens=self.max_tokens,
            extra_body=dict(self.extra_body) or None,
            max_connections=self.concurrency,
            max_retries=self.max_retries,
            attempt_timeout=math.ceil(self.timeout),
        )


def resume_key(settings: RunSettings, **more: Any) -> dict[str, Any]:
    """What must be equal for a rerun to keep an earlier output's rows (sidecar marker)."""
    key = {"model": settings.model, "base_url": settings.url, **settings.sampling(), **more}
    settled: dict[str, Any] = json.loads(json.dumps(key, sort_keys=True, ensure_ascii=False))
    return settled


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _first_line(text: str, limit: int = 300) -> str:
    paragraph = text.strip().split("\n\n", 1)[0]
    line = " ".join(part.strip() for part in paragraph.splitlines() if part.strip())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def check_server(settings: RunSettings) -> None:
    """``GET /models`` once: raise :class:`RunAborted` (one line naming the URL) when the
    server cannot be reached, refuses the key, or lists models without ``--model``."""
    import httpx

    url = settings.url
    headers = {"Authorization": f"Bearer {settings.api_key()}"}
    try:
        response = httpx.get(f"{url}/models", headers=headers, timeout=settings.timeout)
    except httpx.TimeoutException:
        return  # slow, not absent: the run's own timeouts and retries apply
    except httpx.HTTPError as exc:
        raise RunAborted(
            f"cannot reach the server at {url} (connection error: {_first_line(str(exc))}); "
            f"{_URL_HINT}"
        ) from None
    if response.status_code in (401, 403):
        detail = _first_line(response.text) or "no message"
        raise RunAborted(
            f"the server refused the request at {url} (HTTP {response.status_code}: "
            f"{detail}); {_KEY_HINT}"
        )
    if response.status_code != 200 or not settings.check_model:
        return  # no model list here: nothing to check
    try:
        listed = response.json().get("data")
    except (ValueError, AttributeError):
        return
    ids = [str(m["id"]) for m in listed or [] if isinstance(m, dict) and "id" in m]
    model = settings.model
    if not ids or model in ids or f"models/{model}" in ids:
        return
    shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
    raise RunAborted(
        f"--model {model!r} is not served at {url}; it serves {shown}. Pass one of "
        "these as --model (or --skip-model-check for a server whose list is incomplete)"
    )


@dataclass(frozen=True)
class Asked:
    """What a run's log holds for the commands: the rows of epoch 1 by question id (failures
    with ``error`` and ``raw``), the token counts and the judge's settled format."""

    rows: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    response_format: str | None = None


@contextlib.contextmanager
def sigint_seen() -> Iterator[threading.Event]:
    """An event set when Ctrl-C (SIGINT) arrives while the block runs; the signal is then
    handled as before (``KeyboardInterrupt``). Outside the main thread, where no handler can
    be set, the event is never set."""
    seen = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield seen
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: FrameType | None) -> None:
        seen.set()
        if callable(previous):
            previous(signum, frame)
        else:
            signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, handler)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)


def run_eval(task: Any, settings: RunSettings) -> Asked:
    """Run ``task`` with Inspect on the settings' endpoint and read its log (a temporary file);
    ``KeyboardInterrupt`` when the run was interrupted (Inspect catches Ctrl-C and returns no
    log, or a cancelled one)."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from medqade.scoring.log_rows import rows_of_log

    model = get_model(
        f"openai-api/{SERVICE}/{settings.model}",
        base_url=settings.url,
        api_key=settings.api_key(),
        memoize=False,
        max_retries=0,  # the openai client's own retries off: Inspect's are the counted ones
    )
    with tempfile.TemporaryDirectory(prefix="medqade-inspect-") as folder, sigint_seen() as seen:
        logs = inspect_eval(
            task,
            model=model,
            log_dir=folder,
            display="rich" if settings.progress else "none",
            fail_on_error=False,
            retry_on_error=0,
            score_display=False,
            # no live event buffer: the log is a temporary file nobody views while it runs,
            # and the buffer was a quarter of the runner's CPU per request (bench/runners.py)
            log_realtime=False,
        )
        # Inspect handles Ctrl-C itself and mostly returns a cancelled log; a Ctrl-C that
        # lands inside one sample's request can instead become that sample's error, and the
        # run goes on: interrupted either way
        if seen.is_set() or not logs or logs[0].status == "cancelled":
            raise KeyboardInterrupt
        log = logs[0]
        parsed = rows_of_log(log, "the Inspect log of this run")
        found = None
        for sample in log.samples or []:
            for score in (sample.scores or {}).values():
                found = (score.metadata or {}).get("response_format") or found
    usage = [u for u in (log.stats.model_usage or {}).values()]
    return Asked(
        rows={str(r["question_id"]): dict(r) for r in parsed.rows if r.get("run") == 1},
        input_tokens=sum(int(u.input_tokens or 0) for u in usage),
        output_tokens=sum(int(u.output_tokens or 0) for u in usage),
        response_format=found,
    )


@dataclass(frozen=True)
class Summary:
    """Counts of one run (``kept``: rows of the earlier output that were not asked again)."""

    items: int
    kept: int
    ok: int
    invalid: int
    errors: int
    input_tokens: int
    output_tokens: int
    wall_s: float
    error_kinds: tuple[tuple[str, int], ...] = ()
    response_format: str | None = None

    @property
    def failed(self) -> int:
        return self.invalid + self.errors

    def format(self) -> str:
        causes = ", ".join(f"{n} {kind}" for kind, n in self.error_kinds)
        asked = self.items - self.kept
        lines = [
            f"items {self.items}: {self.ok} ok, {self.failed} missing "
            f"({self.invalid} invalid output, {self.errors} errors"
            f"{f': {causes}' if causes else ''}), {self.kept} kept from the earlier output",
            f"asked {asked}, tokens {self.input_tokens + self.output_tokens} "
            f"({self.input_tokens} prompt + {self.output_tokens} completion)",
            f"wall time {self.wall_s:.1f} s",
        ]
        if self.response_format is not None:
            lines.append(f"response format: {self.response_format}")
        return "\n".join(lines)


def error_kind(error: str) -> str:
    """``HTTP 500``, ``timeout``, ``connection error``... of a row's error text."""
    text = error.removeprefix("error: ")
    lowered = text.lower()
    for code in ("401", "403", "404", "408", "409", "429", "400", "422", "500", "502", "503"):
        if f"error code: {code}" in lowered or f"http {code}" in lowered:
            return f"HTTP {code}"
    if "timeout" in lowered or "timed out" in lowered:
        return "timeout"
    if "connect" in lowered:
        return "connection error"
    if error.startswith("invalid"):
        return "invalid output"
    return _first_line(text, 60).split(":", 1)[0] or "error"


def summarise(rows: Sequence[Mapping[str, Any]], kept: int, asked: Asked, wall_s: float) -> Summary:
    """The :class:`Summary` of the written rows and what the run asked."""
    invalid = errors = 0
    kinds: Counter[str] = Counter()
    for row in rows:
        error = row.get("error")
        if not error:
            continue
        if str(error).startswith("invalid"):
            invalid += 1
        else:
            errors += 1
            kinds[error_kind(str(error))] += 1
    return Summary(
        items=len(rows),
        kept=kept,
        ok=len(rows) - invalid - errors,
        invalid=invalid,
        errors=errors,
        input_tokens=asked.input_tokens,
        output_tokens=asked.output_tokens,
        wall_s=wall_s,
        error_kinds=tuple(kinds.most_common()),
        response_format=asked.response_format,
    )


def report(summary: Summary, out: object, settings: RunSettings) -> int:
    """Print the summary and where the output went; the exit status (1: nothing usable)."""
    print(summary.format())
    print(f"wrote {out}")
    if summary.items and not summary.ok:
        causes = ", ".join(f"{n} {kind}" for kind, n in summary.error_kinds)
        if summary.invalid:
            causes = ", ".join(filter(None, [f"{summary.invalid} invalid output", causes]))
        print(
            f"error: no item succeeded against {settings.url} ({causes}); see 'error' and "
            f"'raw' in {out}",
            file=sys.stderr,
        )
        return 1
    if summary.failed:
        print(
            f"warning: {summary.failed} of {summary.items} items are missing (see 'error' and "
            "'raw' in the output); rerunning the same command asks them again",
            file=sys.stderr,
        )
    return 0


def dry_run_text(
    item_id: str,
    messages: Sequence[tuple[str, str]],
    settings: RunSettings,
    n_items: int,
    response_format: Mapping[str, Any] | None = None,
) -> str:
    """What ``--dry-run`` prints: the first request's messages and parameters (no key)."""
    params: dict[str, Any] = {"model": settings.model}
    sampling = settings.sampling()
    extra = sampling.pop("extra_body")
    params.update({k: v for k, v in sampling.items() if v is not None})
    if response_format is not None:
        params["response_format"] = dict(response_format)
    params.update(extra)
    lines = [
        f"dry run: {n_items} item(s) would be sent to {settings.url}; nothing was sent.",
        f"first item: {item_id}",
    ]
    for role, content in messages:
        lines += [f"--- {role} ---", content]
    lines += ["--- request parameters ---", json.dumps(params, ensure_ascii=False, indent=2)]
    return "\n".join(lines)


def interrupted(out: object) -> int:
    """Say what an interrupted run (Ctrl-C) left; the exit status 130."""
    print(
        f"\ninterrupted: nothing of this run was written; {out} is unchanged. Run the same "
        "command again: rows it already holds are kept, the rest are asked",
        file=sys.stderr,
    )
    return 130


def timed(start: float) -> float:
    return time.perf_counter() - start


def settings_of(args: Any) -> RunSettings:
    """The :class:`RunSettings` of the parsed options (``ValueError`` on bad values)."""
    settings = RunSettings(
        model=args.model,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        timeout=args.timeout,
        temperature=args.temperature,
        reasoning_effort=args.reasoning_effort,
        max_tokens=args.max_tokens,
        extra_body=args.extra_body or {},
        concurrency=args.concurrency,
        max_retries=args.max_retries,
        check_model=not args.skip_model_check,
        progress=not args.no_progress,
    )
    settings.api_key()  # a missing key variable fails before anything is asked or written
    return settings
