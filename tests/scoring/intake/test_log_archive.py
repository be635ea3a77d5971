"""scoring.log_archive: a ZIP's members decompressed under caps counted on the output.

Small archives made by the test writer (``eval_zip.py``): the three methods read, and each
refusal (a lie about the size, a cap, the total, the member count, a bad checksum, an unknown
method) named with the file and the member. The bombs through a whole log, under a memory cap,
are in test_inspect_log.py.
"""

from __future__ import annotations

import zipfile

import pytest

from medqade.files.problems import InputError
from medqade.scoring.intake.log_archive import (
    DEFLATED,
    STORED,
    ZSTANDARD,
    ArchiveCaps,
    check_archive,
    member_bytes,
)

from ..eval_zip import Member, bomb_member, write_zip

CAPS = ArchiveCaps(
    members=10, header_bytes=1_000, sample_bytes=2_000, other_bytes=5_000, total_bytes=8_000
)


def _refused(data: bytes, caps: ArchiveCaps = CAPS) -> str:
    with pytest.raises(InputError) as caught:
        check_archive(data, "run.eval", caps)
    text = str(caught.value.problems[0])
    assert text.startswith("run.eval")
    return text


@pytest.mark.parametrize("method", [STORED, DEFLATED, ZSTANDARD])
def test_each_method_reads_back_what_was_written(method: int) -> None:
    data = write_zip(
        [
            Member("header.json", b'{"a": 1}', method),
            Member("samples/x_epoch_1.json", b"[]" * 300, method),
        ]
    )
    archive = check_archive(data, "run.eval", CAPS)
    assert archive.unpacked == 8 + 600
    (sample,) = archive.sample_members()
    assert member_bytes(archive, sample, "run.eval", 2_000) == b"[]" * 300
    assert archive.named("header.json") is not None


@pytest.mark.parametrize("method", [DEFLATED, ZSTANDARD])
def test_a_member_unpacking_past_its_declared_size_is_stopped(method: int) -> None:
    data = write_zip([bomb_member("reductions.json", 900, method, declared=2)])
    assert "declares 2 bytes but unpacks to more" in _refused(data)


def test_each_kind_of_member_has_its_cap() -> None:
    assert "limit of 1,000 for one such member" in _refused(
        write_zip([Member("header.json", b" " * 1_001)])
    )
    assert "limit of 2,000" in _refused(write_zip([Member("samples/a_epoch_1.json", b" " * 2_001)]))
    assert "limit of 5,000" in _refused(write_zip([Member("summaries.json", b" " * 5_001)]))


def test_the_total_is_capped() -> None:
    members = [Member(f"samples/{k}_epoch_1.json", b" " * 1_900) for k in range(5)]
    assert "more than the limit of 8,000" in _refused(write_zip(members))


def test_the_member_count_is_capped() -> None:
    members = [Member(f"m{k}", b"") for k in range(11)]
    assert "11 members, more than the limit of 10" in _refused(write_zip(members))


def test_a_wrong_checksum_is_a_damaged_log() -> None:
    good = bomb_member("header.json", 100, ZSTANDARD)
    forged = Member(good.name, method=good.method, raw=good.raw, size=good.size, crc=1)
    assert "fails its checksum" in _refused(write_zip([forged]))


def test_an_unknown_method_is_named() -> None:
    member = Member("header.json", method=zipfile.ZIP_BZIP2, raw=b"BZh9", size=1, crc=0)
    assert "compression method 12" in _refused(write_zip([member]))


def test_not_a_zip_is_not_a_readable_log() -> None:
    assert "not a readable Inspect log" in _refused(b"PK\x03\x04" + b"\x00" * 50)
