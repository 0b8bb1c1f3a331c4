"""Compiled-code infrastructure shared by the engine and the readers, the
lowest layer of the package: ``_jit`` (numba kernels, cached on disk when it
can be), ``_threads`` (the thread pool and the row-chunk policy) and
``_written`` (modules written so that numba caches them). Importing it loads
nothing; numba is imported on a kernel's first call.
"""
