"""The published schema (:mod:`medqade.schema`): configs, their splits and features."""

from __future__ import annotations

import pytest

from medqade import schema, vocab


def test_every_config_has_features_and_splits() -> None:
    for config in (*schema.CONFIGS, *schema.OPTIONAL_CONFIGS):
        assert len(schema.features(config)) > 0
    assert schema.config_splits("pool") == (schema.POOL_SPLIT,)
    assert schema.config_splits("pool_judgments") == (schema.POOL_SPLIT,)
    assert schema.config_splits("questions") == vocab.SPLITS
    assert schema.DEFAULT_CONFIG in schema.CONFIGS


def test_an_unknown_config_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown config 'votes'; use one of questions, "):
        schema.features("votes")


def test_published_columns_include_nested_fields() -> None:
    columns = schema.published_columns()
    assert {"split", "question_id", "answer_id", "consensus", "votes_richtig"} <= columns


def test_answer_id() -> None:
    assert schema.answer_id("MQ-C0001", "gemma3:4b") == "MQ-C0001/gemma3:4b"
