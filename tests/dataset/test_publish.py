"""Tests of medqade.dataset.publish and ``medqade publish``, with a fake ``HfApi`` (no network)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from huggingface_hub import CommitOperationAdd

from medqade.cli import main
from medqade.dataset import publish as publish_module
from medqade.dataset.publish import format_plan, plan, publish


class FakeHfApi:
    """Records every call; ``create_commit`` returns a CommitInfo-like object."""

    instances: ClassVar[list[FakeHfApi]] = []

    def __init__(self, token: str | None = None, **kwargs: Any) -> None:
        self.token = token
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        FakeHfApi.instances.append(self)

    def create_repo(self, repo_id: str, **kwargs: Any) -> str:
        self.calls.append(("create_repo", (repo_id,), kwargs))
        return f"https://huggingface.co/datasets/{repo_id}"

    def create_commit(self, repo_id: str, operations: Any, **kwargs: Any) -> SimpleNamespace:
        self.calls.append(("create_commit", (repo_id, list(operations)), kwargs))
        return SimpleNamespace(
            oid="0123456789abcdef0123456789abcdef01234567",
            commit_url=f"https://huggingface.co/datasets/{repo_id}/commit/0123456",
        )

    def create_tag(self, repo_id: str, **kwargs: Any) -> None:
        self.calls.append(("create_tag", (repo_id,), kwargs))

    def names(self) -> list[str]:
        return [name for name, _, _ in self.calls]


class NoNetwork:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("the dry run must not create an HfApi client")


@pytest.fixture
def build_copy(built_sample: Path, tmp_path: Path) -> Path:
    """A private copy of the built sample that a test may modify."""
    target = tmp_path / "build"
    shutil.copytree(built_sample, target)
    return target


@pytest.fixture
def fake_hfapi(monkeypatch: pytest.MonkeyPatch) -> type[FakeHfApi]:
    FakeHfApi.instances = []
    monkeypatch.setattr(publish_module, "HfApi", FakeHfApi)
    return FakeHfApi


def _files(folder: Path) -> dict[str, tuple[int, str]]:
    return {
        p.relative_to(folder).as_posix(): (
            p.stat().st_size,
            hashlib.sha256(p.read_bytes()).hexdigest(),
        )
        for p in folder.rglob("*")
        if p.is_file()
    }


# --- plan / dry run ---------------------------------------------------------------------------


def test_plan_lists_every_file_sorted(build_copy: Path) -> None:
    entries = plan(build_copy)
    assert [e.path for e in entries] == sorted(_files(build_copy))
    assert {e.path: (e.size, e.sha256) for e in entries} == _files(build_copy)
    assert "README.md" in {e.path for e in entries}
    assert len(entries) == 13  # README.md, release.json, eval.yaml, 5 configs x 2 splits


def test_format_plan_lines(build_copy: Path) -> None:
    entries = plan(build_copy)
    lines = format_plan(entries).splitlines()
    assert len(lines) == len(entries) + 1
    readme = next(e for e in entries if e.path == "README.md")
    assert f"{readme.size:>12}  {readme.sha256}  README.md" in lines
    assert lines[-1] == f"13 files, {sum(e.size for e in entries)} bytes"


def test_main_publish_dry_run(
    build_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(publish_module, "HfApi", NoNetwork)
    assert main(["publish", str(build_copy), "--repo-id", "medqade/medqade", "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"dry run: would upload {build_copy} to dataset repo medqade/medqade"
    files = _files(build_copy)
    body = out[1:-1]
    assert len(body) == len(files)
    for line in body:
        size, digest, path = line.split()
        assert files[path] == (int(size), digest)
    assert out[-1].startswith(f"{len(files)} files, ")


def test_plan_refuses_python_files(build_copy: Path) -> None:
    (build_copy / "medqade.py").write_text("print('loading script')\n", encoding="utf-8")
    (build_copy / "data" / "helper.PY").write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"holds Python files \(data/helper.PY, medqade.py\)"):
        plan(build_copy)


def test_plan_refuses_a_folder_that_is_not_a_build(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# hi\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"not a MedQADE build folder \(missing release.json\)"):
        plan(tmp_path)


def test_plan_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such folder"):
        plan(tmp_path / "nope")


def test_main_publish_dry_run_refuses_python(
    build_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(publish_module, "HfApi", NoNetwork)
    (build_copy / "loader.py").write_text("", encoding="utf-8")
    assert main(["publish", str(build_copy), "--repo-id", "a/b", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("medqade publish: error: ")
    assert "holds Python files (loader.py)" in err


# --- the upload, with a fake HfApi ----------------------------------------------------------------


def test_publish_one_commit_with_every_file(build_copy: Path) -> None:
    api = FakeHfApi()
    result = publish(build_copy, "medqade/medqade", private=True, tag="v1.0", api=api)
    assert api.names() == ["create_repo", "create_commit", "create_tag"]
    _, args, kwargs = api.calls[0]
    assert args == ("medqade/medqade",)
    assert kwargs == {"repo_type": "dataset", "exist_ok": True, "private": True}

    _, (repo_id, operations), kwargs = api.calls[1]
    assert repo_id == "medqade/medqade"
    assert kwargs["repo_type"] == "dataset"
    assert kwargs["commit_message"].startswith("MedQADE 0.1.0: build of raw release ")
    assert all(isinstance(op, CommitOperationAdd) for op in operations)
    files = _files(build_copy)
    assert sorted(op.path_in_repo for op in operations) == sorted(files)
    assert not any(op.path_in_repo.endswith(".py") for op in operations)
    for op in operations:
        assert op.upload_info.sha256.hex() == files[op.path_in_repo][1]
        assert op.upload_info.size == files[op.path_in_repo][0]

    _, args, kwargs = api.calls[2]
    assert args == ("medqade/medqade",)
    assert kwargs == {
        "tag": "v1.0",
        "revision": "0123456789abcdef0123456789abcdef01234567",
        "repo_type": "dataset",
    }
    assert result.tag == "v1.0"
    assert result.commit_oid == "0123456789abcdef0123456789abcdef01234567"
    assert len(result.files) == len(files)


def test_publish_without_tag(build_copy: Path) -> None:
    api = FakeHfApi()
    result = publish(build_copy, "org/name", api=api)
    assert api.names() == ["create_repo", "create_commit"]
    assert api.calls[0][2]["private"] is False
    assert result.tag is None


def test_publish_refuses_python_before_any_call(build_copy: Path) -> None:
    (build_copy / "data" / "medqade.py").write_text("", encoding="utf-8")
    api = FakeHfApi()
    with pytest.raises(ValueError, match="holds Python files"):
        publish(build_copy, "org/name", api=api)
    assert api.calls == []


@pytest.mark.parametrize("repo_id", ["medqade", "org/", "/name", "a/b/c", "org name/x"])
def test_publish_bad_repo_id(build_copy: Path, repo_id: str) -> None:
    api = FakeHfApi()
    with pytest.raises(ValueError, match="expected ORG/NAME"):
        publish(build_copy, repo_id, api=api)
    assert api.calls == []


def test_main_publish_uses_hfapi_with_token_env(
    build_copy: Path,
    fake_hfapi: type[FakeHfApi],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEDQADE_TEST_TOKEN", "hf_secret")
    argv = ["publish", str(build_copy), "--repo-id", "org/medqade", "--tag", "v0.1"]
    assert main([*argv, "--private", "--token-env", "MEDQADE_TEST_TOKEN"]) == 0
    (api,) = fake_hfapi.instances
    assert api.token == "hf_secret"
    assert api.names() == ["create_repo", "create_commit", "create_tag"]
    assert api.calls[0][2]["private"] is True
    out = capsys.readouterr().out
    assert out.strip() == (
        "published 13 files to https://huggingface.co/datasets/org/medqade/commit/0123456, "
        "tagged v0.1"
    )
    assert "hf_secret" not in out


def test_main_publish_token_env_not_set(
    build_copy: Path,
    fake_hfapi: type[FakeHfApi],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("MEDQADE_NO_SUCH_TOKEN", raising=False)
    argv = ["publish", str(build_copy), "--repo-id", "a/b", "--token-env", "MEDQADE_NO_SUCH_TOKEN"]
    assert main(argv) == 2
    assert "MEDQADE_NO_SUCH_TOKEN: that environment variable is not set" in capsys.readouterr().err
    assert fake_hfapi.instances == []


def test_plan_refuses_a_private_part_alone_or_inside(tmp_path: Path) -> None:
    """The withheld labels never go to the public dataset repo (issue 35)."""
    from medqade.dataset.build import build
    from medqade.dataset.holdout import HoldOut

    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    public, private = tmp_path / "pub", tmp_path / "priv"
    build(sample, public, hold_out=HoldOut(2), private_out=private)
    assert any(e.path == "release.json" for e in plan(public))
    with pytest.raises(ValueError, match="private part of a build with held-out labels"):
        plan(private)
    shutil.copytree(private, public / "extra")
    with pytest.raises(ValueError, match=r"extra/medqade-private\.json"):
        plan(public)
