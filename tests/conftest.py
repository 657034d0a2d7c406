import pytest


def _has_gpu():
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    "Tests marked `cuda` skip themselves where there is no GPU."
    if _has_gpu(): return
    skip = pytest.mark.skip(reason='needs an NVIDIA GPU (run on the device)')
    for item in items:
        if 'cuda' in item.keywords: item.add_marker(skip)
