"""How the command line speaks to its caller: under the name of the command
it was called as, and in flags (read from its own parser) rather than Python
keywords (see :func:`speak`)."""

from __future__ import annotations

import re
import sys
import warnings
from contextlib import contextmanager

_CALLER = {"prog": "skndcg", "flags": {}, "switches": set()}

# A Python keyword and its value: name='text', name="text", name=token or
# name= alone; not a keyword inside a longer name (ndcg(p=0.5) keeps p=0.5
# unless p is an option), nor a value that is a list or a call.
_KEYWORD = re.compile(
    r"(?<![\w.\-])([a-z][a-z0-9_]*)="
    r"(?:'([^']*)'|\"([^\"]*)\"|([\w.+\-:]*))"
    r"(?![\w\[({])"
)


# The library's names that no option stands for, in the command line's words.
_WORDS = (
    (re.compile(r"\by_true labels\b"), "labels"),
    (re.compile(r"\by_true (has|must)\b"), lambda m: f"the labels {_verb(m)}"),
    (re.compile(r"\by_score (has|must)\b"), lambda m: f"the scores {_verb(m)}"),
    (re.compile(r"\by_true\b"), "the labels"),
    (re.compile(r"\by_score\b"), "the scores"),
    (re.compile(r"\bgain='(\w+)'"), lambda m: f"{m.group(1)} gain"),
    # Columns of the Python report that `score --model-qrels` does not print.
    (
        re.compile(r"intervals and se rest on (.*?) they are too narrow"),
        r"intervals rest on \1 they are too narrow and var. removed too high",
    ),
    (re.compile(r"exactly and sd_residual is 0"), "exactly and leaves no residual"),
    # Advice a command without --min-queries cannot follow.
    (re.compile(r"\bmin_queries=(\d+)\)"), r"\1)"),
    (
        re.compile(r" \(prediction_\w+ says how many\)|,? or pass min_queries=0[^.]*"),
        "",
    ),
)


def _verb(match):
    return "have" if match.group(1) == "has" else match.group(1)


def set_caller(prog, parser):
    """Remember the command's name and the options of its ``parser``."""
    flags, switches = {}, set()
    for action in getattr(parser, "_actions", ()):
        long = [o for o in action.option_strings if o.startswith("--")]
        if long:
            flags[action.dest] = long[0]
            if action.nargs == 0:
                switches.add(action.dest)
    _CALLER.update(prog=prog, flags=flags, switches=switches)


def prog() -> str:
    """The command's name, as called (``skndcg trec_eval``)."""
    return _CALLER["prog"]


def speak(message: str, **sources) -> str:
    """``message`` with the keywords that are the command's options written
    as those options, and the arrays named in ``sources`` (``y_model=
    "--model-qrels llm.txt"``) as where they came from.

    Examples
    --------
    >>> from skndcg.cli._language import _CALLER, speak
    >>> _CALLER.update(flags={"empty_windows": "--empty-windows"}, switches=set())
    >>> speak("pass empty_windows='keep' to keep it")
    'pass --empty-windows keep to keep it'
    """
    flags, switches = _CALLER["flags"], _CALLER["switches"]

    def option(match):
        name = match.group(1)
        if name not in flags:
            return match.group(0)
        value = next((g for g in match.groups()[1:] if g is not None), "")
        if name in switches or not value:
            return flags[name]
        return f"{flags[name]} {value}"

    message = _KEYWORD.sub(option, message)
    for array, source in sources.items():
        message = re.sub(rf"\b{array}\b", lambda _, s=source: s, message)
    for pattern, words in _WORDS:
        if "gain" in flags and "gain" in pattern.pattern:
            continue  # (a command with a --gain option says it as the flag)
        message = pattern.sub(words, message)
    return message


def error(message) -> None:
    """Print ``message`` as the command's one-line error on stderr."""
    text = speak(" ".join(str(message).split()))
    print(f"{prog()}: error: {text}", file=sys.stderr)


def note(message) -> None:
    """Print ``message`` as a note of the command on stderr."""
    print(f"{prog()}: {speak(message)}", file=sys.stderr)


@contextmanager
def small_sample_notes():
    """Say the library's :class:`~skndcg.evaluation.SmallSampleWarning` issued
    within as notes of the command, in its words; other warnings as they are."""
    from ..evaluation import SmallSampleWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SmallSampleWarning)
        yield
    for warning in caught:
        if issubclass(warning.category, SmallSampleWarning):
            note(str(warning.message))
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
