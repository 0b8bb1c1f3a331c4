"""The MovieLens fetcher: zip-bomb limits, leftovers, and the extraction manifest."""

import hashlib
import json
import os
import time
import zipfile
from pathlib import Path

import pytest

from skndcg.datasets import _extract, fetch_movielens

U_DATA = "196\t242\t3\t881250949\n186\t302\t3\t891717742\n"


def _archive(path, entries, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def _fetch(home, archive, digest, **kwargs):
    return fetch_movielens(
        "ml-100k", data_home=home, url=archive.as_uri(), sha256=digest, **kwargs
    )


@pytest.fixture
def home(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    return folder


def test_zip_bomb_is_refused_and_nothing_is_left(tmp_path, home):
    # 64 MiB of zeros deflate to about 64 KiB: a thousandfold expansion.
    archive, digest = _archive(
        tmp_path / "bomb.zip",
        [("ml-100k/u.data", U_DATA), ("ml-100k/zeros", b"\0" * (64 << 20))],
    )
    assert archive.stat().st_size < 1 << 20
    with pytest.raises(ValueError, match=r"'ml-100k/zeros', which expands \d+ times"):
        _fetch(home, archive, digest)
    assert list(home.iterdir()) == []


def test_total_size_limit(tmp_path, home, monkeypatch):
    # Stored (not compressed) entries: ratio 1, but more bytes than allowed.
    archive, digest = _archive(
        tmp_path / "big.zip",
        [("ml-100k/u.data", U_DATA), ("ml-100k/pad", b"x" * 5000)],
        compression=zipfile.ZIP_STORED,
    )
    monkeypatch.setattr(_extract, "MAX_EXTRACTED_BYTES", 4096)
    with pytest.raises(ValueError, match=r"would extract to \d+ bytes.*zip bomb"):
        _fetch(home, archive, digest)
    assert list(home.iterdir()) == []


def test_an_entry_that_lies_about_its_size_is_cut(tmp_path, monkeypatch):
    # The limit also holds while copying, whatever the header said.
    archive, _ = _archive(tmp_path / "a.zip", [("a/pad", b"y" * 3000)])
    monkeypatch.setattr(_extract, "MAX_EXTRACTED_BYTES", 2000)
    monkeypatch.setattr(_extract, "_check_sizes", lambda *args: None)
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(ValueError, match=r"gives more bytes for 'a/pad'"):
        _extract.extract(archive, dest)


def test_manifest_is_checked_before_the_cache_is_used(tmp_path, home):
    archive, digest = _archive(tmp_path / "ok.zip", [("ml-100k/u.data", U_DATA)])
    assert len(_fetch(home, archive, digest)) == 2
    manifest = json.loads((home / "ml-100k" / _extract.MANIFEST).read_text())
    size, sha = manifest["files"]["u.data"]
    assert size == len(U_DATA)
    assert sha == hashlib.sha256(U_DATA.encode()).hexdigest()
    # Same size, other content: the hash catches it.
    (home / "ml-100k" / "u.data").write_text(U_DATA.replace("196", "197"))
    with pytest.raises(OSError, match=r"u\.data .* has changed.*delete"):
        _fetch(home, archive, digest)
    (home / "ml-100k" / "u.data").write_text(U_DATA + "1\t2\t3\t4\n")
    with pytest.raises(OSError, match=r"u\.data .* has 48 bytes, not 40"):
        _fetch(home, archive, digest)
    (home / "ml-100k" / "u.data").unlink()
    with pytest.raises(OSError, match=r"u\.data .* is missing"):
        _fetch(home, archive, digest)
    (home / "ml-100k" / _extract.MANIFEST).unlink()
    with pytest.raises(OSError, match=r"no readable manifest"):
        _fetch(home, archive, digest)


def test_a_killed_fetch_leaves_nothing_for_long(tmp_path, home):
    archive, digest = _archive(tmp_path / "ok.zip", [("ml-100k/u.data", U_DATA)])
    part = home / ".ml-100k.zip.abc123.part"
    part.write_bytes(b"PK half")
    half = home / ".ml-100k.xyz.tmp"
    (half / "ml-100k").mkdir(parents=True)
    (half / "ml-100k" / "u.data").write_text("196\t2")
    fresh = home / ".ml-100k.zip.new.part"  # perhaps another process at work
    fresh.write_bytes(b"PK")
    other = home / ".ml-1m.zip.old.part"  # another data set's: not ours
    other.write_bytes(b"PK")
    old = time.time() - 2 * _extract.STALE_SECONDS
    for path in (part, half, other):
        os.utime(path, (old, old))
    _fetch(home, archive, digest)
    names = sorted(p.name for p in Path(home).iterdir())
    assert names == [".ml-100k.zip.new.part", ".ml-1m.zip.old.part", "ml-100k"]


def test_an_interrupted_extraction_leaves_nothing(tmp_path, home, monkeypatch):
    archive, digest = _archive(
        tmp_path / "ok.zip", [("ml-100k/u.data", U_DATA), ("ml-100k/b", "x")]
    )
    real_copy = _extract._copy
    calls = []

    def copy_then_interrupt(*args):
        calls.append(real_copy(*args))
        if len(calls) == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(_extract, "_copy", copy_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        _fetch(home, archive, digest)
    assert list(home.iterdir()) == []
