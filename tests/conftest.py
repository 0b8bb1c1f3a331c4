import os
from pathlib import Path

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

# The Spark tests start a JVM: `make test-spark` runs them, `make test` leaves them out.
collect_ignore = [] if os.environ.get("SKNDCG_SPARK_TESTS") else ["test_spark.py"]

# Compiled kernels make the first example of a run slow; no deadline then.
# The default profile keeps `make test` short on two busy cores (each run
# draws new examples); HYPOTHESIS_PROFILE=ci draws more, reproducibly.
settings.register_profile(
    "default",
    deadline=None,
    max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=100,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


_TORCH_DIR = Path(__file__).parent / "peers_torch"


# --peers-torch is registered in the conftest.py at the repository root.


def pytest_ignore_collect(collection_path, config):
    # make test never installs torch, so the torchmetrics tests are not even
    # collected there; make test-peers passes --peers-torch.
    if collection_path == _TORCH_DIR and not config.getoption("--peers-torch"):
        return True
    return None
