"""Peak memory and time of skndcg.streaming.score_parquet on a large Parquet file.

Writes a file of ``--rows`` rows sorted by query id (queries of 50 rows on
average; int64 ids, int8 labels 0-4, float32 scores; row groups of 1M rows) in
pieces, then measures two runs, each in a fresh process so that each peak RSS
is its own:

- pyarrow alone: ``ParquetFile.iter_batches`` over the three columns, each batch
  converted to pandas (what streaming has to read at least), with pyarrow's
  defaults and, as the streamed reader opens the file, without pre-buffering
  (``pre_buffer=False``);
- ``score_parquet`` with NDCG@10, MAP@10 and MRR, after a warm-up on a tiny file
  (the kernels' compile or cache load is not counted in the time, but its memory
  is in the peak);
- for scale, ``grouped_ranking_scores`` on the same rows already in memory (the
  time of the metrics alone, read not counted).

Several ``--rows`` values show how the peak grows with the file. Run from the
project root::

    python benchmarks/bench_stream.py [--rows 5000000 20000000] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

METRICS = ["ndcg@10", "map@10", "mrr"]
CHUNK = 1_000_000


def write_file(path, n_rows, seed=0):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_queries = max(1, n_rows // 50)
    # Sorted ids written chunk by chunk: never the whole file in memory.
    bounds = np.sort(rng.integers(0, n_rows, n_queries - 1))
    writer = None
    try:
        for start in range(0, n_rows, CHUNK):
            stop = min(n_rows, start + CHUNK)
            rows = np.arange(start, stop)
            qid = np.searchsorted(bounds, rows, side="right").astype(np.int64)
            table = pa.table(
                {
                    "qid": qid,
                    "label": rng.integers(0, 5, stop - start).astype(np.int8),
                    "score": rng.normal(size=stop - start).astype(np.float32),
                }
            )
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=CHUNK)
    finally:
        if writer is not None:
            writer.close()


def _child(kind, path):
    """Run in a fresh process: time one pass, report time and peak RSS."""
    import resource

    import pandas  # noqa: F401 - imported here, not inside the first to_pandas
    import pyarrow.parquet as pq

    if kind == "score":
        from skndcg.streaming import score_parquet

        tiny = Path(path).with_suffix(".tiny.parquet")
        write_file(tiny, 1000)
        cols = dict(qid_col="qid", label_col="label", score_col="score")
        score_parquet(tiny, METRICS, **cols)  # warm-up
        tiny.unlink()
        tic = time.perf_counter()
        result = score_parquet(path, METRICS, progress=False, **cols)
    elif kind == "memory":
        import pandas as pd

        from skndcg.metrics import grouped_ranking_scores

        frame = pd.read_parquet(path)
        y, s, q = (frame[c].to_numpy() for c in ("label", "score", "qid"))
        grouped_ranking_scores(y[:1000], s[:1000], q[:1000], METRICS)  # warm-up
        tic = time.perf_counter()
        result = grouped_ranking_scores(y, s, q, METRICS)
    else:
        tic = time.perf_counter()
        n = 0
        options = {"pre_buffer": False} if kind == "read_unbuffered" else {}
        for batch in pq.ParquetFile(path, **options).iter_batches(
            batch_size=1 << 20, columns=["qid", "label", "score"]
        ):
            n += len(batch.to_pandas())
        result = {"rows": n}
    elapsed = time.perf_counter() - tic
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"time": elapsed, "peak": peak, "result": result}))


def measure(kind, path):
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[5_000_000, 20_000_000])
    parser.add_argument("--dir", default=None, help="where to write the file")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return

    print(
        f"# score_parquet vs pyarrow reading alone; {platform.machine()} / "
        f"{os.cpu_count()} cores / Python {sys.version.split()[0]}"
    )
    print(
        "| rows | file (MB) | pyarrow read (s) | in-memory metrics (s) "
        "| score_parquet (s) | vs read | vs read + in-memory "
        "| peak RSS read (MiB) | peak RSS score (MiB) "
        "| read, no pre-buffer (s) | vs it | its peak RSS (MiB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for n_rows in args.rows:
            path = Path(tmp) / f"run_{n_rows}.parquet"
            write_file(path, n_rows)
            size = path.stat().st_size / 1e6
            read = measure("read", path)
            unbuffered = measure("read_unbuffered", path)
            memory = measure("memory", path)
            score = measure("score", path)
            for name in memory["result"]:
                assert abs(memory["result"][name] - score["result"][name]) < 1e-12
            mib = 1 << 20
            both = read["time"] + memory["time"]
            print(
                f"| {n_rows:,} | {size:.0f} | {read['time']:.2f} | "
                f"{memory['time']:.2f} | {score['time']:.2f} | "
                f"{score['time'] / read['time']:.2f}x | {score['time'] / both:.2f}x | "
                f"{read['peak'] / mib:.0f} | {score['peak'] / mib:.0f} | "
                f"{unbuffered['time']:.2f} | "
                f"{score['time'] / unbuffered['time']:.2f}x | "
                f"{unbuffered['peak'] / mib:.0f} |"
            )
            path.unlink()


if __name__ == "__main__":
    main()
