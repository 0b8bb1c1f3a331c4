"""Metadata routing helpers of QueryRanker."""

from __future__ import annotations

from sklearn import get_config
from sklearn.utils.metadata_routing import get_routing_for_object


def routing_enabled() -> bool:
    return bool(get_config().get("enable_metadata_routing", False))


def request_on_clone(estimator, path, keys):
    """Make the private clone's steps ask for the metadata QueryRanker passes.

    With routing enabled a Pipeline only forwards requested metadata: the final
    step is made to request ``keys``; other steps that left one of them unset
    are made not to request it (the user did not ask them to).
    """
    steps = []
    node = estimator
    for name in path:
        steps.extend(step for _, step in node.steps[:-1] if hasattr(step, "fit"))
        node = dict(node.steps)[name]
    node.set_fit_request(**dict.fromkeys(keys, True))
    for step in steps:
        fit_request = getattr(get_routing_for_object(step), "fit", None)
        pending = getattr(fit_request, "requests", {})
        unset = {k: False for k in keys if k in pending and pending[k] is None}
        if unset and hasattr(step, "set_fit_request"):
            step.set_fit_request(**unset)
