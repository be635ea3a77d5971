"""Who submitted, as the results folder stores it: a keyed hash of the account name.

``space.account`` is ``HMAC-SHA256(key, user name)`` (hex, 32 characters). The key is
per deployment: the Space secret ``MEDQADE_ACCOUNT_KEY``, or else random bytes generated once
(:func:`secrets.token_bytes`) into a file beside the results folder, written atomically with
mode 0600 and never inside the folder the Hub mirror uploads. Without the key a stored value
cannot be tested against a list of user names.

Records stored before the key existed hold :func:`legacy_account_key` (SHA-256 of a public
constant and the name). They are not rewritten; the rate limit counts them for the same
account (:meth:`AccountHasher.aliases`), so the limit carries over.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import secrets
from pathlib import Path
from typing import Final

from medqade.app.config import ENV_ACCOUNT_KEY, SpaceConfig
from medqade.scoring.policy import on_space

log = logging.getLogger(__name__)

SCHEME: Final = "hmac-sha256"
LEGACY_SALT: Final = "medqade-space-account:"
KEY_BYTES: Final = 32
DIGEST_CHARS: Final = 32


def account_key(username: str, secret: bytes) -> str:
    """The stored form of ``username``: HMAC-SHA256 keyed by the deployment's secret."""
    return hmac.new(secret, username.encode("utf-8"), hashlib.sha256).hexdigest()[:DIGEST_CHARS]


def legacy_account_key(username: str) -> str:
    """The unkeyed hash of earlier versions (kept only to count old records)."""
    return hashlib.sha256(f"{LEGACY_SALT}{username}".encode()).hexdigest()[:DIGEST_CHARS]


def read_or_create_key(path: Path) -> bytes:
    """The key in ``path``, generated there first when the file does not exist.

    Written atomically (a 0600 temp file, fsync, then a hard link that fails when another
    process created the key first, whose key is then read), so every process agrees.
    """
    path = Path(path)
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_bytes(KEY_BYTES).hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process was first: use its key
        except OSError:  # no hard links here: the rename is atomic, only a race may lose
            if not path.exists():
                os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    log.info("generated a new account key (set %s to keep it across machines)", ENV_ACCOUNT_KEY)
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    text = path.read_text(encoding="ascii", errors="replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise ValueError(
            f"the account key file {path.name} does not hold a key of 32 or more hex digits; "
            f"delete it to generate a new one, or set {ENV_ACCOUNT_KEY}"
        )
    if os.name != "nt" and path.stat().st_mode & 0o077:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)
    return key


class AccountHasher:
    """The stored account of a user name under one deployment's key."""

    def __init__(self, config: SpaceConfig) -> None:
        if config.account_key:
            self._secret = config.account_key.encode("utf-8")
        else:
            if on_space():
                log.warning(
                    "%s is not set: the account key is generated on this machine, so a "
                    "restarted Space hashes accounts anew and the rate limit restarts; add the "
                    "Space secret %s",
                    ENV_ACCOUNT_KEY,
                    ENV_ACCOUNT_KEY,
                )
            try:
                self._secret = read_or_create_key(config.key_file)
            except OSError as exc:  # read-only folder: a key for this run only
                log.warning(
                    "cannot keep an account key (%s); using one for this run only, so the rate "
                    "limit restarts with the Space; set %s",
                    type(exc).__name__,
                    ENV_ACCOUNT_KEY,
                )
                self._secret = secrets.token_bytes(KEY_BYTES)

    def __call__(self, username: str) -> str:
        return account_key(username, self._secret)

    def derive(self, purpose: str) -> bytes:
        """A key of its own for ``purpose`` (e.g. sealing the figure cache), derived from the
        deployment's secret: ``HMAC-SHA256(secret, "medqade-derived-key:" + purpose)``. It is
        never an account hash, and the secret cannot be recovered from it."""
        label = f"medqade-derived-key:{purpose}".encode()
        return hmac.new(self._secret, label, hashlib.sha256).digest()

    def aliases(self, username: str) -> tuple[str, ...]:
        """Earlier stored forms of ``username`` that count against the same rate limit."""
        return (legacy_account_key(username),)
