"""Fit a Pipeline step by step so that eval sets see the same preprocessing (a
Pipeline hands ``eval_set`` to its final step untouched); the Pipeline ends up
fitted exactly as by ``Pipeline.fit``, step objects included."""

from sklearn.utils.metadata_routing import get_routing_for_object


def _split_params(node, params, routing):
    """Parameters for the preprocessing of ``node`` and for its last step."""
    name, last = node.steps[-1]
    if routing:
        try:
            wanted = get_routing_for_object(last).consumes(
                method="fit", params=set(params)
            )
        except AttributeError:  # pragma: no cover - estimators without routing
            wanted = set()
        rest = {k: v for k, v in params.items() if k not in wanted}
        return rest, {k: v for k, v in params.items() if k in wanted}
    prefix = f"{name}__"
    own = {k[len(prefix) :]: v for k, v in params.items() if k.startswith(prefix)}
    rest = {k: v for k, v in params.items() if not k.startswith(prefix)}
    return rest, own


def fit_with_eval(pipeline, X, y, eval_X, params, routing, check):
    """Fit ``pipeline`` (a clone) level by level, but its final step.

    ``params`` are prefixed by step name when ``routing`` is off, bare names
    when it is on; ``check(final, Xt, eval_Xt)`` runs on what the final step
    will see. Returns ``(final, Xt, eval_Xt, final_params)``.
    """
    node = pipeline
    Xt = X
    while hasattr(node, "steps"):
        rest, own = _split_params(node, params, routing)
        if len(node.steps) > 1:
            pre = node[:-1]  # shares the step objects with the Pipeline
            Xt = pre.fit_transform(Xt, y, **rest)
            eval_X = [pre.transform(X_val) for X_val in eval_X]
        elif rest:
            raise TypeError(
                f"QueryRanker.fit: fit parameters {sorted(rest)} match no step of "
                "the Pipeline."
            )
        node, params = node.steps[-1][1], own
    check(node, Xt, eval_X)
    return node, Xt, eval_X, params
