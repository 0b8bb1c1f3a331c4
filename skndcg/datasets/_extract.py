"""Extract a downloaded archive safely, and check an extracted folder later,
by the rules :func:`~skndcg.datasets.fetch_movielens` states; the sizes the
archive declares are held to the limits below, and the bytes actually written
are counted again."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
import zipfile

#: Most bytes an archive may extract to (ml-32m, the largest, is under 1 GiB).
MAX_EXTRACTED_BYTES = 8 << 30
#: Largest expansion of one entry, uncompressed / compressed size (MovieLens
#: CSV files compress 3 to 6 times).
MAX_RATIO = 200
#: Entries smaller than this are not held to :data:`MAX_RATIO`.
_RATIO_FLOOR = 1 << 20
#: Age after which an unfinished download or extraction is a leftover.
STALE_SECONDS = 600
MANIFEST = ".skndcg-manifest.json"
CHUNK = 1 << 20


def _check_member(info, root):
    """Refuse archive entries that could write outside ``root``."""
    name = info.filename
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    parts = re.split(r"[\\/]", name)
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        problem = "an absolute path"
    elif ".." in parts:
        problem = "a '..' component"
    elif stat.S_ISLNK(mode):
        problem = "a symbolic link"
    elif kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        problem = "a special file (not a regular file or directory)"
    else:
        dest = os.path.realpath(os.path.join(root, name))
        if os.path.commonpath([dest, root]) != root:
            problem = "a path escaping the target folder"
        else:
            return dest
    raise ValueError(f"unsafe archive entry {name!r}: {problem}; refusing to extract.")


def _bomb(archive, what):
    return ValueError(
        f"{archive} {what}; refusing to extract it (a zip bomb?). The limits are "
        f"{MAX_EXTRACTED_BYTES >> 20} MiB in all and an expansion of "
        f"{MAX_RATIO} times per entry."
    )


def _check_sizes(archive, infos):
    """The declared sizes against the limits, before anything is written."""
    total = sum(info.file_size for info in infos)
    if total > MAX_EXTRACTED_BYTES:
        raise _bomb(archive, f"would extract to {total} bytes")
    for info in infos:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > _RATIO_FLOOR and ratio > MAX_RATIO:
            raise _bomb(
                archive,
                f"holds {info.filename!r}, which expands {ratio:.0f} times "
                f"({info.compress_size} to {info.file_size} bytes)",
            )


def _copy(zf, info, dest, archive, written):
    """Copy one entry, counting the bytes really produced."""
    limit = min(MAX_EXTRACTED_BYTES - written, info.file_size)
    copied = 0
    with zf.open(info) as src, open(dest, "xb") as out:
        while chunk := src.read(CHUNK):
            copied += len(chunk)
            if copied > limit:
                raise _bomb(archive, f"gives more bytes for {info.filename!r}")
            out.write(chunk)
    return copied


def extract(archive, dest_root):
    """Check every entry first, then extract regular files and folders."""
    root = os.path.realpath(dest_root)
    try:
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            members = [(info, _check_member(info, root)) for info in infos]
            _check_sizes(archive, infos)
            written = 0
            for info, dest in members:
                try:
                    if info.is_dir():
                        os.makedirs(dest, exist_ok=True)
                        continue
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    written += _copy(zf, info, dest, archive, written)
                except (FileExistsError, NotADirectoryError, IsADirectoryError) as exc:
                    raise ValueError(
                        f"{archive} holds the entry {info.filename!r} twice, or as "
                        "both a file and a folder; refusing to extract."
                    ) from exc
    except (zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
        raise ValueError(f"{archive} is not a valid zip archive: {exc}") from exc


def sha256_of(path):
    """The sha256 of a file's bytes, as hexadecimal digits."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _files(folder):
    for dirpath, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            if rel != MANIFEST:
                yield rel, path


def write_manifest(folder):
    """Record the size and sha256 of every file of ``folder``."""
    files = {
        rel: [os.path.getsize(path), sha256_of(path)] for rel, path in _files(folder)
    }
    with open(os.path.join(folder, MANIFEST), "w", encoding="utf-8") as fh:
        json.dump({"files": files}, fh, indent=1, sort_keys=True)


def verify_manifest(folder):
    """Raise ``OSError`` unless ``folder`` holds exactly what its manifest says."""
    fix = f"delete {folder} to fetch it again."
    try:
        with open(os.path.join(folder, MANIFEST), encoding="utf-8") as fh:
            expected = json.load(fh)["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OSError(
            f"the cached folder {folder} has no readable manifest of what was "
            f"extracted ({MANIFEST}), so it cannot be checked; {fix}"
        ) from exc
    found = dict(_files(folder))
    for rel in sorted(set(expected) | set(found)):
        if rel not in found:
            problem = "is missing"
        elif rel not in expected:
            problem = "was not in the archive"
        elif os.path.getsize(found[rel]) != expected[rel][0]:
            problem = f"has {os.path.getsize(found[rel])} bytes, not {expected[rel][0]}"
        elif sha256_of(found[rel]) != expected[rel][1]:
            problem = "has changed (its sha256 differs)"
        else:
            continue
        raise OSError(f"the cached file {rel} in {folder} {problem}; {fix}")


def install(archive, final):
    """Extract into a temporary folder beside ``final``, then rename it."""
    tmp = tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent)
    try:
        extract(archive, tmp)
        entries = os.listdir(tmp)
        # The official archives hold one top folder named like the data set.
        if len(entries) == 1 and os.path.isdir(os.path.join(tmp, entries[0])):
            source = os.path.join(tmp, entries[0])
        else:
            source = tmp
        write_manifest(source)
        try:
            os.rename(source, final)
        except OSError:
            if not final.is_dir():  # another process may have won the race
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def remove_leftovers(home, name, *, now=None):
    """Remove a killed fetch's downloads and extraction folders of ``name``."""
    now = time.time() if now is None else now
    for entry in os.scandir(home):
        ours = entry.name.startswith(f".{name}.")  # .zip.*.part included
        if not ours or not entry.name.endswith((".part", ".tmp")):
            continue
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime < STALE_SECONDS:
                continue  # perhaps another process, still at work
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.remove(entry.path)
        except OSError:
            pass
