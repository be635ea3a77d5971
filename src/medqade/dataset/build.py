"""Raw release in, Hugging Face dataset folder out.

``build(raw, out)`` validates the raw release, derives consensus, lexical match and difficulty
tiers (:mod:`medqade.dataset.derive`), and writes exactly the folder that is uploaded to the
Hub::

    OUT/README.md                          dataset card with YAML configs + features
    OUT/release.json                       roster, synthetic flag, hashes, version
    OUT/eval.yaml                          the Hub's benchmark (medqade.dataset.hub_eval)
    OUT/data/<config>/<split>-00000-of-00001.parquet

With ``hold_out`` the labels of a seeded, stratified set of items are withheld from ``OUT`` and
written to a private part instead (:mod:`medqade.dataset.holdout`,
:mod:`medqade.dataset.private_part`).

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
from medqade.dataset.derive import BuiltTables, counts, derive_tables
from medqade.dataset.holdout import HoldOut, choose, public_data_hash, withhold
from medqade.dataset.hub_eval import EVAL_YAML, eval_yaml
from medqade.dataset.meta import RELEASE_JSON as RELEASE_JSON
from medqade.dataset.meta import ReleaseMeta
from medqade.dataset.private_part import PRIVATE_KIND, private_files, write_private
from medqade.files import atomic, folder_output
from medqade.files.folder_output import Output
from medqade.files.problems import InputError, Problem
from medqade.raw.reader import load_raw_release
from medqade.schema import HELD_OUT, config_splits, features

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


def _outputs(
    raw_dir: Path, out: Path, arrow_dir: Path | None, private_out: Path | None = None
) -> tuple[Output, Output | None, Output | None]:
    """The build folder, the Arrow export and the private part as guarded outputs (each
    protects the others, and all the raw release)."""
    raw_input = (raw_dir, "the raw release (--raw)")
    arrow_input = () if arrow_dir is None else ((arrow_dir, "the --arrow folder"),)
    private_input = (
        () if private_out is None else ((private_out, "the private part (--private-out)"),)
    )
    build_input = ((out, "the public build (--out)"),)
    build_out = Output(BUILD_KIND, "--out", build_files, (raw_input, *arrow_input, *private_input))
    arrow_out = None
    if arrow_dir is not None:
        arrow_out = Output(ARROW_KIND, "--arrow", None, (raw_input, *build_input, *private_input))
    private = None
    if private_out is not None:
        private = Output(
            PRIVATE_KIND, "--private-out", private_files, (raw_input, *build_input, *arrow_input)
        )
    return build_out, arrow_out, private


def _arrow(
    frame: pd.DataFrame, config: str, extras: tuple[str, ...], held_out: bool = False
) -> pa.Table:
    feats = features(config, extras, held_out=held_out)
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
    raw_dir: Path,
    out: Path,
    arrow_dir: Path | None = None,
    *,
    space_id: str | None = None,
    hold_out: HoldOut | None = None,
    private_out: Path | None = None,
) -> ReleaseMeta:
    """Build the dataset folder ``out`` from the raw release ``raw_dir``; return its metadata.

    ``space_id`` (``ORG/NAME``) is the leaderboard Space that ``eval.yaml`` points at.
    ``hold_out`` withholds the labels of its items from ``out`` (:mod:`medqade.dataset.holdout`)
    and writes them to ``private_out`` (:mod:`medqade.dataset.private_part`); the two come
    together.

    ``out`` (and ``arrow_dir``, ``private_out``) are checked before anything is read: a path
    that is not empty and not an earlier output of ours of its kind, or that is, contains or
    lies inside the raw release or another of the outputs, is refused with
    :class:`~medqade.files.atomic.OutputRefused`.
    """
    from medqade.dataset.card import (
        render_card,  # imports ``datasets``: only commands that build pay
    )

    if (hold_out is None) != (private_out is None):
        raise ValueError("--hold-out and --private-out come together: give both or neither")
    raw_dir, out = Path(raw_dir), Path(out)
    arrow_dir = None if arrow_dir is None else Path(arrow_dir)
    private_out = None if private_out is None else Path(private_out)
    build_out, arrow_out, private_output = _outputs(raw_dir, out, arrow_dir, private_out)
    targets = ((out, build_out), (arrow_dir, arrow_out), (private_out, private_output))
    for path, output in targets:
        if path is not None and output is not None:
            folder_output.recover(path, output)
            folder_output.check_target(path, output)
    raw = load_raw_release(raw_dir)
    tables = derive_tables(raw)
    private = None
    if hold_out is not None:
        tables, private = withhold(tables, choose(tables.questions, hold_out))
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
        holdout=None if hold_out is None else _holdout_meta(hold_out, tables),
    )
    with folder_output.directory(out, build_out) as tmp:
        files: dict[str, list[str]] = {}
        for config in frames:
            extras = raw.extra_columns if config in ("questions", "answers", "pool") else ()
            for split in config_splits(config):
                rel = f"data/{config}/{PARQUET_NAME.format(split=split)}"
                part = frames[config][frames[config]["split"] == split]
                table = _arrow(part, config, extras, held_out=hold_out is not None)
                _write_parquet(table, tmp / rel)
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
        if private is not None and hold_out is not None and private_out is not None:
            with folder_output.directory(private_out, private_output) as private_tmp:
                write_private(
                    private_tmp,
                    private,
                    hold_out,
                    public_data_hash(meta.files or {}),
                    raw.source_hash,
                )
    return meta


def _holdout_meta(hold_out: HoldOut, tables: BuiltTables) -> dict[str, object]:
    """``release.json``'s ``holdout``: how many items of each split are held out, the seed, and
    that their labels are in a private part that is not published."""
    q = tables.questions
    return {
        "items": hold_out.items,
        "seed": hold_out.seed,
        "by_split": {s: int(q.loc[q["split"] == s, HELD_OUT].sum()) for s in vocab.SPLITS},
        "labels": "withheld; kept in a private part that is never published (docs/holdout.md)",
    }


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
