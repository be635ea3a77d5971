"""scoring.log_samples: a sample member's JSON as a LogSample, and the release-texts check.

Unit cases on hand-made samples; whole doctored logs are in test_inspect_log.py.
"""

from __future__ import annotations

import pytest

from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring.intake.log_samples import LogSample, ReleaseTexts, check_texts, from_json


def test_from_json_reads_the_fields_a_row_needs() -> None:
    obj = {
        "id": "Q1",
        "epoch": 2,
        "input": "Frage",
        "target": "Femur",
        "metadata": {"question_id": "Q1"},
        "scores": {"s": {"explanation": "ok", "metadata": {"answer": "Femur"}}},
        "error": {"message": "boom", "traceback": "tb"},
        "output": {"usage": {"input_tokens": 3, "output_tokens": 4}},
    }
    sample = from_json(obj, "samples/Q1_epoch_2.json", "run.eval")
    assert (sample.id, sample.epoch, sample.input, sample.target) == ("Q1", 2, "Frage", "Femur")
    assert sample.score == {"explanation": "ok", "metadata": {"answer": "Femur"}}
    assert sample.error == ("boom", "tb") and sample.usage == (3, 4)


@pytest.mark.parametrize(
    "obj", [[], {"epoch": 1}, {"id": "Q", "epoch": 0}, {"id": "Q", "epoch": "1"}]
)
def test_from_json_refuses_what_is_not_a_sample(obj: object) -> None:
    with pytest.raises(InputError) as caught:
        from_json(obj, "samples/Q_epoch_1.json", "run.eval")
    assert "'samples/Q_epoch_1.json'" in str(caught.value.problems[0])


def test_check_texts_names_the_first_mismatch(sample: Release) -> None:
    texts = ReleaseTexts.of(sample)
    qid = str(sample.item_ids[0])
    question, reference = texts.questions[qid]
    good = LogSample(qid, 1, question, reference, {"question_id": qid})
    check_texts("answers", good, texts, "run.eval")
    for bad, field in (
        (LogSample(qid, 1, question + "?", reference), "question (the input)"),
        (LogSample(qid, 1, question, "Tibia"), "reference answer (the target)"),
        (LogSample("NOPE", 1, question, reference), "not in this release"),
    ):
        with pytest.raises(InputError) as caught:
            check_texts("answers", bad, texts, "run.eval")
        assert field in str(caught.value.problems[0])
    answers = dict(texts.answers[qid])
    meta = {"question_id": qid, "question": question, "reference": reference, "answers": answers}
    shown = "\n".join([question, reference, *(a for a in answers.values() if a)])
    check_texts("judge", LogSample(qid, 1, shown, "", meta), texts, "run.eval")
    with pytest.raises(InputError, match="question in the input"):
        check_texts("judge", LogSample(qid, 1, "other", "", meta), texts, "run.eval")
