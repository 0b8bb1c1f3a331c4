"""A Parquet file opened once: the only place the readers open pyarrow's file."""

from ..utils._args import as_path
from ..utils._optional import import_optional


def pyarrow_parquet():
    """``pyarrow.parquet``, or the error naming the extra to install."""
    return import_optional("pyarrow.parquet", purpose="reading Parquet files")


class ParquetColumns:
    """A Parquet file opened to read some of its columns, a batch at a time.

    Only the file's footer is read on opening; the columns are decoded when
    :meth:`frames` is iterated.

    Parameters
    ----------
    path : str or path-like
        A Parquet file, whatever its name (needs pyarrow).

    Attributes
    ----------
    path : str
        The file's path.
    schema : pyarrow.Schema
        The file's columns and their types.
    names : list of str
        The file's column names.
    num_rows : int
        The file's rows.

    Raises
    ------
    ValueError
        When the file cannot be read as Parquet (the message names it).
    ImportError
        Without pyarrow.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from skndcg.io import ParquetColumns
    >>> path = os.path.join(tempfile.mkdtemp(), "p.parquet")
    >>> pd.DataFrame({"q": [1, 1, 2], "y": [1, 0, 1]}).to_parquet(path)
    >>> file = ParquetColumns(path)
    >>> file.names, file.num_rows
    (['q', 'y'], 3)
    >>> [frame["y"].tolist() for frame in file.frames(["y"], batch_size=2)]
    [[1, 0], [1]]
    """

    def __init__(self, path):
        pq = pyarrow_parquet()
        self.path = as_path(path, "path")
        # (pyarrow's pre-buffering kept memory growing with the file, no faster)
        try:
            self._file = pq.ParquetFile(self.path, pre_buffer=False)
        except Exception as exc:  # pyarrow raises several types here
            raise ValueError(f"cannot read {self.path!r} as Parquet: {exc}") from None
        self.schema = self._file.schema_arrow
        self.names = list(self.schema.names)
        self.num_rows = self._file.metadata.num_rows

    def frames(self, columns, batch_size):
        """The named columns, ``batch_size`` rows at a time, in file order.

        Parameters
        ----------
        columns : list of str
            Column names of the file.
        batch_size : int
            Rows decoded at a time.

        Yields
        ------
        frame : pandas.DataFrame
            The columns of the next rows (at most ``batch_size``), indexed
            from 0.
        """
        for batch in self._file.iter_batches(batch_size=batch_size, columns=columns):
            yield batch.to_pandas()
