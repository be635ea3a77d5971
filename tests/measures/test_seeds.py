"""Seeds and question weights: deterministic streams of count weights."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from medqade.measures import seeds


def test_question_weights_are_deterministic() -> None:
    a = seeds.question_weights(50, 30, seed=11, stream=seeds.STREAM_CORE)
    b = seeds.question_weights(50, 30, seed=11, stream=seeds.STREAM_CORE)
    assert a.shape == (30, 50)
    np.testing.assert_array_equal(a, b)


def test_question_weights_default_seed_is_bootstrap_seed() -> None:
    np.testing.assert_array_equal(
        seeds.question_weights(40, 5), seeds.question_weights(40, 5, seeds.BOOTSTRAP_SEED)
    )


def test_streams_and_seeds_differ() -> None:
    base = seeds.question_weights(50, 30, seed=11, stream=seeds.STREAM_CORE)
    for stream in (seeds.STREAM_ALL, seeds.STREAM_LEXICAL, seeds.STREAM_TIER, seeds.STREAM_BIAS):
        assert not np.array_equal(base, seeds.question_weights(50, 30, seed=11, stream=stream))
    assert not np.array_equal(base, seeds.question_weights(50, 30, seed=12))


def test_stream_names_are_distinct() -> None:
    names = (
        seeds.STREAM_CORE,
        seeds.STREAM_ALL,
        seeds.STREAM_LEXICAL,
        seeds.STREAM_TIER,
        seeds.STREAM_BIAS,
    )
    assert len(set(names)) == len(names)


def test_generator_is_default_rng_of_seed_and_stream() -> None:
    ours = seeds.generator(5, 3).integers(0, 1_000_000, size=20)
    theirs = np.random.default_rng([5, 3]).integers(0, 1_000_000, size=20)
    np.testing.assert_array_equal(ours, theirs)


def test_weights_are_counts_of_a_resample() -> None:
    w = seeds.question_weights(37, 200, seed=3)
    assert w.dtype == np.int64
    assert (w >= 0).all()
    np.testing.assert_array_equal(w.sum(axis=1), np.full(200, 37))
    # a bootstrap resample leaves out about a third of the items
    assert 0.25 < float((w == 0).mean()) < 0.45


@pytest.mark.parametrize("bad", [-1, -20260101, True, False, 1.5, "3", None])
def test_check_seed_rejects_non_seeds(bad: object) -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        seeds.check_seed(bad)  # type: ignore[arg-type]


def test_check_seed_accepts_numpy_integers() -> None:
    assert seeds.check_seed(np.int64(4)) == 4  # type: ignore[arg-type]
    assert seeds.check_seed(0) == 0
    with pytest.raises(ValueError):
        seeds.generator(-1, 0)


def test_keyed_generator_streams() -> None:
    def draw(seed: int, key: bytes) -> np.ndarray:
        return seeds.keyed_generator(seed, seeds.STREAM_POSITION, key).integers(0, 2**32, 4)

    assert (draw(1, b"judge a") == draw(1, b"judge a")).all()
    assert not (draw(1, b"judge a") == draw(1, b"judge b")).all()
    assert not (draw(1, b"judge a") == draw(2, b"judge a")).all()
    plain = np.random.default_rng([1, seeds.STREAM_POSITION]).integers(0, 2**32, 4)
    assert not (draw(1, b"judge a") == plain).all()  # not the old shared stream
    key = seeds.stream_key(b"judge a")
    assert key == int.from_bytes(hashlib.sha256(b"judge a").digest()[:16], "big")
    expected = np.random.default_rng([1, seeds.STREAM_POSITION, key]).integers(0, 2**32, 4)
    assert (draw(1, b"judge a") == expected).all()
