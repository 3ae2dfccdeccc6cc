"""``get_worker_info`` (``torch/utils/data/_utils/worker.py``): minigrad's `DataLoader` loads
in the main process, so there is never a worker to describe."""


def get_worker_info():
    """None: code runs in the main process (``torch.utils.data.get_worker_info``), as in
    PyTorch with ``num_workers=0``. An `IterableDataset` that splits its work per worker
    therefore yields everything once."""
    return None
