"""Runs and qrels given as ``{qid: {doc_id: value}}`` mappings (as in
pytrec_eval, ir_measures and ranx) or ranx objects, as the readers' DataFrames."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

from ._pandas import pd

_VALUE = {"run": "score", "qrels": "relevance"}


def as_frame(obj, kind: str):
    """``obj`` as a run or qrels DataFrame (a DataFrame is returned as is)."""
    if isinstance(obj, pd.DataFrame):
        return obj
    if type(obj).__module__.split(".")[0] == "ranx" and hasattr(obj, "to_dict"):
        obj = obj.to_dict()
    if not isinstance(obj, Mapping):
        raise TypeError(
            f"{kind} must be a pandas DataFrame such as read_trec_{kind} returns, "
            f"a mapping {{qid: {{doc_id: {_VALUE[kind]}}}}} or a ranx "
            f"{'Run' if kind == 'run' else 'Qrels'}, got {type(obj).__name__}."
        )
    qids, docs, values = [], [], []
    for qid, ranking in obj.items():
        if not isinstance(ranking, Mapping):
            raise TypeError(
                f"{kind}[{qid!r}] must be a mapping {{doc_id: {_VALUE[kind]}}}, "
                f"got {type(ranking).__name__}."
            )
        for doc, value in ranking.items():
            where = f"{kind}[{qid!r}][{doc!r}]"
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise ValueError(f"{where} = {value!r} must be a number.")
            if kind == "run" and not math.isfinite(float(value)):
                raise ValueError(f"{where} = {value!r}: scores must be finite.")
            if kind == "qrels" and not float(value).is_integer():
                raise ValueError(
                    f"{where} = {value!r}: judgments must be integers, as in a "
                    "qrels file."
                )
            qids.append(str(qid))
            docs.append(str(doc))
            values.append(value)
    column = _VALUE[kind]
    frame = pd.DataFrame({"qid": qids, "doc_id": docs, column: values})
    frame[column] = frame[column].astype("float64" if kind == "run" else "int64")
    if kind == "run":
        frame["tag"] = getattr(obj, "name", None) or "run"
    return frame
