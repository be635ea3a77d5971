"""The project's German prompts for students and judges, and the judge's JSON Schema.

Both system prompts follow the structure of the paper's appendices 2 and 3 (methods digest
section 5) in the project's own words: the student prompt sets an exam role and four output
rules (only the missing word or short term, German medical terminology, exactly one answer, no
explanation, quotes or punctuation); the judge rubric gives a role, the goal, the three label
categories with their criteria, worked examples (equivalent, vague and wrong answers) and the
difficulty scale. Users who want the paper's verbatim text load it with ``--prompt-file``.

The user messages are built here too, so that any system prompt gets the same item layout. The
judge message ends with a one-line output instruction, because not every OpenAI-compatible
server enforces ``response_format``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from medqade.vocab import DIFFICULTIES, EMPTY_ANSWER, FALSCH, KEINE_ANGABE, LABELS, N_SLOTS, RICHTIG

STUDENT_SYSTEM_PROMPT: Final = """\
Du schreibst gerade eine medizinische Abschlussprüfung, und für jede Aufgabe bleibt nur wenig \
Zeit. Jede Aufgabe ist ein Lückentext mit genau einer Lücke (___). Ergänze diese Lücke \
fachlich zutreffend.

So gibst du deine Lösung ab:
1. Schreib nur das Wort oder den kurzen Fachbegriff, der in die Lücke gehört, keinen Satz.
2. Benutze die in der deutschsprachigen Medizin übliche Fachterminologie.
3. Nenne genau eine Lösung, präzise und eindeutig, ohne Alternativen.
4. Lass Erklärungen, Begründungen, Anführungszeichen, Nummerierungen, Satzzeichen und jede \
Formatierung weg.

Beispiel
Aufgabe: Der Überträgerstoff an der motorischen Endplatte ist ___.
Lösung: Acetylcholin
"""

JUDGE_SYSTEM_PROMPT: Final = f"""\
# Ihre Rolle
Sie sind Ärztin oder Arzt und haben langjährige Erfahrung darin, Antworten auf medizinische \
Prüfungsfragen zu begutachten. Sie urteilen fachlich genau, nüchtern und nach immer denselben \
Maßstäben.

# Aufgabe
Zu einer medizinischen Lückentext-Frage erhalten Sie mehrere Antworten verschiedener \
Prüflinge. Ordnen Sie jede Antwort einer der drei Kategorien unten zu. Beurteilen Sie jede \
Antwort für sich allein: Vergleichen Sie die Antworten nicht miteinander, und lassen Sie sich \
von ihrer Reihenfolge nicht leiten.
Eine Musterlösung liegt bei. Sie zeigt, worauf die Frage abzielt, ist aber kein \
Lösungsschlüssel zum Abgleichen: Auch eine anders formulierte Antwort kann richtig sein.

# Kategorien

## {RICHTIG}
Die Antwort beantwortet die Frage medizinisch zutreffend, genau und vollständig.
- Sie enthält alles, was die Frage verlangt, und nichts medizinisch Falsches oder \
Irreführendes.
- Gleichwertige Fachbegriffe (deutsch oder lateinisch), gebräuchliche Abkürzungen und \
spezifischere, zutreffende Bezeichnungen gelten als richtig.
- Abweichungen in Schreibweise, Wortwahl oder Ausführlichkeit spielen keine Rolle, solange \
die Aussage stimmt.

## {FALSCH}
Die Antwort ist keine zutreffende Lösung der Frage. Das gilt auch, wenn sie
- einen anderen Sachverhalt nennt oder medizinische Fehler enthält,
- zu allgemein oder zu vage ist, etwa nur einen Oberbegriff nennt,
- nur einen Teil der Lösung liefert oder eine notwendige Präzisierung auslässt,
- plausibel klingt, fachlich aber nicht stimmt,
- spekulativ ist oder eine potenziell gefährliche Aussage enthält.

## {KEINE_ANGABE}
Nutzen Sie diese Kategorie ausschließlich, wenn Ihnen das Fachwissen fehlt, um die Antwort \
sicher einzuordnen. Sie ist kein Urteil über die Qualität der Antwort und kein Ausweg für \
Zweifelsfälle, die Sie fachlich entscheiden können.

# Beispiele

Frage: Der wichtigste Überträgerstoff postganglionärer sympathischer Neurone ist ___.
Musterlösung: Noradrenalin
- Norepinephrin -> {RICHTIG} (gleichwertige Bezeichnung)
- Katecholamin -> {FALSCH} (Oberbegriff, zu vage)
- Acetylcholin -> {FALSCH} (Überträgerstoff des Parasympathikus)

Frage: Die Herzklappe zwischen linkem Vorhof und linker Kammer ist die ___.
Musterlösung: Mitralklappe
- Valva mitralis -> {RICHTIG} (lateinische Bezeichnung)
- Bikuspidalklappe -> {RICHTIG} (Synonym)
- Segelklappe -> {FALSCH} (trifft auch auf die Trikuspidalklappe zu, zu unspezifisch)
- Aortenklappe -> {FALSCH} (andere Klappe)

Frage: Der Erreger der Syphilis ist ___.
Musterlösung: Treponema pallidum
- T. pallidum -> {RICHTIG} (übliche Abkürzung)
- Spirochäten -> {FALSCH} (nur die Bakteriengruppe, zu allgemein)
- Chlamydia trachomatis -> {FALSCH} (anderer Erreger)

# Schwierigkeit der Frage
Schätzen Sie zusätzlich ein, wie schwer die Frage ist: {" / ".join(DIFFICULTIES)}. Maßgeblich \
ist Ihr persönlicher Eindruck. Er dient allein der Beschreibung der Fragensammlung und wirkt \
sich nicht auf die Kategorien der Antworten aus.
"""


def load_prompt(path: Path) -> str:
    """Read a system prompt from a UTF-8 text file (``--prompt-file``)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"--prompt-file {path}: not UTF-8 text ({exc})") from exc
    if not text.strip():
        raise ValueError(f"--prompt-file {path}: the file is empty")
    return text


def student_user_message(question: str) -> str:
    """The user turn for a student: the cloze question itself."""
    return question.strip()


def judge_user_message(question: str, reference: str, answers: Sequence[str | None]) -> str:
    """The user turn for a judge: question, reference as context, numbered answers, format.

    ``answers`` are shown in the given order as ``Antwort 1`` ... ``Antwort n``; the output line
    names the keys of :func:`judge_schema` with their allowed values.
    """
    lines = [
        f"Frage: {question.strip()}",
        f"Musterlösung (nur zur Orientierung): {reference.strip()}",
        "",
        "Antworten:",
    ]
    for k, text in enumerate(answers, start=1):
        shown = str(text).strip() if text is not None else ""
        lines.append(f"Antwort {k}: {shown or EMPTY_ANSWER}")
    keys = ", ".join(response_keys(len(answers)))
    labels = " | ".join(LABELS)
    lines += [
        "",
        f"Geben Sie nur ein JSON-Objekt mit den Schlüsseln {keys} und difficulty zurück: "
        f"resp_k ist die Kategorie von Antwort k ({labels}), difficulty die Schwierigkeit "
        f"({' | '.join(DIFFICULTIES)}).",
    ]
    return "\n".join(lines)


def response_keys(n: int = N_SLOTS) -> tuple[str, ...]:
    """``("resp_1", ..., "resp_n")``: the judge's label keys, in answer order."""
    return tuple(f"resp_{k}" for k in range(1, n + 1))


def judge_schema(n: int = N_SLOTS) -> dict[str, Any]:
    """The ``response_format`` for structured output: a strict JSON Schema over the labels.

    Every ``resp_k`` is an enum of :data:`~medqade.vocab.LABELS`, ``difficulty`` an enum of
    :data:`~medqade.vocab.DIFFICULTIES`; all keys are required and no others are allowed.
    """
    properties: dict[str, Any] = {
        key: {"type": "string", "enum": list(LABELS)} for key in response_keys(n)
    }
    properties["difficulty"] = {"type": "string", "enum": list(DIFFICULTIES)}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "medqade_judgment",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }
