"""
===============================================
NDCG@10 in a PyTorch Lightning validation step
===============================================

A common way to validate a ranking model in PyTorch Lightning moves every
batch to numpy and loops over queries in Python. :class:`skndcg.torch.RankingMetric`
keeps the rows on the model's device instead: ``validation_step`` hands it
the scores, labels and query ids of the batch, and Lightning calls
``compute()`` once per epoch, ranking every query at once with segment
operations. The value is exactly what :mod:`skndcg.metrics` gives on the same
rows, and under DDP the states of all processes are concatenated first.

This example needs torch, torchmetrics and lightning (the ``peers-torch``
extra); it is not executed when the documentation is built.
"""

# %%
# Data: queries of 20 candidates with graded labels
# --------------------------------------------------
import os

import numpy as np
import torch

quick = os.environ.get("SKNDCG_EXAMPLE_QUICK") == "1"
rng = np.random.default_rng(0)
n_queries, n_items, n_features = (200 if quick else 2000), 20, 8
weights = rng.normal(size=n_features)
X = rng.normal(size=(n_queries * n_items, n_features))
relevance = X @ weights + rng.normal(0, 2.0, len(X))
y = np.digitize(relevance, np.quantile(relevance, [0.6, 0.85, 0.95]))
qid = np.repeat(np.arange(n_queries), n_items)
split = int(0.8 * n_queries) * n_items

data = [torch.tensor(a) for a in (X.astype(np.float32), y, qid)]
train = torch.utils.data.TensorDataset(*(a[:split] for a in data))
valid = torch.utils.data.TensorDataset(*(a[split:] for a in data))

# %%
# The module: one metric object, logged from validation_step
# -----------------------------------------------------------
import lightning as L

from skndcg.torch import RankingMetric


class Ranker(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(n_features, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)
        )
        self.val_ndcg = RankingMetric("ndcg@10")

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def training_step(self, batch, batch_idx):
        x, label, _ = batch
        return torch.nn.functional.mse_loss(self(x), label.float())

    def validation_step(self, batch, batch_idx):
        x, label, query = batch
        self.val_ndcg.update(self(x), label, query)
        # Logging the Metric object: Lightning calls compute() at epoch end.
        self.log("val_ndcg@10", self.val_ndcg, on_step=False, on_epoch=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-2)


torch.manual_seed(0)
model = Ranker()
trainer = L.Trainer(
    max_epochs=2 if quick else 5,
    accelerator="cpu",
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
)
# Validation batches cut queries in two: the metric joins them at compute().
loaders = dict(
    train_dataloaders=torch.utils.data.DataLoader(train, batch_size=256, shuffle=True),
    val_dataloaders=torch.utils.data.DataLoader(valid, batch_size=300),
)
trainer.fit(model, **loaders)
logged = float(trainer.callback_metrics["val_ndcg@10"])
print(f"val NDCG@10 logged by Lightning: {logged:.4f}")

# %%
# The same number from skndcg.metrics
# ------------------------------------
from skndcg.metrics import grouped_ndcg_score

with torch.no_grad():
    scores = model(valid.tensors[0]).numpy()
reference = grouped_ndcg_score(valid.tensors[1].numpy(), scores,
                               valid.tensors[2].numpy(), k=10)  # fmt: skip
print(f"grouped_ndcg_score on the same rows:  {reference:.4f}")

# %%
# A look at the validation queries' NDCG@10 by label mix.
import matplotlib.pyplot as plt

from skndcg.metrics import ranking_report

report = ranking_report(valid.tensors[1].numpy(), scores, valid.tensors[2].numpy())
fig, ax = plt.subplots(figsize=(5, 3))
ax.hist(report["ndcg@10"].dropna(), bins=20)
ax.set(xlabel="NDCG@10 of a validation query", ylabel="queries")
fig.tight_layout()
