"""The synthetic raw release on disk: :func:`synthesize` writes the simulated benchmark
(:mod:`medqade.synthetic.simulate`), its re-rated items (:mod:`medqade.synthetic.rerating`) and
the pool (:mod:`medqade.synthetic.pool`) as one raw release folder; :func:`fingerprint` is what a
cached default build of it depends on.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from medqade import vocab
from medqade.files import atomic, folder_output
from medqade.synthetic.facts import default_facts_path, load_facts
from medqade.synthetic.pool import write_pool
from medqade.synthetic.rerating import with_rerating
from medqade.synthetic.simulate import simulate

SIMULATOR_SOURCES = ("simulate.py", "pool.py", "rerating.py", "write.py")
"""The modules whose source a synthetic release depends on (hashed by :func:`fingerprint`)."""


def fingerprint(facts_path: Path | None = None) -> str:
    """SHA-256 of the simulator's source and the facts: what a cached default build depends on."""
    digest = hashlib.sha256()
    for name in SIMULATOR_SOURCES:
        digest.update(Path(__file__).with_name(name).read_bytes())
    digest.update(Path(facts_path or default_facts_path()).read_bytes())
    return digest.hexdigest()


SYNTHETIC_KIND = "MedQADE synthetic raw release"


def synthesize(
    out: Path, seed: int = 6, facts_path: Path | None = None, *, pool: bool = True
) -> Path:
    """Write a synthetic raw release to ``out`` (atomically: all tables or nothing).

    ``out`` is replaced only when it is empty or an earlier synthetic release written here
    (its :data:`medqade.files.folder_output.MARKER` lists every file); anything else is refused with
    :class:`~medqade.files.atomic.OutputRefused`, as is a path that is or contains the facts file.
    """
    facts = Path(facts_path) if facts_path is not None else default_facts_path()
    output = folder_output.Output(
        SYNTHETIC_KIND, "--out", None, ((facts, "the facts file (--facts)"),)
    )
    folder_output.recover(Path(out), output)
    folder_output.check_target(Path(out), output)
    tables = simulate(load_facts(facts_path), seed)
    roster = vocab.DEFAULT_ROSTER.to_dict() | {"synthetic": True}
    with folder_output.directory(Path(out), output) as tmp:
        written = {**tables, "ratings": with_rerating(tables, seed)}  # 40 core items re-rated
        for name in ("questions", "answers", "ratings", "difficulty"):
            atomic.write_text(
                tmp / f"{name}.csv", written[name].to_csv(index=False, lineterminator="\n")
            )
        lines = (
            json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in tables["judgments"]
        )
        atomic.write_text(tmp / "judgments.jsonl", "\n".join(lines) + "\n")
        atomic.write_text(
            tmp / "roster.json", json.dumps(roster, ensure_ascii=False, indent=2) + "\n"
        )
        if pool:  # the 26,598-item pool around the benchmark (medqade.synthetic.pool)
            write_pool(tmp, load_facts(facts_path), seed, tables)
        atomic.write_text(
            tmp / "SYNTHETIC.txt",
            f"Synthetic MedQADE raw release written by `medqade synthesize --seed {seed}`.\n"
            "Not physician data: questions were written by the project; answers, ratings and\n"
            "judgments were simulated (see medqade.synthetic.simulate).\n",
        )
    return Path(out)
