"""``medqade compare``: two rows of the board (or a local judge file) compared item by item,
as text or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_compare_two_reference_rows(
    sample_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    board = ["--data", str(sample_dir), "--results", str(results), "--resamples", "5"]
    code, out, _ = _run(capsys, "compare", "physicians", "gemma3:4b", *board, "--json")
    assert code == 0
    result = json.loads(out)
    assert result["view"] == "core" and result["settings"]["resamples"] == 5
    assert result["a"] == {
        "token": "physicians",
        "name": "Physicians (leave-one-out)",
        "source": "physicians",
    }
    assert result["b"]["name"] == "Gemma 3 4B" and result["n_items"] > 0
    code, text, _ = _run(capsys, "compare", "physicians", "gemma3:4b", *board)
    assert code == 0
    first, _, table = text.partition("\n\n")
    assert first.startswith("A = Physicians (leave-one-out) (physicians), B = Gemma 3 4B (paper)")
    assert f"core view, {result['n_items']} items, 5 paired question resamples" in first
    assert table.splitlines()[0].split() == ["A", "B", "A", "-", "B", "[95%", "paired", "CI]"]
    assert table.splitlines()[1].startswith("kappa")
    # one verdict word, with the interval it is read from; the table's intervals are said to
    # hold the physicians fixed, so the two are not read as rival answers
    vs = result["versus_physicians"]
    verdict_line = next(x for x in text.splitlines() if "verdict vs physicians" in x)
    assert f"verdict vs physicians {vs['verdict'] or 'n/a'} (kappa d" in verdict_line
    assert "over questions and physicians" in verdict_line
    assert "hold the ten physicians fixed" in text and "\nverdict:" not in text
    code, _, err = _run(capsys, "compare", "nobody", "gemma3:4b", *board)
    assert code == 2 and "nobody" in err
