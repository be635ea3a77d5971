"""The typed sections of issue 37 (:mod:`medqade.scoring.record.use_sections`): each written as
its measure's block, read back unchanged, and absent from records scored before them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from medqade.measures.answer_length import length_bias
from medqade.measures.fidelity import ranking_fidelity
from medqade.measures.judge_outputs import output_shares
from medqade.measures.seeds import question_weights
from medqade.scoring.record.outputs import jsonable
from medqade.scoring.record.score_record import ScoreRecord
from medqade.scoring.record.use_sections import LengthBias, OutputShares, RankingFidelity

STORED = Path(__file__).resolve().parents[2] / "fixtures" / "records"


def _codes(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ref = (rng.random((30, 5)) < 0.6).astype(np.int64)
    lab = np.where(rng.random((30, 5)) < 0.2, 1 - ref, ref)
    lab[rng.random((30, 5)) < 0.1] = 2
    phys = np.where(rng.random((3, 30, 5)) < 0.15, 1 - ref, ref)
    lengths = rng.integers(5, 400, (30, 5)).astype(float)
    return lab, ref, phys, lengths


def test_sections_are_the_measures_blocks_read_back_byte_identical() -> None:
    lab, ref, phys, lengths = _codes(3)
    w = question_weights(30, 40, 7)
    blocks = {
        RankingFidelity: ranking_fidelity(lab, ref, tuple("abcde"), w).to_json(),
        LengthBias: length_bias(lab, phys, ref, lengths, w).to_json(),
        OutputShares: output_shares(lab, np.zeros(lab.shape, bool), w).to_json(),
    }
    for cls, block in blocks.items():
        obj = jsonable({"split": "core", **block})
        read = cls.from_json(obj)
        assert json.dumps(read.to_json()) == json.dumps(obj), cls.__name__
        assert read["split"] == "core"  # readable by key, as the views read sections
    fidelity = RankingFidelity.from_json(jsonable(blocks[RankingFidelity]))
    assert fidelity.student("c") is not None and fidelity.student("x") is None
    assert fidelity.students is not None and fidelity.students[2].student == "c"
    bias = LengthBias.from_json(jsonable(blocks[LengthBias]))
    assert bias.judge is not None and len(bias.judge.richtig_ci or ()) == 4
    assert isinstance((bias.judge.richtig_ci or ((),))[0], tuple)


def test_records_scored_before_the_sections_read_them_as_none() -> None:
    for path in sorted(STORED.glob("*.json")):
        obj = json.loads(path.read_text(encoding="utf-8"))
        record = ScoreRecord.from_json(obj)
        assert record.ranking_fidelity is None and record.length_bias is None
        assert record.output_shares is None
        assert "ranking_fidelity" not in record.to_json()
