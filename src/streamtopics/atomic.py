"""Atomic file writes: a crash at any moment leaves either the old file or the new one, never a
partial file under the real name (model files, corpus files, checkpoints)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import BinaryIO


class AtomicFile:
    """A binary file written under a temporary name and renamed to ``path`` on success only."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # os.open with mode 0o666 honours the umask (tempfile.mkstemp would make it 0o600).
        self.temporary = self.path.with_name(f".{self.path.name}.{secrets.token_hex(6)}.tmp")
        fd = os.open(self.temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        self.handle: BinaryIO = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        self.handle.write(data)

    def commit(self) -> None:
        """Rename the complete file into place; if anything fails (a full disk, memory), the
        temporary file is removed and the error raised."""
        try:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()
            os.replace(self.temporary, self.path)
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Remove the temporary file (also when closing it fails)."""
        try:
            self.handle.close()
        finally:
            Path(self.temporary).unlink(missing_ok=True)

    def __enter__(self) -> "AtomicFile":
        return self

    def __exit__(self, error_type, *_) -> None:
        if error_type is None:
            self.commit()
        else:
            self.abort()


def atomic_write(path, write) -> None:
    """Call ``write(binary_file)`` on a temporary file beside ``path``, then rename it into place."""
    with AtomicFile(path) as handle:
        write(handle.handle)
