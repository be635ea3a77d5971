"""scoring.upload_format: what an uploaded file is before it is read; compressed files,
archives, binary and non-UTF-8 text refused with the format named and what to upload instead."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from collections.abc import Callable

import pytest

from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring import parse_submission
from medqade.scoring.intake.upload_format import BOM, check_not_packed, decode_upload, detect_format


def rows(sample: Release, label: str) -> str:
    return "question_id,model,label\n" + "".join(
        f"{q},{m},{label}\n" for q in sample.item_ids for m in sample.roster.student_ids
    )


def refusal(data: bytes, name: str, sample: Release, kind: str | None = None) -> str:
    with pytest.raises(InputError) as exc:
        parse_submission(data, name, sample, kind)
    assert len(exc.value.problems) == 1
    return str(exc.value.problems[0])


@pytest.mark.parametrize(
    ("pack", "fmt"),
    [
        (gzip.compress, "gzip"),
        (bz2.compress, "bzip2"),
        (lzma.compress, "xz"),
        (lambda b: b"\x28\xb5\x2f\xfd" + b"\x00" * 16, "Zstandard"),
    ],
)
@pytest.mark.parametrize("name", ["judge.csv.gz", "judge.csv", "judge.parquet", "judge.bin"])
def test_compressed_file_says_compressed_and_what_to_do(
    sample: Release, pack: Callable[[bytes], bytes], fmt: str, name: str
) -> None:
    text = refusal(pack(rows(sample, "Richtig").encode()), name, sample)
    assert f"{name}: the file is {fmt}-compressed data" in text
    assert "decompress it first" in text and ".csv, .jsonl or .parquet" in text
    assert "UTF-8" not in text


def test_zip_archive_is_not_called_a_spreadsheet(sample: Release) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("judge.csv", rows(sample, "Richtig"))
    text = refusal(buf.getvalue(), "judge.zip", sample)
    assert "ZIP archive" in text and "unzip it" in text


def test_binary_file_names_the_byte_in_hex_not_a_bytes_repr(sample: Release) -> None:
    data = b"question_id,model,label\n" + bytes(range(256)) * 8
    text = refusal(data, "data.csv", sample)
    assert "binary file" in text and "byte 0x80" in text
    assert "b'" not in text and "\\x" not in text


def test_latin1_text_names_the_byte_in_hex(sample: Release) -> None:
    text = refusal("question_id,answer\nS-C01,Röhre\n".encode("latin-1"), "a.csv", sample)
    assert "a.csv, line 2: not UTF-8: byte 0xF6 at offset" in text and "b'" not in text


def test_detect_format_by_extension_then_content() -> None:
    assert detect_format(b"x", "a.PARQUET") == "parquet"
    assert detect_format(b"x", "a.ndjson") == "jsonl"
    assert detect_format(b"x", "a.tsv") == "csv"
    assert detect_format(b'{"question_id": "Q1"}\n', "upload") == "jsonl"
    assert detect_format(b"question_id,label\n", "upload") == "csv"
    with pytest.raises(InputError, match="spreadsheet workbook"):
        detect_format(b"PK\x03\x04rest", "labels.xlsx")


def test_decode_upload_drops_a_bom_and_names_a_bad_byte_by_line() -> None:
    assert decode_upload(BOM + "Größe\n".encode(), "a.csv") == "Größe\n"
    with pytest.raises(InputError) as caught:
        decode_upload(b"question_id\nQ1,\xe4\n", "a.csv")
    problem = caught.value.problems[0]
    assert problem.row == 2 and "0xE4" in problem.message and "b'" not in problem.message


def test_check_not_packed_passes_text_and_names_a_gzip() -> None:
    check_not_packed(b"question_id,label\n", "a.csv")
    with pytest.raises(InputError, match="gzip"):
        check_not_packed(gzip.compress(b"question_id\n"), "a.csv")
