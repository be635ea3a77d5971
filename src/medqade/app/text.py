"""The Space's fixed prose: banner, introduction and the About tab (English; data stays German)."""

from __future__ import annotations

from typing import Final

from medqade import vocab
from medqade.measures import (
    ABOVE,
    BELOW,
    EPSILON,
    INCONCLUSIVE,
    INFERIOR,
    MEANING,
    NON_INFERIOR,
    NON_INFERIOR_BELOW,
    PASS_RATE,
)

TITLE: Final = "MedQADE leaderboard"

SYNTHETIC_BANNER: Final = (
    '<div class="mq-banner" role="alert"><strong>SYNTHETIC DATA.</strong> This Space runs on the '
    "simulated MedQADE release (<code>medqade synthesize</code>): questions were written by the "
    "project, answers and physician ratings were simulated. Its numbers exercise the pipeline; "
    "they are not physician results and must not be cited as findings.</div>"
)

INTRO: Final = (
    f"# {TITLE}\n"
    "LLM judges and model answers scored against **physician consensus** on MedQADE, a German "
    "open-response clinical benchmark (3,800 cloze question sets, five student answers each, "
    "ten physicians). Agreement with physicians is not evidence of clinical safety."
)

LEADERBOARD_LEAD: Final = (
    "**Judges**: agreement with the physician consensus (kappa with its 95% CI) and a "
    "*verdict* against the physicians' own agreement; **models**: accuracy by physician "
    "consensus. *Per-physician agreement* (below the judges) opens each physician's terms of "
    "the ceiling."
)
"""The one line above the tables; :data:`LEADERBOARD_HELP` is folded below it."""

REFERENCES_PENDING: Final = (
    "Reference rows (paper evaluators, physicians, baselines, students) are being computed for "
    "this dataset; reload in a few seconds."
)
"""The leaderboard's note while the reference rows are computed."""

LEADERBOARD_HELP: Final = (
    "**Judges**: agreement with the physician consensus (Cohen's kappa, percent agreement PA, "
    "PABAK; macro mean over the five answer slots, 95% bootstrap CIs). The physician "
    "leave-one-out row is the ceiling: each physician against the consensus of the other nine, "
    "on the answers that physician rated (a physician's abstention is left out, a judge's "
    "counts as a disagreement). "
    "**Models**: accuracy of the answers by physician consensus, with 95% Wilson intervals; "
    "for new answers that match no physician-labelled answer, the anchored bounds (unmatched all "
    "wrong / all right) and, if a judge labelled them, the judged estimate. *Rank* = 1 + the "
    "number of rows significantly better (simultaneous paired intervals over all ranked pairs, "
    "same questions, same resamples), followed by its range down to the worst rank; "
    "only verified rows are ranked, the string-matching baselines are not. *Verdict*: the "
    "judge minus the physicians' own agreement against a non-inferiority margin (see *Rank "
    "and verdict*). "
    "*core* = the 200 items every physician rated; *full* = all items (unresolved answers "
    "excluded). The button *Per-physician agreement* below the judges table (or a click on "
    "the physician ceiling row) opens the table of each physician against the consensus of "
    "the other nine, the terms the ceiling averages. In the *compare* column, *vs physicians* "
    "opens that judge against the physicians on the Compare tab. A click on a column's header "
    "sorts the table by it (again: the other way); *Columns* chooses which are shown."
)

SUBMIT_HELP: Final = (
    "Upload **judge labels** (your LLM judge's verdict on the five answers of each item) or "
    "**model answers** (your model's answer to each question). CSV (UTF-8, header row), JSON "
    "Lines or Parquet, or the **Inspect log** (`.eval`) of `inspect eval medqade/judge` or "
    "`inspect eval medqade/answer` as it is (model id, settings and token counts are read from "
    "it); templates and formats are on the About tab. The file is checked first; every problem "
    "is listed with its line. Tick *validate only* for a dry run: the file is scored and the "
    "kappa or accuracy shown, but nothing is stored. Accepted "
    "submissions are stored and appear on the leaderboard as *self-reported* until a maintainer "
    "verifies them. Identical content is scored once. With a result comes a Hub "
    "`.eval_results` file (headline value, its CI in the notes) for your model repo, when the "
    "Space shows a Hub dataset. **Cost**: give your judge's prices per million input and "
    "output tokens (EUR); with the run's token counts (read from an Inspect log, or the "
    '`{"meta": {"usage": ...}}` line of a JSON Lines file) they give its cost per 1,000 '
    "answers, and the Analysis tab places it on the cost-agreement frontier. A price without "
    "token counts is kept but gives no cost; the warnings say so."
)

BROWSE_HELP: Final = (
    "Every question set with its reference answer, the five student answers, each answer's "
    "physician votes (e.g. *7 R / 2 F / 1 k.A.*: Richtig, Falsch, Keine Angabe) and consensus, "
    "and every judge's label; a label marked ≠ contradicts the consensus. An answer is "
    "*unanimous* when every physician who rated it gave the same label, *split* when some said "
    "Richtig and some Falsch. **Filters**: *physicians split* = some answer of the item is "
    "split; *unresolved* = some answer has no consensus; *all judges wrong* = some answer where "
    "every paper evaluator that gave Richtig or Falsch contradicts the consensus; *physicians "
    "abstained* = some physician said Keine Angabe. The answer that triggered an active filter "
    "is highlighted. *blind* hides which model wrote which answer (a fixed shuffle per item). "
    "On core items all ten physicians (P01-P10) rate every answer; on extension items two "
    "physicians rate and P10 adjudicates. The page's address links to the open item."
)

ANALYSIS_HELP: Final = (
    "The paper's analyses recomputed on the loaded release (`medqade reproduce`): accuracy by "
    "difficulty tier, evaluator bias, abstention, physician agreement and risk-coverage. "
    "Accuracy and abstention are in percent, bias in percentage points, agreement as "
    "coefficients (0-1); every estimate carries its 95% interval."
)


def about(synthetic: bool, max_upload_mb: float, rate_limit: int, window_days: float) -> str:
    """The About tab (Markdown written by the project; no user text). Long because it is
    the page's text, one string with four settings filled in; it holds no logic to split."""
    labels = " / ".join(f"`{x}`" for x in vocab.LABELS)
    limit = (
        f"{rate_limit} submissions per account per {window_days:g} days"
        if rate_limit
        else "no rate limit"
    )
    data_note = (
        "\n> **This Space shows the synthetic release.** The physician archive is embargoed "
        "until publication; every number here comes from simulated ratings.\n"
        if synthetic
        else ""
    )
    return f"""
## What MedQADE is
{data_note}
MedQADE is a German open-response clinical benchmark with physician reference annotations:
3,800 cloze questions (a 200-item core rated by all ten physicians, a 3,600-item extension
rated by two physicians plus an adjudicator), each with a reference answer and short answers
from five student LLMs. Physicians labelled every answer {labels} (abstain) and rated each
question's difficulty, which defines four difficulty tiers (T1 easiest to T4 hardest). Nine
LLM evaluators judged the same answers. This leaderboard compares new judges and new models with
the physicians.

## How to submit

Sign in (on the Hub), open *Submit*, choose the kind and upload one file
(at most {max_upload_mb:g} MiB; {limit}).

**Judge labels**, one row per answer: `question_id,model,label` where `model` is the student
whose answer is judged (id or name) and `label` is one of {labels} (or `correct` / `incorrect` /
`abstain`); an empty label is *missing*. An optional `difficulty` column is checked, not scored.
The output of `medqade judge` (one JSON object per question with `order` and `resp_1` ...
`resp_5`) is accepted as is. Cover the core (1,000 answers) at least; a part is scored on what it
covers and flagged.

**Model answers**, one row per question: `question_id,answer` (the output of `medqade answer`).
Answers that equal (after normalisation) an answer the physicians labelled take its consensus;
the others are *unmatched*: the leaderboard shows bounds, and, if you also upload a judge's
labels for them (`question_id,label[,answer]`), a judged estimate.

**Inspect logs**: the `.eval` file that `inspect eval medqade/judge` or
`inspect eval medqade/answer` writes (in `./logs/`) is accepted as it is, for either kind: the
labels or answers, the model id, the generation settings and the token counts are read from the
log (epochs after the first of a judge log are its repeated runs); the form fields win over it.

JSON Lines files may start with `{{"meta": {{...}}}}` (name, model_id, family, ...); the form
fields win over it.

**Cost of a judge**: the form's two price fields (EUR per million input and output tokens, the
same as `medqade score --price-in --price-out`) and the run's token counts give the judge's
cost per 1,000 answers. The token counts come from an Inspect log, or from a JSON Lines file's
first line, `{{"meta": {{"usage": {{"input_tokens": 1200000, "output_tokens": 40000}}}}}}` (the
totals over the file's runs). A price must be a non-negative number; a price without token
counts is kept in the record but gives no cost, and the result's warnings say so. The Analysis
tab draws the judges' kappa against their cost once two judges have one.

## Accuracy on the whole pool

The 3,800 benchmark items were drawn from a pool of 26,598 questions, with extra weight on
questions where some model repeated the reference answer word for word; so the benchmark's
accuracies describe the sample, not the pool. Physicians rated only the sample, but an LLM judge
can rate every pool answer. Where the release publishes judges' pool labels, the Leaderboard tab
shows each model's accuracy on the whole pool for a judge you choose: the judge's pool figure,
corrected by how far the same judge was off the physicians on the benchmark
(*prediction-powered inference*). The correction keeps the estimate honest about the
physicians' verdict even for a lenient or strict judge, and a good judge makes the interval
narrower than the physicians' labels alone would; the *ESS gain* says by how much (2 means the
judge is worth twice as many physician-rated questions). The judge's own figure is shown
beside it only for contrast. Answers without a verdict (physicians tied, judge abstained)
count as missing, as in the benchmark's accuracy.

## Citation

```bibtex
@misc{{medqade,
  title  = {{MedQADE: A German Open-Response Clinical Benchmark with Physician Reference
            Annotations}},
  author = {{{{MedQADE authors}}}},
  year   = {{2026}},
  doi    = {{10.5281/zenodo.21722212}},
  note   = {{Data archive; CC BY-NC 4.0}}
}}
```

## License

The data: Creative Commons Attribution-NonCommercial 4.0 International (CC BY-NC 4.0);
evaluation only, do not train on it. Submitted results are published under the same license.

## Limitations

- One German source (exam-style flashcards with a single cloze); results may not transfer to
  other question styles, languages or clinical settings.
- The sample is enriched for hard items (20:80 by lexical match), so accuracies describe this
  sample, not the whole question pool.
- Physicians agree only weakly on difficulty; tiers are coarse.
- Judge results depend on model versions, providers, prompts and access dates; submissions are
  self-reported until verified.
- **Agreement with physicians is not evidence of clinical safety.** Do not use a ranking here to
  justify clinical use of a model.
"""


RANK_HELP: Final = f"""\
**Rank** = 1 + the number of ranked rows that are *significantly better*; the **rank range**
runs from it to K minus the number of rows significantly worse (K ranked rows). Differences
are computed on the same 1,000 question resamples (paired) with *simultaneous* 95% intervals
over all pairs of ranked rows, each pair measured in its own bootstrap standard error
(studentized max-T), so equally good rows keep sharing rank 1 however many rows the board has,
and a row with a wide spread widens only its own pairs. The note above the tables gives the
smallest difference the board can resolve (the critical value times the smallest, and the
median, pair standard error). Only verified rows are ranked; the string-matching baselines are
shown for reference, without a rank.
**Verdict** puts the judge in each physician's place in turn, against the same majority of the
other nine (core): d = mean of [judge - that physician], with its paired 95% interval and the
margin m (declared on kappa; PA and PABAK margins derived from it). Each physician's term
uses the answers that physician rated; there a judge's abstention counts as a disagreement.
Lower bound > 0: *{ABOVE}*; lower bound > -m: *{NON_INFERIOR}*
(*{NON_INFERIOR_BELOW}* when the upper bound is also below 0); upper bound < -m:
*{INFERIOR}*; upper bound < 0 otherwise:
*{BELOW}*; else (the interval holds 0 and -m) *{INCONCLUSIVE}*. The verdict is
a core quantity and is shown in the full view too, beside the extension's verdict (the judge
in each primary physician's place) and the alternative annotator test.
**Alt-test** (Calderon et al. 2025), each core answer an instance: for each physician in turn,
does the judge match the other physicians about as often as that physician does, allowing the
judge epsilon = {EPSILON:g} (the paper's value for expert annotators, who are costly and
scarce)? **winning rate** (omega) = share of physicians for which it does, pass at
{PASS_RATE:g}; **advantage rho** = how often, on average, the judge matches at least as
well. {MEANING}
"""
