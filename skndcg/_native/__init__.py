"""Compiled-code infrastructure (numba kernels, the thread pool, written
modules), the lowest layer of the package; importing it loads no compiler."""
