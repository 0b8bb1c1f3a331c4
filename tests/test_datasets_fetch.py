"""Tests of fetch_movielens and get_data_home, offline: a local HTTP server
on 127.0.0.1 or file:// URLs serve archives built here."""

import functools
import hashlib
import http.server
import os
import re
import stat
import threading
import zipfile
from pathlib import Path

import pytest

from skndcg.datasets import fetch_movielens, get_data_home
from skndcg.datasets._fetch import ARCHIVES

U_DATA = "196\t242\t3\t881250949\n186\t302\t3\t891717742\n"
U_ITEM = "242|Kolya (1996)|24-Jan-1997||http://x|" + "|".join("0" * 5 + "1" + "0" * 13)


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def make_archive(path, entries):
    """Write a zip; each entry is (name, text) or (name, text, unix mode)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, text, *mode in entries:
            info = zipfile.ZipInfo(name)
            if mode:
                info.external_attr = mode[0] << 16
            zf.writestr(info, text)
    return path


def good_archive(path):
    return make_archive(
        path,
        [
            ("ml-100k/", ""),
            ("ml-100k/u.data", U_DATA),
            ("ml-100k/u.item", U_ITEM + "\n"),
            ("ml-100k/README", "fake data for tests"),
        ],
    )


def leftovers(home):
    """Every name in the cache folder except a finished data set folder."""
    return sorted(p.name for p in Path(home).iterdir())


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class TruncatingHandler(QuietHandler):
    """Announces 100,000 bytes, sends 10, then hangs up."""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b"PK" + b"\0" * 8)
        self.wfile.flush()
        self.close_connection = True


def start_server(handler, directory):
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(directory))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


@pytest.fixture
def served(tmp_path):
    """A directory served over HTTP on 127.0.0.1, stopped after the test."""
    root = tmp_path / "www"
    root.mkdir()
    server, thread = start_server(QuietHandler, root)
    host, port = server.server_address[:2]
    yield root, f"http://{host}:{port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
    assert not thread.is_alive()


@pytest.fixture
def home(tmp_path):
    path = tmp_path / "cache"
    path.mkdir()
    return path


def test_get_data_home_precedence(tmp_path, monkeypatch):
    explicit = tmp_path / "a" / "b"
    assert get_data_home(explicit) == str(explicit)
    assert explicit.is_dir()
    monkeypatch.setenv("SKNDCG_DATA", str(tmp_path / "env"))
    assert get_data_home() == str(tmp_path / "env")
    monkeypatch.delenv("SKNDCG_DATA")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert get_data_home() == str(tmp_path / "skndcg_data")
    assert get_data_home("~/x") == str(tmp_path / "x")
    assert (tmp_path / "skndcg_data").is_dir()


def test_download_over_http_verifies_extracts_and_caches(served, home):
    root, base = served
    digest = sha256_of(good_archive(root / "ml-100k.zip"))
    df = fetch_movielens(
        "ml-100k", data_home=home, url=f"{base}/ml-100k.zip", sha256=digest
    )
    assert df["item_id"].tolist() == [242, 302]
    assert df["genres"].tolist()[0] == "Comedy"
    # Only the extracted folder remains: no archive, no temporary files.
    assert leftovers(home) == ["ml-100k"]
    files = ["README", "u.data", "u.item"]
    assert sorted(os.listdir(home / "ml-100k")) == [".skndcg-manifest.json", *files]
    # Later calls read the cache without touching the network.
    (root / "ml-100k.zip").unlink()
    again, items = fetch_movielens(
        "ml-100k",
        data_home=home,
        url=f"{base}/ml-100k.zip",
        download_if_missing=False,
        return_items=True,
    )
    assert again.equals(df)
    assert items["title"].tolist() == ["Kolya (1996)"]


def test_file_url_and_environment_cache(tmp_path, monkeypatch):
    archive = make_archive(
        tmp_path / "mirror.zip",
        [
            (
                "ml-latest-small/ratings.csv",
                "userId,movieId,rating,timestamp\n1,2,3.5,4\n",
            )
        ],
    )
    monkeypatch.setenv("SKNDCG_DATA", str(tmp_path / "env-cache"))
    df = fetch_movielens(url=archive.as_uri(), sha256=sha256_of(archive).upper())
    assert df.iloc[0, :4].tolist() == [1, 2, 3.5, 4]
    assert (tmp_path / "env-cache" / "ml-latest-small" / "ratings.csv").is_file()


def test_archive_without_top_folder(tmp_path, home):
    archive = make_archive(tmp_path / "flat.zip", [("u.data", U_DATA)])
    df = fetch_movielens(
        "ml-100k", data_home=home, url=archive.as_uri(), sha256=sha256_of(archive)
    )
    assert len(df) == 2
    assert (home / "ml-100k" / "u.data").is_file()


def test_wrong_checksum_caches_nothing(served, home):
    root, base = served
    good_archive(root / "ml-100k.zip")
    with pytest.raises(OSError, match=r"has sha256 [0-9a-f]{64} .* instead of"):
        fetch_movielens(
            "ml-100k", data_home=home, url=f"{base}/ml-100k.zip", sha256="0" * 64
        )
    assert leftovers(home) == []


def test_builtin_checksum_is_used_by_default(served, home):
    # The served file is not the official archive: the pinned digest of
    # ml-100k rejects it.
    root, base = served
    good_archive(root / "ml-100k.zip")
    expected = ARCHIVES["ml-100k"][1]
    with pytest.raises(OSError, match=f"instead of the expected {expected}"):
        fetch_movielens("ml-100k", data_home=home, url=f"{base}/ml-100k.zip")
    assert leftovers(home) == []


def test_interrupted_download_caches_nothing(tmp_path, home):
    server, thread = start_server(TruncatingHandler, tmp_path)
    host, port = server.server_address[:2]
    try:
        match = "could not download .*closed after 10 of 100000 bytes"
        with pytest.raises(OSError, match=match):
            fetch_movielens(
                "ml-100k",
                data_home=home,
                url=f"http://{host}:{port}/ml-100k.zip",
                sha256="0" * 64,
                timeout=10,
            )
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    assert leftovers(home) == []


def test_missing_file_on_server(served, home):
    _, base = served
    with pytest.raises(OSError, match=r"could not download .*404"):
        fetch_movielens("ml-1m", data_home=home, url=f"{base}/nothing.zip")
    assert leftovers(home) == []


def test_not_a_zip(tmp_path, home):
    bogus = tmp_path / "bogus.zip"
    bogus.write_bytes(b"this is not a zip archive")
    with pytest.raises(ValueError, match="is not a valid zip archive"):
        fetch_movielens(
            "ml-100k", data_home=home, url=bogus.as_uri(), sha256=sha256_of(bogus)
        )
    assert leftovers(home) == []


@pytest.mark.parametrize(
    "entry, problem",
    [
        (("../evil", "x"), "a '..' component"),
        (("ml-100k/../../evil", "x"), "a '..' component"),
        (("..\\evil", "x"), "a '..' component"),
        (("{tmp}/evil", "x"), "an absolute path"),
        (("C:/evil", "x"), "an absolute path"),
        (("ml-100k/link", "../../evil", stat.S_IFLNK | 0o777), "a symbolic link"),
        (("ml-100k/fifo", "", stat.S_IFIFO | 0o644), "a special file"),
    ],
)
def test_malicious_archives_write_nothing(tmp_path, home, entry, problem):
    # A valid entry comes first: nothing at all may be extracted.
    entry = (entry[0].format(tmp=tmp_path.as_posix()), *entry[1:])
    archive = make_archive(tmp_path / "evil.zip", [("ml-100k/u.data", U_DATA), entry])
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(
        ValueError, match=rf"unsafe archive entry .*{re.escape(problem)}"
    ):
        fetch_movielens(
            "ml-100k", data_home=home, url=archive.as_uri(), sha256=sha256_of(archive)
        )
    assert leftovers(home) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_duplicate_entries_are_refused(tmp_path, home):
    archive = tmp_path / "dup.zip"
    with pytest.warns(UserWarning, match="Duplicate name"):
        make_archive(archive, [("ml-100k/u.data", U_DATA), ("ml-100k/u.data", "x")])
    with pytest.raises(ValueError, match=r"holds the entry 'ml-100k/u.data' twice"):
        fetch_movielens(
            "ml-100k", data_home=home, url=archive.as_uri(), sha256=sha256_of(archive)
        )
    assert leftovers(home) == []


def test_file_and_folder_of_the_same_name_are_refused(tmp_path, home):
    archive = make_archive(
        tmp_path / "clash.zip", [("ml-100k/u.data", U_DATA), ("ml-100k/u.data/x", "")]
    )
    with pytest.raises(ValueError, match="as both a file and a folder"):
        fetch_movielens(
            "ml-100k", data_home=home, url=archive.as_uri(), sha256=sha256_of(archive)
        )
    assert leftovers(home) == []


def test_stale_archive_in_cache_is_replaced(tmp_path, home):
    archive = good_archive(tmp_path / "good.zip")
    (home / "ml-100k.zip").write_bytes(b"half a download")
    df = fetch_movielens(
        "ml-100k", data_home=home, url=archive.as_uri(), sha256=sha256_of(archive)
    )
    assert len(df) == 2
    assert leftovers(home) == ["ml-100k"]


def test_verified_archive_in_cache_is_used_without_download(tmp_path, home):
    archive = good_archive(home / "ml-100k.zip")
    df = fetch_movielens(
        "ml-100k",
        data_home=home,
        url=(tmp_path / "absent.zip").as_uri(),
        sha256=sha256_of(archive),
    )
    assert len(df) == 2


def test_not_cached_and_no_download(home):
    with pytest.raises(OSError, match=r"not in the cache folder .*download_if_missing"):
        fetch_movielens("ml-100k", data_home=home, download_if_missing=False)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"name": "ml-7m"}, r"name='ml-7m' is not a known MovieLens release"),
        ({"name": "ml-32m"}, r"no published sha256 is known for 'ml-32m'.*sha256="),
        ({"name": "ml-latest"}, r"no published sha256 is known for 'ml-latest'"),
        ({"sha256": "abc"}, r"sha256='abc' is not a sha256 digest"),
        ({"sha256": "g" * 64}, "expected 64 hexadecimal digits"),
    ],
)
def test_bad_arguments(home, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fetch_movielens(data_home=home, **kwargs)
    assert leftovers(home) == []


def test_pinned_checksums():
    assert set(ARCHIVES) == {
        "ml-100k",
        "ml-1m",
        "ml-latest-small",
        "ml-latest",
        "ml-20m",
        "ml-25m",
        "ml-32m",
    }
    for name, (size, digest) in ARCHIVES.items():
        if name in ("ml-latest", "ml-32m"):
            assert digest is None
        else:
            assert re.fullmatch(r"[0-9a-f]{64}", digest)
            assert size > 0
