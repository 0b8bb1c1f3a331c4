"""The command line's exit codes and its one error type."""

#: 0: done; 1: a --fail-under (or monitor) threshold was crossed; 2: a problem
#: with the command line or its input.
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line or its input files (exit code 2)."""
