"""Cost per 1,000 answers (medqade.measures.cost), by hand."""

from __future__ import annotations

import pytest

from medqade.measures.cost import cost


def test_tokens_and_euros_per_thousand_answers() -> None:
    found = cost(
        {"input_tokens": 2_000_000, "output_tokens": 50_000, "price_in": 0.5, "price_out": 2.0},
        4000,
    )
    assert found is not None
    assert found.input_per_1000 == pytest.approx(500_000)
    assert found.output_per_1000 == pytest.approx(12_500)
    assert found.eur_per_1000 == pytest.approx(500_000 * 0.5 / 1e6 + 12_500 * 2.0 / 1e6)
    assert found.eur_total == pytest.approx(2.0 * 0.5 + 0.05 * 2.0)
    assert found.to_json()["eur_per_1000"] == found.eur_per_1000


def test_without_counts_or_prices() -> None:
    assert cost(None, 10) is None
    assert cost({"price_in": 1.0}, 10) is None
    only = cost({"input_tokens": 100, "output_tokens": 10}, 10)
    assert only is not None and only.eur_per_1000 is None and only.input_per_1000 == 10_000
