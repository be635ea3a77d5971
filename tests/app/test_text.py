"""Tests of medqade.app.text: the Space's words, where a submitter reads them."""

from __future__ import annotations


def test_submit_intro_and_about_name_the_inspect_log() -> None:
    """Issue 39, item 5: Inspect logs were accepted but mentioned nowhere a submitter reads."""
    from medqade.app import text

    about = text.about(False, 20, 0, 1.0)
    how = about[about.index("## How to submit") : about.index("## Accuracy on the whole pool")]
    for words in (text.SUBMIT_HELP, how):
        assert "Inspect log" in words and "inspect eval medqade/judge" in words
        assert "`.eval`" in words


def test_about_states_the_limits_it_is_given() -> None:
    from medqade.app import text

    about = text.about(False, 20, 3, 7.0)
    assert "(at most 20 MiB; 3 submissions per account per 7 days)" in about
    assert "no rate limit" in text.about(False, 20, 0, 7.0)
    assert "This Space shows the synthetic release" not in about
    assert "This Space shows the synthetic release" in text.about(True, 20, 3, 7.0)


def test_submit_intro_and_about_explain_the_price_fields() -> None:
    """Issue 37: the form's price fields, where a submitter reads how cost is computed."""
    from medqade.app import text

    about = text.about(False, 20, 0, 1.0)
    how = about[about.index("## How to submit") : about.index("## Accuracy on the whole pool")]
    for words in (" ".join(text.SUBMIT_HELP.split()), " ".join(how.split())):
        assert "per million input and output tokens" in words
        assert "without token counts is kept" in words and "warnings say so" in words
    assert "--price-in --price-out" in how
