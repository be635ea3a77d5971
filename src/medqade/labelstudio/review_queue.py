"""The review queue: answers where judges and physicians contradict each other, for review.

Two kinds (labels compared substantively: abstentions and missing never count):

``judge-vs-panel``
    the physicians are unanimous (at least ``min_votes`` substantive votes, all the same) and
    one of the chosen judges gives the other label;
``physician-vs-judges``
    the chosen judges are unanimous (at least ``min_votes`` substantive labels, all the same)
    and one physician gives the other label.

The queue lists one row per answer, in release order, with who dissents. It is written as
CSV, as Label Studio tasks (JSON) and as a labeling config (XML) built from a codebook
(:mod:`medqade.raw.codebook`): one ``Choices`` control per code group (``choice="single"`` for an
exclusive group), each ``Choice`` showing the code's German label with the code id as its
``alias`` (so an export carries the ids), and a ``TextArea`` ``note``. The three files are
named from ``--out``: ``NAME.csv``, ``NAME.tasks.json``, ``NAME.config.xml``; a manifest
``.NAME.medqade.json`` records their hashes, and the command replaces only files it wrote
and nobody changed since.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from xml.sax.saxutils import quoteattr

import numpy as np

from medqade import consensus, vocab
from medqade.files import atomic, file_output
from medqade.measures import substantive
from medqade.raw.codebook import Codebook
from medqade.schema import answer_id

if TYPE_CHECKING:
    from medqade.dataset.release import Release

JUDGE_VS_PANEL: Final = "judge-vs-panel"
PHYSICIAN_VS_JUDGES: Final = "physician-vs-judges"
KINDS: Final = (JUDGE_VS_PANEL, PHYSICIAN_VS_JUDGES)
MIN_VOTES: Final = 3
NOTE_CONTROL: Final = "note"
QUEUE_KIND: Final = "MedQADE review queue"
COLUMNS: Final = (
    "answer_id",
    "question_id",
    "model",
    "split",
    "kind",
    "unanimous",
    "n_unanimous",
    "dissent_label",
    "dissenters",
)


@dataclass(frozen=True)
class QueueRow:
    answer_id: str
    question_id: str
    model: str
    split: str
    kind: str
    unanimous: str
    n_unanimous: int
    dissent_label: str
    dissenters: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "answer_id": self.answer_id,
            "question_id": self.question_id,
            "model": self.model,
            "split": self.split,
            "kind": self.kind,
            "unanimous": self.unanimous,
            "n_unanimous": self.n_unanimous,
            "dissent_label": self.dissent_label,
            "dissenters": ";".join(self.dissenters),
        }


def _unanimous(x: np.ndarray, min_votes: int) -> tuple[np.ndarray, np.ndarray]:
    """(label or -1, count) per (items, slots) of labellers ``x`` (labellers, items, slots):
    :func:`medqade.consensus.unanimous`, the definition the leaderboard and Browse share."""
    r = (x == vocab.RICHTIG_CODE).sum(axis=0)
    f = (x == vocab.FALSCH_CODE).sum(axis=0)
    return consensus.unanimous(r, f, min_votes), r + f


def select_queue(
    release: Release,
    kind: str = JUDGE_VS_PANEL,
    judges: Sequence[str] = (),
    min_votes: int = MIN_VOTES,
) -> list[QueueRow]:
    """The queue of ``kind`` (module docstring); ``judges`` defaults to every evaluator."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}: use one of {', '.join(KINDS)}")
    if min_votes < 2:
        raise ValueError(f"a unanimous group needs at least 2 votes, got {min_votes}")
    roster = release.roster
    chosen = tuple(judges) or roster.evaluator_ids
    unknown = [j for j in chosen if j not in roster.evaluator_ids]
    if unknown:
        raise ValueError(
            f"unknown judge(s) {', '.join(unknown)}: use evaluator ids of the release "
            f"({', '.join(roster.evaluator_ids)})"
        )
    idx = [roster.evaluator_ids.index(j) for j in chosen]
    judge_labels = substantive(release.evaluator_labels[idx])
    physicians = substantive(release.physician_labels)
    if kind == JUDGE_VS_PANEL:
        group, n = _unanimous(physicians, min_votes)
        others, names = judge_labels, chosen
    else:
        group, n = _unanimous(judge_labels, min_votes)
        others, names = physicians, roster.physicians
    dissent = (group[None] >= 0) & (others >= 0) & (others != group[None])
    items, slots = np.nonzero(dissent.any(axis=0))
    split = release.questions["split"].to_numpy()
    rows = []
    for i, s in zip(items.tolist(), slots.tolist(), strict=True):
        qid = str(release.item_ids[i])
        model = roster.student_ids[s]
        who = tuple(names[k] for k in np.flatnonzero(dissent[:, i, s]).tolist())
        rows.append(
            QueueRow(
                answer_id=answer_id(qid, model),
                question_id=qid,
                model=model,
                split=str(split[i]),
                kind=kind,
                unanimous=vocab.CODE_LABELS[int(group[i, s])],
                n_unanimous=int(n[i, s]),
                dissent_label=vocab.CODE_LABELS[1 - int(group[i, s])],
                dissenters=who,
            )
        )
    return rows


# --- Label Studio -------------------------------------------------------------------------------


def labeling_config(codebook: Codebook) -> str:
    """The Label Studio labeling config (XML) for reviewing with ``codebook``."""
    lines = [
        "<View>",
        '  <Header value="Frage"/>',
        '  <Text name="question" value="$question"/>',
        '  <Header value="Referenzantwort"/>',
        '  <Text name="reference_answer" value="$reference_answer"/>',
        '  <Header value="Antwort"/>',
        '  <Text name="answer" value="$answer"/>',
        '  <Header value="Widerspruch"/>',
        '  <Text name="disagreement" value="$disagreement"/>',
    ]
    for g in codebook.groups:
        lines.append(f"  <Header value={quoteattr(g.title)}/>")
        attrs = (
            f'name={quoteattr(g.id)} toName="answer" '
            f'choice="{"single" if g.exclusive else "multiple"}" showInline="false"'
            + (' required="true"' if g.required else "")
        )
        lines.append(f"  <Choices {attrs}>")
        for c in g.codes:
            hint = f" hint={quoteattr(c.description)}" if c.description else ""
            lines.append(f"    <Choice value={quoteattr(c.label)} alias={quoteattr(c.id)}{hint}/>")
        lines.append("  </Choices>")
    lines.append('  <Header value="Anmerkung"/>')
    lines.append(f'  <TextArea name="{NOTE_CONTROL}" toName="answer" rows="3" maxSubmissions="1"/>')
    lines.append("</View>")
    return "\n".join(lines) + "\n"


def tasks(release: Release, rows: Sequence[QueueRow]) -> list[dict[str, Any]]:
    """Label Studio tasks (``data`` only: Label Studio assigns the ids) for ``rows``."""
    q = release.questions.set_index("question_id")
    out = []
    for row in rows:
        i, s = release.slot_index[row.answer_id]
        who = ", ".join(row.dissenters)
        out.append(
            {
                "data": {
                    **row.to_dict(),
                    "question": str(q.at[row.question_id, "question"]),
                    "reference_answer": str(q.at[row.question_id, "reference_answer"]),
                    "answer": str(release.answer_text[i, s]),
                    "disagreement": (
                        f"{row.n_unanimous} einstimmig {row.unanimous}; {row.dissent_label}: {who}"
                    ),
                }
            }
        )
    return out


# --- writing the three files ----------------------------------------------------------------


def queue_paths(out: Path) -> dict[str, Path]:
    """The files of a queue named by ``--out`` (``x.csv`` or ``x``)."""
    out = Path(out)
    stem = out.name[: -len(".csv")] if out.name.endswith(".csv") else out.name
    if not stem:
        raise ValueError(f"--out {out}: give a file name such as queue.csv")
    base = out.parent
    return {
        "csv": base / f"{stem}.csv",
        "tasks": base / f"{stem}.tasks.json",
        "config": base / f"{stem}.config.xml",
        "manifest": base / f".{stem}.medqade.json",
    }


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _recorded(manifest: Path) -> dict[str, str] | None:
    """The files (name -> sha256) a queue's marker lists; ``None`` when it is not ours (a
    FIFO or device there is never opened: reading it would block)."""
    if not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("kind") != QUEUE_KIND:
        return None
    files = data.get("files")
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else None


def check_queue_target(paths: dict[str, Path], inputs: Sequence[tuple[Path, str]] = ()) -> None:
    """Refuse (:class:`OutputRefused`) what the output policy forbids
    (:func:`medqade.files.file_output.check_file`): a file this command did not write or that
    changed since (its marker records each file's hash), a marker that is not ours, a link, an input
    (``inputs``: path and description), a build or a raw release."""
    recorded = _recorded(paths["manifest"]) or {}

    def ours(path: Path) -> bool:
        return path.is_file() and recorded.get(path.name) == _sha(path)

    for key, path in paths.items():
        output = file_output.FileOutput(
            kind="review queue marker" if key == "manifest" else "review queue file",
            inputs=tuple(inputs),
            owned=(lambda p: _recorded(p) is not None) if key == "manifest" else ours,
            fix="choose another --out or move the file away",
        )
        file_output.check_file(path, output)


def write_queue(
    out: Path,
    release: Release,
    rows: Sequence[QueueRow],
    codebook: Codebook,
    inputs: Sequence[tuple[Path, str]] = (),
) -> dict[str, Path]:
    """Write the CSV, the tasks, the labeling config and the marker named by ``out``, all
    four or none (:func:`medqade.files.atomic.write_files`); return the paths.

    ``inputs`` (path, description) are what the command read: never written. An existing
    file is replaced only when the marker beside it records it as this command's output."""
    import csv
    import io

    paths = queue_paths(out)
    check_queue_target(paths, inputs)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(r.to_dict() for r in rows)
    texts = {
        "csv": buf.getvalue(),
        "tasks": json.dumps(tasks(release, rows), ensure_ascii=False, indent=1) + "\n",
        "config": labeling_config(codebook),
    }
    hashes = {
        paths[key].name: hashlib.sha256(text.encode("utf-8")).hexdigest()
        for key, text in texts.items()
    }
    manifest = {"kind": QUEUE_KIND, "codebook": codebook.name, "files": hashes}
    texts["manifest"] = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    atomic.write_files(
        [atomic.Planned(paths[key], text.encode("utf-8")) for key, text in texts.items()]
    )
    return paths


# --- showing reviews ----------------------------------------------------------------------------


def release_codebook(release: Release) -> Codebook:
    """The codebook the release's reviews were checked against (``release.json``), else the
    default."""
    from medqade.raw.codebook import DEFAULT_CODEBOOK, parse_codebook

    data = release.meta.codebook
    return DEFAULT_CODEBOOK if not data else parse_codebook(data, "release.json codebook")


def review_notes(release: Release) -> dict[str, list[str]]:
    """Per answer id, one line per review: ``reviewer: label; label (note)``."""
    reviews = release.reviews
    if reviews is None or reviews.empty:
        return {}
    book = release_codebook(release)
    known = set(book.code_ids)
    out: dict[str, list[str]] = {}
    for aid, reviewer, codes, note in reviews[
        ["answer_id", "reviewer", "codes", "note"]
    ].itertuples(index=False):
        labels = "; ".join(book.label(str(c)) if str(c) in known else str(c) for c in codes)
        tail = f" ({note})" if isinstance(note, str) and note else ""
        out.setdefault(str(aid), []).append(f"{reviewer}: {labels}{tail}")
    return out
