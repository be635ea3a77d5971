"""Send many chat requests to an OpenAI-compatible server: concurrent, bounded, resumable.

:func:`run_jobs` takes a list of :class:`Job` (one per item) and a parser (text -> value, or
:class:`~medqade.runners.parsing.InvalidOutput`), asks the model with ``AsyncOpenAI`` from
``concurrency`` workers, and returns one :class:`Outcome` per job, in job order, plus a
:class:`RunSummary`. Items already in the cache are not asked again. Every retry is bounded
and counted (:class:`~medqade.runners.settings.RetryPolicy`); the client's own retries are
off (``max_retries=0``) so none go uncounted.

What real servers do differently, and what the runner does about it:

- **The model list.** Before the first request the runner reads ``GET /models``; when the
  server lists models and ``--model`` is not one of them the run stops with the list (some
  servers ignore the requested name and would answer anyway, under the wrong name in the
  cache). A server without the endpoint is not checked.
- **Structured output.** A judge job asks for a strict ``json_schema``. A server that refuses
  it (HTTP 400/422 or a 5xx whose error names the response format, as llama-cpp-python's
  does) makes the run step down once, for every later request: ``json_object`` with the
  schema (the llama.cpp form), then plain ``json_object``, then none (the user message states
  the format, and the parser checks it). The format each item used is kept with it (cache)
  and in the summary.
- **Token limit.** ``max_tokens`` is sent when set (the commands set one by default); a
  server that asks for ``max_completion_tokens`` instead gets that, once per run.
- **Errors that no retry fixes** stop the run (:class:`RunAborted`, one line that names the
  base URL): authentication, permission or unknown model (401/403/404) at any time; a
  connection refused before the server has answered at all; a rejected request (a 4xx other
  than 408/409/429) for :data:`REJECTED_ITEMS_TO_STOP` items before any request succeeded.
  Otherwise a rejected request fails only its own item, without retries.
- **Re-asks.** After an unusable reply the model gets its reply back with a follow-up that
  names what was wrong (:func:`~medqade.runners.prompts.reask_message`); at temperature 0 a
  repeat of the same request would return the same reply.

Requests go through ``AsyncOpenAI.post("/chat/completions", body=..., cast_to=object)``, the
client's documented call for arbitrary endpoints: the same authentication, connection pool,
timeouts and error classes (``RateLimitError``, ``APITimeoutError``...) as
``chat.completions.create``, without its typed-dict transform of the body (which walks the
whole JSON Schema) and its pydantic response model. That cuts the CPU time per request by
about a third (1.75 to 1.1 ms, ``bench/runners.py``); the body keys are the Chat Completions
API's.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, cast

import openai
from tqdm import tqdm

from medqade.runners.cache import ResponseCache, cache_key
from medqade.runners.jobs import Job, Outcome, Parser, RunAborted, RunSummary
from medqade.runners.parsing import InvalidOutput
from medqade.runners.prompts import reask_message
from medqade.runners.settings import DUMMY_KEY, RunConfig

CHAT_PATH: Final = "/chat/completions"
MODELS_PATH: Final = "/models"
OPENAI_URL: Final = "https://api.openai.com/v1"
_RETRY_STATUS = frozenset({408, 409, 429})
_REJECTED_STATUS = frozenset({400, 422})
_FATAL_ERRORS = (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)
REJECTED_ITEMS_TO_STOP: Final = 3
"""Rejected items (4xx) before any success that stop the run: one item can be at fault (too
long for the context, say), the same refusal for three items is the request's own shape."""
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema")
Rung = tuple[str, Mapping[str, Any] | None]


@dataclass
class _Counters:
    requests: int = 0
    retries: int = 0
    invalid_outputs: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_reported: int = 0
    failed: int = 0


def redact(text: str | None, secret: str) -> str | None:
    """``text`` with every occurrence of ``secret`` replaced by ``***``."""
    if text is None or not secret or secret == DUMMY_KEY or len(secret) < 4:
        return text
    return text.replace(secret, "***")


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue
    return None


def _describe(exc: openai.APIError) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return f"connection error: {_first_line(str(exc))}"
    if isinstance(exc, openai.APIStatusError):
        detail = exc.message.removeprefix(f"Error code: {exc.status_code}").lstrip(" -")
        return f"HTTP {exc.status_code}: {_first_line(detail) or 'no message'}"
    return f"{type(exc).__name__}: {_first_line(str(exc))}"


def _first_line(text: str, limit: int = 300) -> str:
    """The first paragraph of ``text`` on one line, cut at ``limit`` characters (servers
    send tracebacks after the message)."""
    paragraph = text.strip().split("\n\n", 1)[0]
    line = " ".join(part.strip() for part in paragraph.splitlines() if part.strip())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _error_text(exc: openai.APIStatusError) -> str:
    """The error message and body of a refused request, lower-cased, for keyword checks."""
    return f"{exc.message}\n{exc.response.text}".lower()


def format_ladder(response_format: Mapping[str, Any] | None) -> tuple[Rung, ...]:
    """The structured-output formats to try, best first, as ``(name, response_format)``.

    ``json_schema`` -> ``json_object`` with the schema -> ``json_object`` -> none; a request
    that starts lower starts further down the same ladder.
    """
    if response_format is None:
        return (("none", None),)
    kind = response_format.get("type")
    plain: Mapping[str, Any] = {"type": "json_object"}
    rungs: list[Rung] = []
    if kind == "json_schema":
        rungs.append(("json_schema", response_format))
        inner = response_format.get("json_schema")
        schema = inner.get("schema") if isinstance(inner, Mapping) else None
        if isinstance(schema, Mapping):
            rungs.append(("json_object with schema", {"type": "json_object", "schema": schema}))
        rungs.append(("json_object", plain))
    elif kind == "json_object":
        name = "json_object with schema" if "schema" in response_format else "json_object"
        rungs.append((name, response_format))
        if name != "json_object":
            rungs.append(("json_object", plain))
    else:
        rungs.append((str(kind), response_format))
    return (*rungs, ("none", None))


def _error_kind(error: str | None) -> str:
    """``HTTP 500``, ``timeout``, ``connection error``... of an outcome's error text."""
    return (error or "unknown error").split(":", 1)[0]


def _reply_text(data: object) -> str:
    """The assistant text of a chat-completion body ("" when there is none)."""
    try:
        message = cast(dict[str, Any], data)["choices"][0]["message"]
        content = message.get("content")
        if content is None:
            content = message.get("refusal")
    except (TypeError, KeyError, IndexError, AttributeError):
        return ""
    return content if isinstance(content, str) else ""


def _usage(data: object) -> tuple[int, int] | None:
    """``(prompt_tokens, completion_tokens)`` when the server reported ``usage``."""
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    try:
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    except (TypeError, ValueError):
        return None


class _Runner:
    def __init__(
        self,
        jobs: Sequence[Job],
        parse: Parser,
        config: RunConfig,
        cache: ResponseCache | None,
    ) -> None:
        self.jobs = jobs
        self.parse = parse
        self.config = config
        self.cache = cache
        self.count = _Counters()
        self.rng = random.Random(config.retry.seed)
        self.key = config.endpoint.api_key()
        self.url = config.endpoint.base_url or OPENAI_URL
        sampling = config.sampling
        self.params: dict[str, Any] = {}
        if sampling.temperature is not None:
            self.params["temperature"] = sampling.temperature
        if sampling.reasoning_effort is not None:
            self.params["reasoning_effort"] = sampling.reasoning_effort
        self.fingerprint = sampling.fingerprint()
        # negotiated once per run, shared by every worker
        self.level = 0  # rung of the format ladder in use
        self.settled = False  # a request at self.level was answered: no more stepping down
        self.token_field = "max_tokens"
        self.answered = False  # the server sent any HTTP response
        self.succeeded = False  # the server answered a chat request with 200
        self.rejected = 0  # items rejected (4xx) before any success
        self.reject_limit = min(REJECTED_ITEMS_TO_STOP, len(jobs))
        self.notes: list[str] = []

    def key_of(self, job: Job) -> str:
        return cache_key(
            self.config.endpoint.model,
            job.messages,
            job.response_format,
            self.fingerprint,
            job.item_id,
        )

    def from_cache(self, job: Job, key: str) -> Outcome | None:
        if self.cache is None:
            return None
        record = self.cache.get(key)
        if record is None or record.get("status") not in ("ok", "invalid"):
            return None
        return Outcome(
            item_id=job.item_id,
            status=record["status"],
            value=record.get("value"),
            raw=record.get("raw"),
            error=record.get("error"),
            cached=True,
            response_format=record.get("response_format"),
        )

    def store(self, job: Job, key: str, outcome: Outcome) -> None:
        if self.cache is None or outcome.status == "error":
            return
        self.cache.put(
            {
                "key": key,
                "item": job.item_id,
                "model": self.config.endpoint.model,
                "response_format": outcome.response_format,
                "status": outcome.status,
                "value": outcome.value,
                "raw": outcome.raw,
                "error": outcome.error,
            }
        )

    def body(self, messages: list[dict[str, str]], rung: Rung) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.config.endpoint.model, "messages": messages}
        if rung[1] is not None:
            body["response_format"] = dict(rung[1])
        body.update(self.params)
        if self.config.sampling.max_tokens is not None:
            body[self.token_field] = self.config.sampling.max_tokens
        body.update(self.config.sampling.extra_body)
        return body

    def abort(self, what: str, exc: openai.APIError, hint: str) -> RunAborted:
        return RunAborted(f"{what} {self.url} ({_describe(exc)}); {hint}")

    async def check_model(self, client: openai.AsyncOpenAI) -> None:
        """Stop unless ``--model`` is among the models the server lists (if it lists any)."""
        try:
            data = await client.get(MODELS_PATH, cast_to=object)
        except _FATAL_ERRORS[:2] as exc:
            raise self.abort("the server refused the request at", exc, _KEY_HINT) from None
        except openai.APITimeoutError:
            return
        except openai.APIConnectionError as exc:
            raise self.abort("cannot reach the server at", exc, _URL_HINT) from None
        except openai.APIError:
            self.answered = True
            return  # no model list here: nothing to check
        self.answered = True
        listed = data.get("data") if isinstance(data, dict) else None
        ids = [str(m["id"]) for m in listed or [] if isinstance(m, dict) and "id" in m]
        model = self.config.endpoint.model
        if not ids or model in ids or f"models/{model}" in ids:
            return
        shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
        raise RunAborted(
            f"--model {model!r} is not served at {self.url}; it serves {shown}. Pass one of "
            "these as --model (or --skip-model-check for a server whose list is incomplete)"
        )

    def step_down(self, exc: openai.APIStatusError, level: int, rungs: Sequence[Rung]) -> bool:
        """True when the request should be sent again with a negotiated change."""
        text = _error_text(exc)
        rejected = exc.status_code in _REJECTED_STATUS
        if (
            self.config.sampling.max_tokens is not None
            and "max_completion_tokens" in text
            and self.token_field == "max_tokens"
            and rejected
        ):
            self.token_field = "max_completion_tokens"
            self.notes.append(f"max_tokens refused ({_describe(exc)}); sent as it asks")
            return True
        top = len(rungs) - 1
        if level < min(self.level, top):
            return True  # another worker has stepped down meanwhile
        if self.settled or level >= top or rungs[level][1] is None:
            return False
        names_format = any(w in text for w in _FORMAT_WORDS)
        if not (names_format and (rejected or exc.status_code >= 500)):
            return False
        self.level = level + 1
        self.notes.append(
            f"{rungs[level][0]} refused ({_describe(exc)}); using {rungs[level + 1][0]}"
        )
        return True

    async def ask(self, client: openai.AsyncOpenAI, job: Job) -> Outcome:
        policy = self.config.retry
        rungs = format_ladder(job.response_format)
        retries = 0
        invalid = 0
        messages = [dict(m) for m in job.messages]
        while True:
            level = min(self.level, len(rungs) - 1)
            self.count.requests += 1
            try:
                data = await client.post(
                    CHAT_PATH, body=self.body(messages, rungs[level]), cast_to=object
                )
            except _FATAL_ERRORS as exc:
                raise self.abort("the server refused the request at", exc, _KEY_HINT) from None
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
                if status is not None:
                    self.answered = True
                    if self.step_down(cast(openai.APIStatusError, exc), level, rungs):
                        continue
                elif not self.answered and not isinstance(exc, openai.APITimeoutError):
                    raise self.abort("cannot reach the server at", exc, _URL_HINT) from None
                retryable = status is None or status in _RETRY_STATUS or status >= 500
                if not retryable and not self.succeeded:
                    self.rejected += 1
                    if self.rejected >= self.reject_limit:
                        raise self.abort(
                            "the server rejected the request at", exc, _BODY_HINT
                        ) from None
                if not retryable or retries >= policy.max_retries:
                    reply = exc.response.text if isinstance(exc, openai.APIStatusError) else None
                    return Outcome(job.item_id, "error", error=_describe(exc), raw=reply)
                retries += 1
                self.count.retries += 1
                after = _retry_after(exc) if isinstance(exc, openai.APIStatusError) else None
                await asyncio.sleep(policy.delay(retries, self.rng, after))
                continue
            except openai.APIError as exc:
                return Outcome(job.item_id, "error", error=_describe(exc))
            self.answered = self.succeeded = True
            if level == self.level:
                self.settled = True
            usage = _usage(data)
            if usage is not None:
                self.count.usage_reported += 1
                self.count.prompt_tokens += usage[0]
                self.count.completion_tokens += usage[1]
            text = _reply_text(data)
            used = rungs[level][0] if job.response_format is not None else None
            try:
                value = self.parse(text)
            except InvalidOutput as exc:
                self.count.invalid_outputs += 1
                if invalid >= policy.max_invalid:
                    return Outcome(
                        job.item_id,
                        "invalid",
                        raw=text,
                        error=f"invalid output: {exc}",
                        response_format=used,
                    )
                invalid += 1
                messages = [
                    *messages,
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": reask_message(str(exc))},
                ]
                continue
            return Outcome(job.item_id, "ok", value=value, raw=text, response_format=used)

    def _clean(self, outcome: Outcome) -> Outcome:
        if outcome.raw is None and outcome.error is None:
            return outcome
        return replace(
            outcome, raw=redact(outcome.raw, self.key), error=redact(outcome.error, self.key)
        )

    async def run(self) -> tuple[list[Outcome], RunSummary]:
        start = time.perf_counter()
        results: list[Outcome | None] = [None] * len(self.jobs)
        keys = [self.key_of(job) for job in self.jobs]
        pending: list[int] = []
        for i, (job, key) in enumerate(zip(self.jobs, keys, strict=True)):
            hit = self.from_cache(job, key)
            if hit is None:
                pending.append(i)
            else:
                results[i] = hit
        n_cached = len(self.jobs) - len(pending)
        bar = tqdm(
            total=len(self.jobs),
            initial=n_cached,
            desc=self.config.label,
            unit="item",
            file=sys.stderr,
            disable=not self.config.progress,
            dynamic_ncols=True,
        )
        queue = iter(pending)

        async def worker(client: openai.AsyncOpenAI) -> None:
            for i in queue:
                job = self.jobs[i]
                outcome = self._clean(await self.ask(client, job))
                self.store(job, keys[i], outcome)
                results[i] = outcome
                if outcome.status != "ok":
                    self.count.failed += 1
                    bar.set_postfix_str(f"missing {self.count.failed}", refresh=False)
                bar.update()

        try:
            if pending:
                client = openai.AsyncOpenAI(
                    api_key=self.key,
                    base_url=self.config.endpoint.base_url,
                    timeout=self.config.endpoint.timeout,
                    max_retries=0,
                )
                try:
                    if self.config.check_model:
                        await self.check_model(client)
                    async with asyncio.TaskGroup() as group:
                        for _ in range(min(self.config.concurrency, len(pending))):
                            group.create_task(worker(client))
                except* RunAborted as eg:
                    raise eg.exceptions[0] from None
                finally:
                    await client.close()
        finally:
            bar.close()
        done = [r for r in results if r is not None]
        if len(done) != len(self.jobs):  # pragma: no cover - every worker fills its slots
            raise RuntimeError("internal error: not every job has an outcome")
        formats = Counter(r.response_format for r in done if r.response_format is not None)
        used: str | None
        if len(formats) > 1:
            used = ", ".join(f"{name} ({n} items)" for name, n in sorted(formats.items()))
        else:
            used = next(iter(formats), None)
        errors = Counter(_error_kind(r.error) for r in done if r.status == "error")
        summary = RunSummary(
            items=len(done),
            cached=n_cached,
            ok=sum(r.status == "ok" for r in done),
            invalid=sum(r.status == "invalid" for r in done),
            errors=sum(errors.values()),
            requests=self.count.requests,
            retries=self.count.retries,
            invalid_outputs=self.count.invalid_outputs,
            prompt_tokens=self.count.prompt_tokens,
            completion_tokens=self.count.completion_tokens,
            usage_reported=self.count.usage_reported,
            wall_s=time.perf_counter() - start,
            error_kinds=tuple(sorted(errors.items())),
            response_format=used,
            format_notes=tuple(self.notes),
        )
        return done, summary


_KEY_HINT: Final = "check --model, --base-url and the API key variable"
_URL_HINT: Final = "is the server running there? check --base-url"
_BODY_HINT: Final = (
    "no retry can fix that; check --model, --extra-body and the server's log "
    "(or try --response-format json_object or none)"
)


async def arun_jobs(
    jobs: Sequence[Job], parse: Parser, config: RunConfig
) -> tuple[list[Outcome], RunSummary]:
    """Async form of :func:`run_jobs` (for callers that already run an event loop)."""
    if config.cache_dir is None:
        return await _Runner(jobs, parse, config, None).run()
    with ResponseCache(config.cache_dir) as cache:
        return await _Runner(jobs, parse, config, cache).run()


def run_jobs(
    jobs: Sequence[Job], parse: Parser, config: RunConfig
) -> tuple[list[Outcome], RunSummary]:
    """Ask the model for every job (see the module docstring); outcomes come in job order."""
    return asyncio.run(arun_jobs(jobs, parse, config))
