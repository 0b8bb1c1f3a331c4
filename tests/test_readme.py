"""The README's Python examples run and print what they claim."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code):
    namespace = {}
    exec(compile(code, str(README), "exec"), namespace)
    if "grouped_ndcg_score" in namespace and "search" not in namespace:
        ndcg = namespace["grouped_ndcg_score"]
        args = (namespace["y_true"], namespace["y_score"], namespace["qid"])
        assert round(ndcg(*args, k=3), 3) == 0.714
        assert round(ndcg(*args, k=3, convention="lightgbm"), 3) == 0.657
    if "search" in namespace:
        search = namespace["search"]
        assert search.best_params_ == {"estimator__num_leaves": 7}
        assert search.best_score_ == pytest.approx(0.433, abs=0.005)
