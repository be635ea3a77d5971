"""Send many chat requests to an OpenAI-compatible server: concurrent, bounded, resumable.

:func:`run_jobs` takes a list of :class:`Job` (one per item) and a parser (text -> value, or
:class:`~medqade.runners.parsing.InvalidOutput`), asks the model with ``AsyncOpenAI`` from
``concurrency`` workers, and returns one :class:`Outcome` per job, in job order, plus a
:class:`RunSummary`. Items already in the cache are not asked again. Every retry is bounded
and counted (:class:`~medqade.runners.settings.RetryPolicy`); the client's own retries are
off (``max_retries=0``) so none go uncounted. An authentication, permission or unknown-model
error stops the run (:class:`RunAborted`), since every other item would fail the same way.

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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import openai
from tqdm import tqdm

from medqade.runners.cache import ResponseCache, cache_key
from medqade.runners.jobs import Job, Outcome, Parser, RunAborted, RunSummary
from medqade.runners.parsing import InvalidOutput
from medqade.runners.settings import DUMMY_KEY, RunConfig

CHAT_PATH: Final = "/chat/completions"
_RETRY_STATUS = frozenset({408, 409, 429})
_FATAL_ERRORS = (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)


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
        return f"connection error: {exc}"
    if isinstance(exc, openai.APIStatusError):
        detail = exc.message.removeprefix(f"Error code: {exc.status_code}").lstrip(" -")
        return f"HTTP {exc.status_code}: {detail or 'no message'}"
    return f"{type(exc).__name__}: {exc}"


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
        sampling = config.sampling
        self.params: dict[str, Any] = {}
        if sampling.temperature is not None:
            self.params["temperature"] = sampling.temperature
        if sampling.reasoning_effort is not None:
            self.params["reasoning_effort"] = sampling.reasoning_effort
        self.params.update(sampling.extra_body)
        self.fingerprint = sampling.fingerprint()

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
        )

    def store(self, job: Job, key: str, outcome: Outcome) -> None:
        if self.cache is None or outcome.status == "error":
            return
        self.cache.put(
            {
                "key": key,
                "item": job.item_id,
                "model": self.config.endpoint.model,
                "status": outcome.status,
                "value": outcome.value,
                "raw": outcome.raw,
                "error": outcome.error,
            }
        )

    async def ask(self, client: openai.AsyncOpenAI, job: Job) -> Outcome:
        policy = self.config.retry
        retries = 0
        invalid = 0
        body: dict[str, Any] = {
            "model": self.config.endpoint.model,
            "messages": [dict(m) for m in job.messages],
        }
        if job.response_format is not None:
            body["response_format"] = job.response_format
        body.update(self.params)
        while True:
            self.count.requests += 1
            try:
                data = await client.post(CHAT_PATH, body=body, cast_to=object)
            except _FATAL_ERRORS as exc:
                raise RunAborted(
                    f"the server refused the request ({_describe(exc)}); check --model, "
                    "--base-url and the API key variable"
                ) from None
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                retryable = isinstance(exc, openai.APIConnectionError) or (
                    exc.status_code in _RETRY_STATUS or exc.status_code >= 500
                )
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
            usage = _usage(data)
            if usage is not None:
                self.count.usage_reported += 1
                self.count.prompt_tokens += usage[0]
                self.count.completion_tokens += usage[1]
            text = _reply_text(data)
            try:
                value = self.parse(text)
            except InvalidOutput as exc:
                self.count.invalid_outputs += 1
                if invalid >= policy.max_invalid:
                    return Outcome(job.item_id, "invalid", raw=text, error=f"invalid output: {exc}")
                invalid += 1
                continue
            return Outcome(job.item_id, "ok", value=value, raw=text)

    def _clean(self, outcome: Outcome) -> Outcome:
        if outcome.raw is None and outcome.error is None:
            return outcome
        return Outcome(
            outcome.item_id,
            outcome.status,
            outcome.value,
            redact(outcome.raw, self.key),
            redact(outcome.error, self.key),
            outcome.cached,
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
        summary = RunSummary(
            items=len(done),
            cached=n_cached,
            ok=sum(r.status == "ok" for r in done),
            invalid=sum(r.status == "invalid" for r in done),
            errors=sum(r.status == "error" for r in done),
            requests=self.count.requests,
            retries=self.count.retries,
            invalid_outputs=self.count.invalid_outputs,
            prompt_tokens=self.count.prompt_tokens,
            completion_tokens=self.count.completion_tokens,
            usage_reported=self.count.usage_reported,
            wall_s=time.perf_counter() - start,
        )
        return done, summary


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
