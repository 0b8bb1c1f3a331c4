"""Modules written from source at run time, so that numba can cache them (it
caches by file, never a function taking a compiled one as an argument).

A file's name digests its text, its dependencies and every skndcg module's
size and modification time; it goes in ``NUMBA_CACHE_DIR`` or the user's cache
folder, never a shared one, since it is imported.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path

from ._jit import takes_files

_folder_found: list = []
_stamp: list = []
_importing = threading.RLock()


def _candidates():
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        yield Path(numba_dir) / "skndcg_written"
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    yield Path(home).expanduser() / "skndcg" / "written"


def _package_stamp() -> bytes:
    """Size and modification time of every module of the package, read once."""
    if not _stamp:
        root = Path(__file__).resolve().parent.parent
        parts = []
        for path in sorted(root.rglob("*.py")):
            st = path.stat()
            name = path.relative_to(root).as_posix()
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        _stamp.append("\n".join(parts).encode())
    return _stamp[0]


def written_module(source: str, depends=()):
    """The module of ``source``, written to a file of its own and imported, or
    None when no folder takes files; ``depends``: files the compiled code also
    reads (the kernel a loop calls)."""
    if not _folder_found:  # the first candidate that takes files, once per process
        _folder_found.append(next(filter(takes_files, _candidates()), None))
    folder = _folder_found[0]
    if folder is None:
        return None
    digest = hashlib.sha256(source.encode())
    digest.update(_package_stamp())
    for dep in depends:
        digest.update(Path(dep).read_bytes())
    name = f"skndcg_written_{digest.hexdigest()[:24]}"
    with _importing:  # (another thread may be running the module's code)
        return sys.modules.get(name) or _write_and_import(name, folder, source)


def _write_and_import(name, folder, source):
    path = folder / f"{name}.py"
    if not path.is_file() or path.read_text() != source:
        try:  # written whole, then renamed: a reader never sees half a file
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "w") as fh:
                fh.write(source)
            os.replace(tmp, path)
        except OSError:
            return None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # (never a half-run module for the next call)
        raise
    return module
