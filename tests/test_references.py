"""`Evaluator.warm_references`: the references of tasks to come compiled ahead, outside the card's lock.

On the CPU the evaluator compiles with Inductor's C++ backend when asked to (`torch_compile=True`), so the
same path runs here as on a GPU: jobs in the trusted workers, one per slot, each task compiled once.
"""
import pytest
from cudarl_wb.benchmarker import Evaluator
from cudarl_wb.tasks import get_task, procedural_tasks


def _check(ev, tasks):
    first = ev.warm_references(tasks)
    assert first['errors'] == [] and first['compiled'] == len(tasks) and first['compile_s'] > 0, first
    again = ev.warm_references(tasks)                       # compiled already: nothing is built twice
    assert again['compiled'] == 0 and again['errors'] == [], again
    timed = ev.warm_references(tasks, measure=True)         # then timed, one after the other
    assert timed['measured'] == len(tasks) and timed['compiled'] == 0
    for t in tasks:
        ref = ev.reference_times(t, measure=False)
        assert ref and ref['eager_ms'] > 0 and ref.get('compiled_ms', 0) > 0 and 'compile_error' not in ref, ref
    assert ev.warm_references(tasks, measure=True)['measured'] == 0   # at hand now


def test_warm_references_compiles_each_task_once_then_times_it(tmp_path, monkeypatch):
    monkeypatch.setenv('CUDARL_CACHE', str(tmp_path))        # no reference or Inductor entry from earlier runs
    with Evaluator(['cpu'], workers_per_device=2, timeout=60, torch_compile=True, reference_cache=False) as ev:
        _check(ev, [get_task('relu'), get_task('vector_add')])


@pytest.mark.cuda
def test_warm_references_on_a_gpu(tmp_path, monkeypatch):
    monkeypatch.setenv('CUDARL_CACHE', str(tmp_path))
    with Evaluator(['cuda:0'], workers_per_device=3, reference_cache=False) as ev:
        _check(ev, procedural_tasks(3, seed=4242, split='train'))


@pytest.mark.cuda
def test_reference_timings_repeat_on_a_gpu(tmp_path, monkeypatch):
    # two evaluators, each compiling every reference just before its timing, agree: eager within 5%, compiled within 25%
    monkeypatch.setenv('CUDARL_CACHE', str(tmp_path))
    tasks = procedural_tasks(4, seed=4242, split='train')
    runs = []
    for _ in range(2):
        with Evaluator(['cuda:0'], reference_cache=False, timing='ratio') as ev: runs.append([ev.reference_times(t) for t in tasks])
    for a, b in zip(*runs):
        assert 0.95 < a['eager_ms'] / b['eager_ms'] < 1.05 and 0.8 < a['compiled_ms'] / b['compiled_ms'] < 1.25, (a, b)
