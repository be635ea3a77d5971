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
- **Exit status 1 when no item succeeded**, with the causes
  (:func:`~medqade.runners.run_report.report`).

The settings of a run and its resume key: :mod:`~medqade.runners.run_settings`; what it asked
and its summary: :mod:`~medqade.runners.run_report`.

The structured-output fallback (``json_schema`` -> ``json_object`` with the schema ->
``json_object`` -> none, once for the run) is the judge solver's
(:func:`~medqade.runners.inspect_tasks.judge_solver`).
"""

from __future__ import annotations

import contextlib
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, Final

from medqade.runners.run_report import Asked
from medqade.runners.run_settings import SERVICE, RunAborted, RunSettings, first_line

_KEY_HINT: Final = "check --model, --base-url and the API key variable"
_URL_HINT: Final = "is the server running there? check --base-url"


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
            f"cannot reach the server at {url} (connection error: {first_line(str(exc))}); "
            f"{_URL_HINT}"
        ) from None
    if response.status_code in (401, 403):
        detail = first_line(response.text) or "no message"
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


def run_eval(task: Any, settings: RunSettings, model: Any = None, keep_log: bool = False) -> Asked:
    """Run ``task`` with Inspect on the settings' endpoint (or on ``model``, an Inspect model:
    tests use ``mockllm``) and read its log (a temporary file; ``keep_log``: its bytes and name
    are kept in :attr:`Asked.log`); ``KeyboardInterrupt`` when the run was interrupted
    (Inspect catches Ctrl-C and returns no log, or a cancelled one)."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from medqade.scoring.intake import rows_of_log

    if model is None:
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
        kept = None
        if keep_log:
            written = Path(log.location)
            kept = (written.name, written.read_bytes())
    usage = [u for u in (log.stats.model_usage or {}).values()]
    return Asked(
        rows={str(r["question_id"]): dict(r) for r in parsed.rows if r.get("run") == 1},
        input_tokens=sum(int(u.input_tokens or 0) for u in usage),
        output_tokens=sum(int(u.output_tokens or 0) for u in usage),
        response_format=found,
        log=kept,
    )
