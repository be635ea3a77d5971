"""Check the hand-written synthetic cloze facts in data/synthetic/facts.jsonl.

Usage: python scripts/check_facts.py [FILE ...]   (default: data/synthetic/facts.jsonl)
Exits non-zero and names file, line and problem for every violation found.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

KEYS = {"fact_id", "specialty", "reference", "phrasings", "equivalent", "vague", "wrong"}


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def check(paths: list[Path]) -> list[str]:
    problems: list[str] = []
    ids: set[str] = set()
    questions: set[str] = set()
    for path in paths:
        raw = path.read_bytes().decode("utf-8")
        for lineno, line in enumerate(raw.splitlines(), start=1):
            where = f"{path.name}:{lineno}"
            if not line.strip():
                continue
            try:
                fact = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{where}: not JSON ({exc})")
                continue
            if set(fact) != KEYS:
                problems.append(f"{where}: keys {sorted(fact)} != {sorted(KEYS)}")
                continue
            if fact["fact_id"] in ids:
                problems.append(f"{where}: duplicate fact_id {fact['fact_id']!r}")
            ids.add(fact["fact_id"])
            ref = fact["reference"]
            if not ref.strip() or len(ref.split()) > 6:
                problems.append(f"{where}: reference {ref!r} empty or longer than 6 words")
            phr = fact["phrasings"]
            if len(phr) != 5 or len({_norm(p) for p in phr}) != 5:
                problems.append(f"{where}: need 5 distinct phrasings, got {len(phr)}")
            for p in phr:
                if p.count("___") != 1:
                    problems.append(f"{where}: phrasing without exactly one ___: {p!r}")
                if _norm(p) in questions:
                    problems.append(f"{where}: phrasing used twice in the collection: {p!r}")
                questions.add(_norm(p))
                if _norm(ref) in _norm(p.replace("___", " ")):
                    problems.append(f"{where}: phrasing gives the answer away: {p!r}")
            if len(fact["wrong"]) < 2:
                problems.append(f"{where}: need at least 2 wrong variants")
            if len(fact["vague"]) < 1:
                problems.append(f"{where}: need at least 1 vague variant")
            seen = {_norm(ref)}
            for kind in ("equivalent", "vague", "wrong"):
                for v in fact[kind]:
                    if not isinstance(v, str) or not v.strip():
                        problems.append(f"{where}: empty {kind} variant")
                    elif _norm(v) in seen:
                        problems.append(f"{where}: {kind} variant {v!r} repeats the reference or another variant")
                    else:
                        seen.add(_norm(v))
    return problems


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or [Path("data/synthetic/facts.jsonl")]
    problems = check(paths)
    for p in problems[:200]:
        print(p)
    n = sum(1 for path in paths for line in path.read_text("utf-8").splitlines() if line.strip())
    print(f"{len(paths)} files, {n} facts, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
