"""Every registered task's naive solution (and optimised one, where there is one) is judged correct on the GPU.

Run on a GPU machine: `pytest -m cuda tests/test_builtin_gpu.py -v -s`. Correctness only for the whole
suite (fast), then the four fixed tasks timed against eager PyTorch and torch.compile.
"""
import pytest


@pytest.fixture(scope='module')
def ev():
    from cudarl_wb.benchmarker import Evaluator
    with Evaluator() as e:
        yield e


def _pairs():
    from cudarl_wb.tasks import TASKS
    pairs = []
    for t in TASKS.values():
        if t.solution: pairs.append((t, 'solution', t.solution))
        if t.optimized: pairs.append((t, 'optimized', t.optimized))
    return pairs


@pytest.mark.cuda
def test_every_builtin_solution_is_correct(ev):
    pairs = _pairs()
    results = ev.evaluate_many([(t, src) for t, _, src in pairs], time_it=False)
    bad = []
    for (t, kind, _), r in zip(pairs, results):
        print(f'{t.name:28s} {kind:9s} {r.verdict.value:10s} {r.message[:160]}')
        if not r.correct: bad.append((t.name, kind, r.message))
    assert not bad, bad


@pytest.mark.cuda
@pytest.mark.parametrize('name', ['vector_add', 'relu', 'softmax_rows', 'matmul'])
def test_fixed_tasks_are_timed(ev, name):
    from cudarl_wb.tasks import get_task
    t = get_task(name)
    r = ev.evaluate(t, t.solution)
    print(f'{name}: {r.message}')
    assert r.correct and r.kernel_ms > 0 and r.eager_ms > 0 and r.speedup_eager > 0, r.message
    assert r.kernel_spread < 0.2, r.kernel_spread
    assert r.achieved_gbps > 0 and 0 < r.peak_fraction < 1.5, (r.achieved_gbps, r.peak_fraction)
    assert 'suspicious-speedup' not in r.flags, r.flags
