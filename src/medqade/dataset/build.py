"""Raw release in, Hugging Face dataset folder out.

``build(raw, out)`` validates the raw release, derives consensus, lexical match and difficulty
tiers (:mod:`medqade.dataset.derive`), and writes exactly the folder that is uploaded to the
Hub::

    OUT/README.md                          dataset card with YAML configs + features
    OUT/release.json                       roster, synthetic flag, hashes, version
    OUT/eval.yaml                          the Hub's benchmark (medqade.dataset.hub_eval)
    OUT/data/<config>/<split>-00000-of-00001.parquet

Nothing is written unless the whole build succeeds (the folder is assembled beside ``OUT`` and
swapped in at the end, see :func:`medqade.files.folder_output.directory`). ``OUT`` is replaced only
when it is empty or an earlier build (``release.json`` lists every other file in it); the build
never writes into, over or around the raw release. The same raw release gives byte-identical files.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade import __version__, vocab
from medqade.dataset.derive import counts, derive_tables
from medqade.dataset.hub_eval import EVAL_YAML, eval_yaml
from medqade.dataset.meta import RELEASE_JSON as RELEASE_JSON
from medqade.dataset.meta import ReleaseMeta
from medqade.files import atomic, folder_output
from medqade.files.folder_output import Output
from medqade.files.problems import InputError, Problem
from medqade.raw.reader import load_raw_release
from medqade.schema import config_splits, features

PARQUET_NAME = "{split}-00000-of-00001.parquet"
CARD = "README.md"
BUILD_KIND = "MedQADE build"
ARROW_KIND = "MedQADE Arrow export"


def build_files(folder: Path) -> set[str] | None:
    """The files a build folder's ``release.json`` vouches for (``None``: not a build)."""
    path = Path(folder) / RELEASE_JSON
    try:
        meta = ReleaseMeta.from_json(path.read_bytes(), str(path))
    except (OSError, InputError):
        return None
    if meta.name != "MedQADE" or meta.files is None:
        return None
    return {RELEASE_JSON, CARD, EVAL_YAML, *(str(f) for f in meta.files)}


def _outputs(raw_dir: Path, out: Path, arrow_dir: Path | None) -> tuple[Output, Output | None]:
    """The build folder and the Arrow export as guarded outputs (each protects the other)."""
    raw_input = (raw_dir, "the raw release (--raw)")
    build_out = Output(
        BUILD_KIND,
        "--out",
        build_files,
        (raw_input, *(((arrow_dir, "the --arrow folder"),) if arrow_dir is not None else ())),
    )
    if arrow_dir is None:
        return build_out, None
    return build_out, Output(ARROW_KIND, "--arrow", None, (raw_input, (out, "the build (--out)")))


def _arrow(frame: pd.DataFrame, config: str, extras: tuple[str, ...]) -> pa.Table:
    feats = features(config, extras)
    schema = feats.arrow_schema
    try:
        table = pa.Table.from_pandas(frame[list(feats)], schema=schema, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise _unconvertible(frame, config, feats.arrow_schema, exc) from None
    return table.replace_schema_metadata(schema.metadata)


def _unconvertible(
    frame: pd.DataFrame, config: str, schema: pa.Schema, exc: Exception
) -> InputError:
    """Name the column (and a value) that Arrow could not store as its declared type."""
    problems = []
    for field in schema:
        values = frame[field.name].tolist()
        try:
            pa.array(values, type=field.type)
        except (pa.ArrowException, TypeError, ValueError) as err:
            bad = next((v for v in values if not _fits(v, field.type)), None)
            problems.append(
                Problem(
                    f"{config} table",
                    None,
                    f"cannot be stored as {field.type} ({str(err).splitlines()[0][:120]})",
                    field.name,
                    None if bad is None else repr(bad)[:80],
                    "store plain text in extra columns (no lists, objects or bytes)",
                )
            )
    if not problems:
        problems.append(Problem(f"{config} table", None, f"cannot be written ({exc})"))
    return InputError(f"build of the {config} config", problems)


def _fits(value: object, type_: pa.DataType) -> bool:
    try:
        pa.array([value], type=type_)
    except (pa.ArrowException, TypeError, ValueError):
        return False
    return True


def _write_parquet(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", write_statistics=True, row_group_size=8192)


def build(
    raw_dir: Path, out: Path, arrow_dir: Path | None = None, *, space_id: str | None = None
) -> ReleaseMeta:
    """Build the dataset folder ``out`` from the raw release ``raw_dir``; return its metadata.

    ``space_id`` (``ORG/NAME``) is the leaderboard Space that ``eval.yaml`` points at.

    ``out`` (and ``arrow_dir``) are checked before anything is read: a path that is not empty
    and not an earlier build (export) of ours, or that is, contains or lies inside the raw
    release, is refused with :class:`~medqade.files.atomic.OutputRefused`.
    """
    from medqade.dataset.card import (
        render_card,  # imports ``datasets``: only commands that build pay
    )

    raw_dir, out = Path(raw_dir), Path(out)
    arrow_dir = None if arrow_dir is None else Path(arrow_dir)
    build_out, arrow_out = _outputs(raw_dir, out, arrow_dir)
    for path, output in ((out, build_out), (arrow_dir, arrow_out)):
        if path is not None and output is not None:
            folder_output.recover(path, output)
            folder_output.check_target(path, output)
    raw = load_raw_release(raw_dir)
    tables = derive_tables(raw)
    frames = tables.frames()
    pool = None
    if tables.pool is not None and tables.pool_judgments is not None:
        from medqade.dataset.build_pool import pool_counts

        pool = pool_counts(tables.pool, tables.pool_judgments)
    meta = ReleaseMeta(
        name="MedQADE",
        version=__version__,
        source_hash=raw.source_hash,
        synthetic=raw.roster.synthetic,
        canary=vocab.CANARY,
        roster=raw.roster.to_dict(),
        extra_columns=tuple(raw.extra_columns),
        counts=counts(tables),
        warnings=tuple(str(w) for w in raw.warnings[:200]),
        n_warnings=len(raw.warnings),
        configs=tuple(frames),
        codebook=None if raw.reviews is None else raw.reviews.codebook.to_dict(),
        pool=pool,
    )
    with folder_output.directory(out, build_out) as tmp:
        files: dict[str, list[str]] = {}
        for config in frames:
            extras = raw.extra_columns if config in ("questions", "answers", "pool") else ()
            for split in config_splits(config):
                rel = f"data/{config}/{PARQUET_NAME.format(split=split)}"
                part = frames[config][frames[config]["split"] == split]
                _write_parquet(_arrow(part, config, extras), tmp / rel)
                files.setdefault(config, []).append(rel)
        meta = replace(
            meta,
            files={
                rel: hashlib.sha256((tmp / rel).read_bytes()).hexdigest()
                for rels in files.values()
                for rel in rels
            },
        )
        atomic.write_text(tmp / RELEASE_JSON, meta.to_json())
        atomic.write_text(tmp / CARD, render_card(meta.to_dict(), raw.extra_columns))
        atomic.write_text(
            tmp / EVAL_YAML, eval_yaml(synthetic=meta.is_synthetic, space_id=space_id)
        )
        if arrow_dir is not None:  # from the finished build, before it is swapped in: a
            export_arrow(tmp, arrow_dir, arrow_out)  # failed export leaves --out as it was
    return meta


def export_arrow(dataset_dir: Path, arrow_dir: Path, output: Output | None = None) -> None:
    """``DatasetDict.save_to_disk`` per config, for users who want Arrow directly.

    ``arrow_dir`` is replaced only when empty or an earlier export (its marker lists every
    file); it may not be, contain or lie inside ``dataset_dir``.
    """
    from datasets import load_dataset

    if output is None:
        output = Output(ARROW_KIND, "--arrow", None, ((Path(dataset_dir), "the build"),))
    with folder_output.directory(Path(arrow_dir), output) as tmp:
        path = Path(dataset_dir) / RELEASE_JSON
        for config in ReleaseMeta.from_json(path.read_bytes(), str(path)).configs:
            load_dataset(str(dataset_dir), config).save_to_disk(str(tmp / config))
