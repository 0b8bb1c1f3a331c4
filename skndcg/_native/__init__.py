"""Compiled-code infrastructure shared by the engine and the readers.

The lowest layer of the package (it imports nothing of skndcg):

- ``_jit``: how kernels are compiled (numba, cached on disk when it can be);
- ``_threads``: the thread pool that runs chunks of compiled work, its size
  (``SKNDCG_NUM_THREADS``) and the row-chunk policy of whole-array passes.

The metric engine (``skndcg.metrics``), the readers (``skndcg.io``) and the
resampling of ``skndcg.evaluation`` build on it, so none of them imports another
for its infrastructure. Importing this package loads nothing: numba is imported
with ``_jit``.
"""
