"""scoring.inspect_log: an Inspect ``.eval`` log as a submission, and the logs it refuses.

The happy paths (judge and answer logs scored like the equivalent label file, epochs, errors)
run the real tasks in tests/runners/test_inspect_tasks.py; here the refusals, each with the
file named and what to do.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match

from medqade.files.problems import InputError
from medqade.scoring.inspect_log import MAX_UNPACKED_BYTES, is_eval_log, log_rows
from medqade.scoring.upload import read_upload


def _other_task_log(tmp_path: Path) -> bytes:
    out = ModelOutput.from_content("mockllm/model", "4")
    out.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
    task = Task(dataset=[Sample(input="2+2?", target="4")], scorer=match(), name="arithmetic")
    (log,) = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=[out]),
        log_dir=str(tmp_path),
        display="none",
    )
    return Path(log.location).read_bytes()


def test_a_log_of_another_task_is_refused_by_name(tmp_path: Path) -> None:
    data = _other_task_log(tmp_path)
    assert is_eval_log(data, "run.eval")
    with pytest.raises(InputError) as caught:
        read_upload(data, "run.eval", 10_000_000)
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


def test_a_log_may_be_larger_than_a_label_file(tmp_path: Path) -> None:
    data = _other_task_log(tmp_path)
    small = len(data) // 2
    with pytest.raises(InputError, match="arithmetic"):  # past the size check: read as a log
        read_upload(data, "run.eval", small, max_log_bytes=len(data))
    with pytest.raises(InputError, match="more than the limit"):
        read_upload(data, "run.eval", small, max_log_bytes=small)
    with pytest.raises(InputError, match="more than the limit"):
        read_upload(data, "run.eval", small)  # no log limit given: the file limit


def test_a_log_that_unpacks_beyond_the_limit_is_refused_before_it_is_read() -> None:
    """A ZIP bomb: a small archive whose member claims more than the limit unpacked (the
    declared size is checked; nothing is decompressed)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", b"{}")
    data = bytearray(buffer.getvalue())
    # declare a huge uncompressed size in the central directory entry of the one member
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (MAX_UNPACKED_BYTES + 1).to_bytes(4, "little")
    with pytest.raises(InputError) as caught:
        log_rows(bytes(data), "bomb.eval")
    text = str(caught.value.problems[0])
    assert "bomb.eval" in text and "unpacks to" in text and f"{MAX_UNPACKED_BYTES:,}" in text
