"""Write output files whole or not at all, and never through a stray symlink.

:func:`atomic_write` writes to a temporary file beside the target
(``.<name>.<random>.part``) and renames it over the target once every byte is
written and flushed; an interrupted write (an exception, ``KeyboardInterrupt``,
or a SIGTERM the command line turns into one) removes the temporary file and
leaves the target as it was: a reader never sees half a file. A symbolic link
is followed only inside the output folder (:func:`safe_target`), so that an
output folder cannot be used to overwrite files elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "safe_target"]


def safe_target(path) -> Path:
    """The file to write for ``path``: ``path`` itself, or the file a symbolic
    link at ``path`` points to when it is inside ``path``'s folder; a
    ``ValueError`` for a link that leads out of it."""
    path = Path(path)
    if not path.is_symlink():
        return path
    base = path.parent.resolve()
    target = path.resolve()
    if target.parent != base and base not in target.parents:
        raise ValueError(
            f"refusing to write {str(path)!r}: it is a symbolic link to "
            f"{str(target)!r}, outside the output folder {str(base)!r}; remove "
            "the link or choose another path."
        )
    return target


@contextlib.contextmanager
def atomic_write(path, mode="w", **open_kwargs):
    """Open a temporary file next to ``path`` (``mode`` "w" or "wb",
    ``open_kwargs`` for :func:`open`) and rename it to ``path`` on success; a
    symbolic link at ``path`` must stay in its folder (see :func:`safe_target`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_write(folder / "out.txt") as fh:
    ...     _ = fh.write("whole")
    >>> (folder / "out.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('whole', ['out.txt'])
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}.")
    target = safe_target(path)
    if "b" not in mode:
        open_kwargs.setdefault("encoding", "utf-8")
    if target.exists() and not target.is_file():
        # A device or pipe (/dev/stdout): written in place, as a stream.
        with open(target, mode, **open_kwargs) as fh:
            yield fh
        return
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".part", dir=target.parent
    )
    try:
        with os.fdopen(fd, mode, **open_kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)  # (read by setting it, then put back)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
