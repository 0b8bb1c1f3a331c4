"""Download, verify, safely extract and cache the official MovieLens archives."""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import tempfile
import urllib.request
from pathlib import Path

from ..utils._args import as_path, check_flags
from ._extract import CHUNK, install, remove_leftovers, sha256_of, verify_manifest
from ._movielens import load_movielens

BASE_URL = "https://files.grouplens.org/datasets/movielens/"

# (size in bytes, sha256) of the official archives, as pinned publicly in
# tensorflow/datasets (tensorflow_datasets/url_checksums/movielens.txt).
# ml-latest is rebuilt by GroupLens from time to time and no published digest
# of ml-32m was found: for those two the caller passes ``sha256=``.
ARCHIVES = {
    "ml-100k": (
        4924029,
        "50d2a982c66986937beb9ffb3aa76efe955bf3d5c6b761f4e3a7cd717c6a3229",
    ),
    "ml-1m": (
        5917549,
        "a6898adb50b9ca05aa231689da44c217cb524e7ebd39d264c56e2832f2c54e20",
    ),
    "ml-latest-small": (
        978202,
        "696d65a3dfceac7c45750ad32df2c259311949efec81f0f144fdfb91ebc9e436",
    ),
    "ml-20m": (
        198702078,
        "96f243c338a8665f6bcc89c53edf6ee39162a846940de6b7c8c48aeada765ff3",
    ),
    "ml-25m": (
        261978986,
        "8b21cfb7eb1706b4ec0aac894368d90acf26ebdfb6aced3ebd4ad5bd1eb9c6aa",
    ),
    "ml-latest": (None, None),
    "ml-32m": (None, None),
}
_HEX64 = re.compile(r"[0-9a-f]{64}")


def get_data_home(data_home=None):
    """Return the folder where downloaded data sets are cached.

    The folder is, in order of precedence, ``data_home``, the environment
    variable ``SKNDCG_DATA``, or ``~/skndcg_data``. A leading ``~`` is
    expanded and the folder is created if needed, as
    :func:`sklearn.datasets.get_data_home` does.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder to use; None means ``SKNDCG_DATA`` or ``~/skndcg_data``.

    Returns
    -------
    data_home : str
        The path of the cache folder.

    Examples
    --------
    >>> import tempfile
    >>> from skndcg.datasets import get_data_home
    >>> folder = tempfile.mkdtemp()
    >>> get_data_home(folder) == folder
    True
    >>> import os
    >>> os.rmdir(folder)
    """
    if data_home is None:
        data_home = os.environ.get("SKNDCG_DATA", os.path.join("~", "skndcg_data"))
    data_home = os.path.expanduser(as_path(data_home, "data_home"))
    os.makedirs(data_home, exist_ok=True)
    return data_home


def _download(url, target, sha256, size, timeout):
    """Stream ``url`` to a temporary file beside ``target``; move it into
    place only once its sha256 matches, so no partial file is ever cached."""
    fd, part = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".part", dir=target.parent
    )
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            try:
                with urllib.request.urlopen(url, timeout=timeout) as response:
                    announced = response.headers.get("Content-Length")
                    received = 0
                    while chunk := response.read(CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        received += len(chunk)
                if announced is not None and received != int(announced):
                    raise OSError(
                        f"the connection closed after {received} of {announced} bytes"
                    )
            except (OSError, http.client.HTTPException) as exc:
                # URLError, HTTPError, timeouts, a connection cut short
                raise OSError(f"could not download {url}: {exc}") from exc
        got = digest.hexdigest()
        if got != sha256:
            got_size = os.path.getsize(part)
            hint = "" if size is None else f" (expected {size} bytes)"
            raise OSError(
                f"the archive downloaded from {url} has sha256 {got} "
                f"({got_size} bytes) instead of the expected {sha256}{hint}: the "
                "download is corrupt or not the expected file; nothing was "
                "cached."
            )
        os.replace(part, target)
    finally:
        if os.path.exists(part):
            os.remove(part)


def fetch_movielens(
    name="ml-latest-small",
    *,
    data_home=None,
    url=None,
    sha256=None,
    download_if_missing=True,
    return_items=False,
    timeout=60.0,
):
    """Download (once) an official MovieLens archive and load its ratings.

    The archive ``https://files.grouplens.org/datasets/movielens/<name>.zip``
    is downloaded to a temporary file in the cache folder, its sha256 is
    checked, and only then is it moved into place. Every entry of the zip is
    checked before anything is extracted (no absolute paths, no ``..``, no
    symbolic links or special files, nothing resolving outside the target;
    at most 8 GiB in all and no entry expanding more than 200 times: an
    archive that would is refused as a zip bomb), and extraction happens in a
    temporary folder renamed to ``<data_home>/<name>`` at the end, so an
    interrupted or corrupt download never leaves a half-written cache
    (leftovers of a killed process are removed by the next call). The archive
    is deleted after extraction; a manifest of the size and sha256 of every
    extracted file is kept in the folder, and later calls check the folder
    against it before reading it.

    The data are licensed by GroupLens Research for non-commercial use and
    may not be redistributed: see the README inside each archive.

    Parameters
    ----------
    name : {"ml-100k", "ml-1m", "ml-latest-small", "ml-latest", "ml-20m", \
"ml-25m", "ml-32m"}, default="ml-latest-small"
        The release. ``ml-latest`` changes over time and has no fixed digest,
        and no published digest of ``ml-32m`` is known: for these two pass
        ``sha256=``.
    data_home : str or path-like, default=None
        Cache folder, see :func:`get_data_home`.
    url : str, default=None
        Where to download from instead of the official address (a mirror, or a
        ``file://`` URL).
    sha256 : str, default=None
        Expected sha256 of the archive (64 hexadecimal digits); overrides the
        built-in digest of ``name``.
    download_if_missing : bool, default=True
        If False, raise an ``OSError`` instead of downloading when the data
        are not cached yet.
    return_items : bool, default=False
        If True, also return the item table (see :func:`load_movielens`).
    timeout : float, default=60.0
        Seconds to wait for the server before giving up.

    Returns
    -------
    ratings : pandas.DataFrame
        As returned by :func:`load_movielens` on ``<data_home>/<name>``.
    items : pandas.DataFrame
        Only when ``return_items=True``.

    Raises
    ------
    ValueError
        If ``name`` is unknown, ``sha256`` is missing where no digest is
        known or is malformed, or the archive is not a zip or holds an unsafe
        entry.
    OSError
        If the download fails, the archive's sha256 differs from the expected
        one, the data are not cached and ``download_if_missing=False``, or the
        cached folder does not match its manifest.

    See Also
    --------
    load_movielens : Read already extracted files.

    References
    ----------
    .. [1] F. M. Harper and J. A. Konstan, "The MovieLens datasets: history and
       context", ACM Transactions on Interactive Intelligent Systems 5(4), 2015.

    Examples
    --------
    A local archive stands in for the official one here:

    >>> import hashlib, tempfile, zipfile
    >>> from pathlib import Path
    >>> from skndcg.datasets import fetch_movielens
    >>> folder = Path(tempfile.mkdtemp())
    >>> archive = folder / "ml-100k.zip"
    >>> with zipfile.ZipFile(archive, "w") as zf:
    ...     zf.writestr("ml-100k/u.data", "1\\t10\\t4\\t881250949\\n")
    >>> digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    >>> ratings = fetch_movielens(
    ...     "ml-100k", data_home=folder / "cache", url=archive.as_uri(),
    ...     sha256=digest,
    ... )
    >>> ratings[["user_id", "item_id", "rating"]]
       user_id  item_id  rating
    0        1       10     4.0
    >>> import shutil
    >>> shutil.rmtree(folder)
    """
    if name not in ARCHIVES:
        raise ValueError(
            f"name={name!r} is not a known MovieLens release; expected one of "
            f"{sorted(ARCHIVES)}."
        )
    size, known = ARCHIVES[name]
    if sha256 is not None:
        if not isinstance(sha256, str) or not _HEX64.fullmatch(sha256.lower()):
            raise ValueError(
                f"sha256={sha256!r} is not a sha256 digest; expected 64 "
                "hexadecimal digits."
            )
        expected, size = sha256.lower(), None
    elif known is not None:
        expected = known
    else:
        raise ValueError(
            f"no published sha256 is known for {name!r}; pass sha256= with the "
            "digest of the archive you expect (for example from `sha256sum "
            f"{name}.zip` on a copy you trust)."
        )
    check_flags(download_if_missing=download_if_missing, return_items=return_items)
    home = Path(get_data_home(data_home))
    final = home / name
    remove_leftovers(home, name)
    if final.is_dir():
        verify_manifest(final)
    else:
        archive = home / f"{name}.zip"
        if archive.is_file() and sha256_of(archive) != expected:
            archive.unlink()  # stale or foreign file: fetch again
        if not archive.is_file():
            if not download_if_missing:
                raise OSError(
                    f"{name} is not in the cache folder {home} and "
                    "download_if_missing=False."
                )
            _download(url or f"{BASE_URL}{name}.zip", archive, expected, size, timeout)
        try:
            install(archive, final)
        finally:
            archive.unlink()
    return load_movielens(final, return_items=return_items)
