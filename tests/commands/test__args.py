"""The argparse types and the ``--margin`` option shared by several commands."""

from __future__ import annotations

import argparse
import re

import pytest

from medqade.commands._args import add_margin_argument, margin, non_negative_int, positive_int
from medqade.measures.paired import DEFAULT_MARGIN


def test_positive_int() -> None:
    assert positive_int("1") == 1 and positive_int("200") == 200
    with pytest.raises(argparse.ArgumentTypeError, match="positive integer, got 0"):
        positive_int("0")
    with pytest.raises(argparse.ArgumentTypeError, match=re.escape("positive integer, got '1.5'")):
        positive_int("1.5")


def test_non_negative_int() -> None:
    assert non_negative_int("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="non-negative integer, got -1"):
        non_negative_int("-1")
    with pytest.raises(argparse.ArgumentTypeError, match="got 'seed'"):
        non_negative_int("seed")


def test_margin() -> None:
    assert margin("0.05") == 0.05 and margin("0") == 0.0 and margin("1") == 1.0
    for bad in ("1.5", "-0.1", "nan", "five"):
        with pytest.raises(argparse.ArgumentTypeError, match="between 0 and 1"):
            margin(bad)


def test_margin_option(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_margin_argument(parser)
    assert parser.parse_args([]).margin == DEFAULT_MARGIN
    assert parser.parse_args(["--margin", "0.1"]).margin == 0.1
    with pytest.raises(SystemExit):
        parser.parse_args(["--margin", "2"])
    assert "between 0 and 1" in capsys.readouterr().err
