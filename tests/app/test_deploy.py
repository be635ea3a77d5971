"""``medqade space deploy`` and the Space folder, with a fake HfApi (no network)."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio
import pytest

from medqade.app import deploy as deploy_module
from medqade.app.deploy import CONFIG_NAME, assemble, deploy, sdk_version
from medqade.app.serve import space_config
from medqade.cli import main

SPACE = Path(__file__).resolve().parents[2] / "space"


class FakeHfApi:
    def __init__(self, token: str | None = None, **kwargs: Any) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def create_repo(self, repo_id: str, **kwargs: Any) -> str:
        self.calls.append(("create_repo", (repo_id,), kwargs))
        return f"https://huggingface.co/spaces/{repo_id}"

    def create_commit(self, repo_id: str, operations: Any, **kwargs: Any) -> SimpleNamespace:
        self.calls.append(("create_commit", (repo_id, list(operations)), kwargs))
        return SimpleNamespace(commit_url=f"https://huggingface.co/spaces/{repo_id}/commit/1")


def header(readme: str) -> dict[str, str]:
    block = readme.split("---\n")[1]
    return dict(re.findall(r"^(\w+):\s*(.+?)\s*$", block, re.MULTILINE))


def test_space_readme_header() -> None:
    meta = header((SPACE / "README.md").read_text(encoding="utf-8"))
    assert meta["sdk"] == "gradio"
    assert meta["sdk_version"] == gradio.__version__
    assert meta["hf_oauth"] == "true"
    assert meta["app_file"] == "app.py"
    assert meta["license"] == "cc-by-nc-4.0"
    assert 0 < len(meta["short_description"]) <= 60


def test_space_requirements_pin_the_sdk_version() -> None:
    text = (SPACE / "requirements.txt").read_text(encoding="utf-8")
    assert f"gradio[oauth]=={gradio.__version__}" in text


def test_space_requirements_list_every_dependency_of_the_package_and_its_space_extra() -> None:
    project = tomllib.loads((SPACE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    meta = project["project"]
    wanted = meta["dependencies"] + meta["optional-dependencies"]["space"]
    lines = (SPACE / "requirements.txt").read_text(encoding="utf-8").splitlines()
    listed = {re.split(r"[\[<>=]", line, maxsplit=1)[0].strip().lower() for line in lines}
    names = {re.split(r"[\[<>=]", spec, maxsplit=1)[0].strip().lower() for spec in wanted}
    assert names and names <= listed, names - listed


def test_assemble_bundles_app_package_and_config() -> None:
    bundle = assemble("org/medqade", "org/results", SPACE)
    files = bundle.files
    assert {"app.py", "requirements.txt", "README.md", CONFIG_NAME} <= set(files)
    assert "medqade/__init__.py" in files and "medqade/app/ui.py" in files
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc")]
    config = json.loads(files[CONFIG_NAME])
    assert config == {"dataset": "org/medqade", "results_repo": "org/results"}
    assert sdk_version(files["README.md"].decode()) == gradio.__version__


def test_assemble_bad_dataset_id() -> None:
    with pytest.raises(ValueError, match="expected ORG/NAME"):
        assemble("not a repo", None, SPACE)


def test_assemble_missing_space_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"missing app\.py"):
        assemble("org/medqade", None, tmp_path)


def test_deploy_creates_space_and_one_commit() -> None:
    api = FakeHfApi()
    bundle = assemble("org/medqade", None, SPACE)
    result = deploy(bundle, "org/leaderboard", api=api)
    assert [c[0] for c in api.calls] == ["create_repo", "create_commit"]
    _, args, kwargs = api.calls[0]
    assert args == ("org/leaderboard",)
    assert kwargs["repo_type"] == "space" and kwargs["space_sdk"] == "gradio"
    _, (_, ops), kwargs = api.calls[1]
    assert kwargs["repo_type"] == "space"
    assert sorted(op.path_in_repo for op in ops) == sorted(bundle.files)
    assert result.commit_url and len(result.files) == len(bundle.files)


def test_cli_deploy_dry_run_lists_files_without_network(capsys, monkeypatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the dry run must not create an HfApi client")

    monkeypatch.setattr(deploy_module, "HfApi", no_network)
    code = main(
        ["space", "deploy", "--space-id", "org/lb", "--dataset", "org/medqade", "--dry-run"]
    )
    out = capsys.readouterr().out
    assert code == 0
    app_py = (SPACE / "app.py").read_bytes()
    line = f"{len(app_py):>12}  {hashlib.sha256(app_py).hexdigest()}  app.py"
    assert line in out.splitlines()
    assert "medqade_space.json" in out and out.strip().endswith("bytes")


def test_cli_deploy_uploads_with_fake_api(capsys, monkeypatch) -> None:
    monkeypatch.setattr(deploy_module, "HfApi", FakeHfApi)
    code = main(["space", "deploy", "--space-id", "org/lb", "--dataset", "org/medqade"])
    assert code == 0
    assert "deployed" in capsys.readouterr().out


def test_cli_deploy_bad_space_id(capsys) -> None:
    code = main(["space", "deploy", "--space-id", "bad", "--dataset", "org/medqade"])
    assert code == 2
    assert "expected ORG/NAME" in capsys.readouterr().err


def test_space_config_reads_bundle_file_env_wins(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text(
        json.dumps({"dataset": "org/medqade", "results_repo": "org/results"}), encoding="utf-8"
    )
    config = space_config(tmp_path, {"SPACE_ID": "org/lb"})
    assert config.data == "org/medqade" and config.results_repo == "org/results"
    assert config.require_login and config.results_dir == Path("results")
    env = {"MEDQADE_DATASET": "org/other", "MEDQADE_RATE_LIMIT": "9"}
    config = space_config(tmp_path, env)
    assert config.data == "org/other" and config.rate_limit == 9 and not config.require_login


def test_space_config_bad_number() -> None:
    with pytest.raises(ValueError, match="MEDQADE_RATE_LIMIT='many' is not a number"):
        space_config(Path("/nonexistent"), {"MEDQADE_RATE_LIMIT": "many"})


def test_space_app_imports_without_launching() -> None:
    import runpy

    names = runpy.run_path(str(SPACE / "app.py"), run_name="space_app")
    assert callable(names["serve"]) and callable(names["space_config"])
