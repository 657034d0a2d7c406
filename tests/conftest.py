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
    skip = pytest.mark.skip(reason='needs an NVIDIA GPU (run these on a GPU machine)')
    for item in items:
        if 'cuda' in item.keywords: item.add_marker(skip)


# the real tiny model and three prompts (a long one, a mid one, a short one), shared by the agents and rollout tests
@pytest.fixture(scope='module')
def tiny():
    from cudarl_wb.models import build_model
    model, tok = build_model('tiny', seed=0)
    return model.eval(), tok


@pytest.fixture(scope='module')
def prompts(tiny):
    from cudarl_wb.agents import encode_prompt, generator_messages, optimizer_messages
    from cudarl_wb.tasks import get_task
    _, tok = tiny
    return [encode_prompt(tok, generator_messages(get_task('softmax_rows'))),
            encode_prompt(tok, optimizer_messages(get_task('relu'), get_task('relu').solution, 'Compiled for sm_90.')),
            encode_prompt(tok, 'short')]
