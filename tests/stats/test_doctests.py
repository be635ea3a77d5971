"""Run the docstring examples (published values) of every statistics module."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["intervals", "bootstrap", "agreement", "panels", "krippendorff", "fleiss", "icc"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"medqade.stats.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
