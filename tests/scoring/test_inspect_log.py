"""scoring.inspect_log: an Inspect ``.eval`` log as a submission, and the logs it refuses.

The happy paths (judge and answer logs scored like the equivalent label file, epochs, errors)
run the real tasks in tests/runners/test_inspect_tasks.py; here the refusals, each with the
file named and what to do: logs that would make the reader allocate without bound (ZIP bombs,
run in a child process under an address-space cap), logs of another task or dataset, and
logs whose samples were doctored. Every hostile log is a real log of ``medqade/judge`` or
``medqade/answer`` (mock model) rewritten member by member (``eval_zip.py`` beside this file).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match

from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.runners.inspect_tasks import answer, judge
from medqade.scoring import parse_submission
from medqade.scoring.inspect_log import is_eval_log, log_rows
from medqade.scoring.limits import Limits
from medqade.scoring.upload import read_upload

from .eval_zip import (
    Member,
    bomb_member,
    edit_json,
    members_of,
    write_zip,
)

ROOT = Path(__file__).resolve().parents[2]
REPLY = json.dumps({**{f"resp_{i}": "Richtig" for i in range(1, 6)}, "difficulty": "Mittel"})


def _run(task: Task, tmp_path: Path, reply: str, n: int = 6) -> bytes:
    outs = []
    for _ in range(n):
        out = ModelOutput.from_content("mockllm/model", reply)
        out.usage = ModelUsage(input_tokens=900, output_tokens=60, total_tokens=960)
        outs.append(out)
    (log,) = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=outs),
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_connections=1,
    )
    assert log.status == "success"
    return Path(log.location).read_bytes()


@pytest.fixture(scope="module")
def judge_log(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real log of ``inspect eval medqade/judge`` over the sample release (6 sets)."""
    task = judge(data=str(sample_dir), split="all", resamples=0)
    return _run(task, tmp_path_factory.mktemp("judge-log"), REPLY)


@pytest.fixture(scope="module")
def answer_log(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real log of ``inspect eval medqade/answer`` over the sample release (6 questions)."""
    task = answer(data=str(sample_dir), split="all", resamples=0)
    return _run(task, tmp_path_factory.mktemp("answer-log"), "Femur")


def _refusal(data: bytes, release: Release, name: str = "run.eval") -> str:
    with pytest.raises(InputError) as caught:
        parse_submission(data, name, release)
    text = "\n".join(str(p) for p in caught.value.problems)
    assert name in text and "Traceback" not in text
    return text


def _other_task_log(tmp_path: Path) -> bytes:
    task = Task(dataset=[Sample(input="2+2?", target="4")], scorer=match(), name="arithmetic")
    return _run(task, tmp_path, "4", n=1)


# --- the logs read as before -------------------------------------------------------------------


def test_a_rewritten_log_reads_as_the_original(judge_log: bytes, sample: Release) -> None:
    """The test's ZIP writer (Zstandard members, true sizes) makes logs the reader takes."""
    again = write_zip(members_of(judge_log))
    assert (
        parse_submission(again, "run.eval", sample).content_hash
        == parse_submission(judge_log, "run.eval", sample).content_hash
    )


def test_the_record_keeps_the_task_and_the_dataset_the_log_named(
    judge_log: bytes, sample: Release, sample_dir: Path
) -> None:
    run = parse_submission(judge_log, "run.eval", sample).meta["inspect"]
    assert run["task"] == "medqade/judge" and run["data"] == str(sample_dir)


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("openai/gpt-5.4-mini", "GPT"),  # a roster evaluator: its family
        ("ollama/gemma3:12b", "Gemma"),  # not in the roster: the family its name starts with
        ("openai-api/llama/smollm2", None),  # no family known: the submitter says it
    ],
)
def test_the_model_family_is_taken_from_the_log(
    judge_log: bytes, sample: Release, model: str, family: str | None
) -> None:
    """Issue 39: a log's model names its family where the roster knows it; a family given
    with the submission wins (explicit metadata overrides the header)."""

    def rename(header: dict) -> None:
        header["eval"]["model"] = model

    data = write_zip(
        edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), rename)
    )
    meta = parse_submission(data, "run.eval", sample).meta
    assert meta.get("family") == family


def test_a_family_given_with_the_submission_wins_over_the_log(
    judge_log: bytes, sample: Release
) -> None:
    from medqade.scoring import policy

    def rename(header: dict) -> None:
        header["eval"]["model"] = "openai/gpt-5.4-mini"

    data = write_zip(
        edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), rename)
    )
    settings = policy.Settings(resamples=0)
    for form, family in (({"family": "Qwen"}, "Qwen"), ({"family": ""}, "GPT")):
        upload = policy.Upload(data, "run.eval", ".eval")
        outcome = policy.submit(sample, [upload], None, {"name": "N", **form}, settings)
        assert outcome.ok and outcome.record is not None, outcome.message
        assert outcome.record.to_json()["meta"]["family"] == family


def test_family_of_model_reads_ids_and_names() -> None:
    from medqade.scoring.meta import family_of_model

    models = [("gpt-5.4-mini", "GPT"), ("gemma3:27b", "Gemma"), ("qwen3:4b", "Qwen")]
    assert family_of_model("GPT-5.4-Mini", models) == "GPT"
    assert family_of_model("google/gemma-3-4b-it", models) == "Gemma"
    assert family_of_model("qwen2.5-72b-instruct", models) == "Qwen"
    assert family_of_model("mistral-large", models) is None
    assert family_of_model("gpt-qwen-merge", models) is None  # two families: not guessed


# --- refusals that were there before ---------------------------------------------------------


def test_a_log_of_another_task_is_refused_by_name(tmp_path: Path, sample: Release) -> None:
    data = _other_task_log(tmp_path)
    assert is_eval_log(data, "run.eval")
    with pytest.raises(InputError) as caught:
        read_upload(data, "run.eval", 10_000_000, release=sample)
    text = str(caught.value.problems[0])
    assert "run.eval" in text and "'arithmetic'" in text and "inspect eval medqade/judge" in text


def test_a_damaged_log_is_refused_without_a_traceback() -> None:
    data = b"PK\x03\x04" + b"\x00" * 200
    with pytest.raises(InputError) as caught:
        log_rows(data, "broken.eval")
    text = str(caught.value.problems[0])
    assert "not a readable Inspect log" in text and "unchanged" in text


def test_only_an_eval_name_with_a_zip_inside_is_a_log() -> None:
    assert not is_eval_log(b"question_id,answer\n", "run.eval")
    assert not is_eval_log(b"PK\x03\x04rest", "run.zip")


def test_a_log_may_be_larger_than_a_label_file(tmp_path: Path, sample: Release) -> None:
    data = _other_task_log(tmp_path)
    small = len(data) // 2
    with pytest.raises(InputError, match="arithmetic"):  # past the size check: read as a log
        read_upload(data, "run.eval", small, max_log_bytes=len(data), release=sample)
    with pytest.raises(InputError, match="more than the limit"):
        read_upload(data, "run.eval", small, max_log_bytes=small, release=sample)
    with pytest.raises(InputError, match="more than the limit"):
        read_upload(data, "run.eval", small, release=sample)  # no log limit given: the file's


def test_a_log_that_declares_more_than_the_total_is_refused_before_it_is_read(
    judge_log: bytes, sample: Release
) -> None:
    limits = Limits(max_log_unpacked_bytes=100_000)
    members = members_of(judge_log)
    members.append(Member("junk.json", b"x" * 100_001))
    with pytest.raises(InputError) as caught:
        log_rows(write_zip(members), "bomb.eval", sample, limits)
    text = str(caught.value.problems[0])
    assert "bomb.eval" in text and "unpacks to" in text and "100,000" in text


# --- bombs: bounded memory (a child process under an address-space cap) -----------------------

CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    from medqade.dataset.release import load_release
    from medqade.files.problems import InputError
    from medqade.scoring import parse_submission
    import inspect_ai.log  # everything imported before the cap

    release = load_release(Path(sys.argv[1]))
    data = Path(sys.argv[2]).read_bytes()
    size = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize"))
    cap = size * 1024 + int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        parse_submission(data, "bomb.eval", release)
        outcome = "scored"
    except InputError as exc:
        outcome = "refused: " + " ".join(str(p) for p in exc.problems)
    except MemoryError:
        outcome = "MemoryError"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"outcome": outcome, "max_rss_kb": rss}))
    """
)
HEADROOM = 256 * 2**20
"""Address space the child may add after its imports: the bombs unpack to several times this."""


def _in_child(data: bytes, release_dir: Path, tmp_path: Path) -> dict[str, object]:
    path = tmp_path / "bomb.eval"
    path.write_bytes(data)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MALLOC_ARENA_MAX": "2"}
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(release_dir), str(path), str(HEADROOM)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, 93], ids=["deflate", "zstd"])
def test_a_member_that_lies_about_its_size_is_stopped_while_it_unpacks(
    judge_log: bytes, sample: Release, sample_dir: Path, tmp_path: Path, method: int
) -> None:
    """header.json declares 2 bytes but unpacks to 768 MiB: the reader stops at the declared
    size (before: Inspect's reader unpacked it whole, 3.3 GB RSS for a 3 GB member)."""
    members = [m for m in members_of(judge_log) if m.name != "header.json"]
    members.insert(0, bomb_member("header.json", 768 * 2**20, method, declared=2))
    result = _in_child(write_zip(members), sample_dir, tmp_path)
    outcome = str(result["outcome"])
    assert outcome.startswith("refused"), outcome
    assert "'header.json' declares 2 bytes but unpacks to more" in outcome
    assert "bomb.eval" in outcome and "unchanged" in outcome


def test_a_sample_that_lies_about_its_size_is_stopped_too(
    judge_log: bytes, sample: Release
) -> None:
    members = members_of(judge_log)
    victim = next(m for m in members if m.name.startswith("samples/"))
    members[members.index(victim)] = bomb_member(victim.name, 64 * 2**20, 93, declared=100)
    text = _refusal(write_zip(members), sample)
    assert f"{victim.name!r} declares 100 bytes but unpacks to more" in text


def test_an_honest_huge_header_is_refused_before_it_is_unpacked(
    judge_log: bytes, sample: Release, sample_dir: Path, tmp_path: Path
) -> None:
    """A 0.1 MB log honestly declaring a 200 MB header.json of whitespace before its JSON
    (before: unpacked, parsed and scored; 1.9 GB took 4 GB RSS and 58 s)."""
    members = members_of(judge_log)
    k = next(i for i, m in enumerate(members) if m.name == "header.json")
    head = members[k].data
    members[k] = bomb_member("header.json", 200_000_000, 93, fill=b" ", tail=head)
    data = write_zip(members)
    assert len(data) < 1_000_000
    result = _in_child(data, sample_dir, tmp_path)
    outcome = str(result["outcome"])
    assert outcome.startswith("refused"), outcome
    cap = Limits().max_log_header_bytes
    assert f"'header.json' unpacks to {200_000_000 + len(head):,} bytes" in outcome
    assert f"limit of {cap:,}" in outcome


def test_a_log_of_too_many_members_is_refused(judge_log: bytes, sample: Release) -> None:
    """45,000 empty members (before: listed, and the log scored)."""
    members = members_of(judge_log)
    members += [Member(f"junk/{k}", b"", method=zipfile.ZIP_STORED) for k in range(45_000)]
    text = _refusal(write_zip(members), sample)
    assert f"has {len(members):,} members, more than the limit of 40,000" in text


def test_a_table_of_contents_too_large_is_refused_before_zipfile_reads_it(
    judge_log: bytes, sample: Release
) -> None:
    few = Limits(max_log_members=10)
    long_names = [Member("x" * 300 + str(k), b"") for k in range(6)]
    with pytest.raises(InputError) as caught:
        log_rows(write_zip(members_of(judge_log) + long_names), "many.eval", sample, few)
    text = str(caught.value.problems[0])
    assert "many.eval" in text and "table of contents" in text and "of 10 members" in text


# --- the log must be of this release's task and texts ----------------------------------------


def test_a_log_of_another_package_s_judge_task_is_refused(
    judge_log: bytes, sample: Release
) -> None:
    def rename(header: dict) -> None:
        header["eval"]["task_registry_name"] = "other_pkg/judge"
        header["eval"]["task"] = "other_pkg/judge"

    data = write_zip(
        edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), rename)
    )
    text = _refusal(data, sample)
    assert "'other_pkg/judge'" in text and "medqade/judge" in text


def test_a_log_run_on_another_hub_dataset_is_refused(judge_log: bytes, sample: Release) -> None:
    def other(header: dict) -> None:
        header["eval"]["task_args"]["data"] = "org/other-benchmark"

    data = write_zip(
        edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), other)
    )
    for release in (sample, replace(sample, hub_id="medqade/medqade")):
        text = _refusal(data, release)
        assert "'org/other-benchmark'" in text and "this release" in text


def test_a_log_naming_no_dataset_ran_on_the_synthetic_default(
    judge_log: bytes, sample: Release
) -> None:
    def none(header: dict) -> None:
        header["eval"]["task_args"]["data"] = None

    data = write_zip(edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), none))
    real = replace(sample, meta=replace(sample.meta, synthetic=False))
    assert "no -T data" in _refusal(data, real)
    if sample.synthetic:  # the same texts on a synthetic release: scored
        assert "data" not in parse_submission(data, "run.eval", sample).meta["inspect"]


def test_a_judge_sample_that_asked_other_texts_is_refused_by_name(
    judge_log: bytes, sample: Release
) -> None:
    members = members_of(judge_log)
    victim = next(m for m in members if m.name.startswith("samples/"))

    def swap(obj: dict) -> None:
        student = sorted(obj["metadata"]["answers"])[1]
        obj["metadata"]["answers"][student] = "Eine andere Antwort"

    data = write_zip(edit_json(members, (victim.name,), swap))
    text = _refusal(data, sample)
    qid = json.loads(victim.data)["id"]
    assert f"sample {qid!r} (epoch 1)" in text and "answer of" in text
    assert "Eine andere Antwort" in text and "-T data" in text


def test_an_answer_sample_that_asked_another_question_is_refused(
    answer_log: bytes, sample: Release
) -> None:
    members = members_of(answer_log)
    victim = next(m for m in members if m.name.startswith("samples/"))

    def swap(obj: dict) -> None:
        obj["input"] = "Welches Organ produziert Insulin? ___"

    text = _refusal(write_zip(edit_json(members, (victim.name,), swap)), sample)
    assert "question (the input)" in text and "Insulin" in text


# --- messages: a doctored sample or an answer log without epoch 1 -----------------------------


@pytest.mark.parametrize(
    ("labels", "shape"),
    [(["Richtig", "Falsch"], "a list of 2"), ({"resp_1": "Richtig"}, "a JSON object")],
)
def test_labels_that_do_not_fit_the_order_name_the_sample(
    judge_log: bytes, sample: Release, labels: object, shape: str
) -> None:
    members = members_of(judge_log)
    victim = next(m for m in members if m.name.startswith("samples/"))

    def damage(obj: dict) -> None:
        for score in obj["scores"].values():
            score["metadata"]["labels"] = labels

    text = _refusal(write_zip(edit_json(members, (victim.name,), damage)), sample)
    qid = json.loads(victim.data)["id"]
    assert f"sample {qid!r} (epoch 1)" in text and shape in text
    assert "not a list of 5 labels" in text and "zip()" not in text


def test_an_answer_log_without_epoch_1_says_so(answer_log: bytes, sample: Release) -> None:
    moved = []
    for m in members_of(answer_log):
        if m.name.startswith("samples/"):
            obj = json.loads(m.data)
            obj["epoch"] = 2
            m = Member(m.name.replace("_epoch_1.json", "_epoch_2.json"), json.dumps(obj).encode())
        moved.append(m)
    text = _refusal(write_zip(moved), sample)
    assert "no epoch-1 samples" in text and "epoch 2" in text and "no data rows" not in text
