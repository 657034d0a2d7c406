"`cudarl-wb evaluate`: the project's own solutions judged as a folder of kernels, through the real console script."
import json, shutil, subprocess, sys
import pytest
from cudarl_wb.tasks import TASKS, load_solution


def run(*args, check=True, timeout=900):
    exe = shutil.which('cudarl-wb')
    cmd = [exe, *args] if exe else [sys.executable, '-m', 'cudarl_wb.cli', *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=timeout)


@pytest.fixture(scope='module')
def solutions(tmp_path_factory):
    "Every built-in task's naive solution as `<task>.cu`, plus one file that cannot build."
    d = tmp_path_factory.mktemp('kernels')
    for name, t in TASKS.items():
        if t.family == 'builtin' and t.solution: (d/f'{name}.cu').write_text(load_solution(name))
    (d/'relu.cu').write_text('__global__ void k(float* y) { y[0] = ; }')     # a syntax error
    return d


def _summary(out):
    return json.loads((out/'summary.json').read_text())['rows']


def test_kernels_folder_on_cpu_compiles_all_but_the_broken_one(solutions, tmp_path):
    r = run('evaluate', '--kernels', str(solutions), '--tasks', 'builtin', '--out', str(tmp_path))
    rows = _summary(tmp_path)
    n = rows['all']['tasks']
    assert n == len(list(solutions.glob('*.cu')))
    assert rows['all']['compile_rate'] == pytest.approx((n - 1) / n)
    assert 'fast_1.2' in r.stdout and (tmp_path/'fast_p.png').exists()
    assert sum(1 for _ in open(tmp_path/'results.jsonl')) == n


@pytest.mark.cuda
def test_kernels_folder_on_gpu_every_solution_is_correct(solutions, tmp_path):
    run('evaluate', '--kernels', str(solutions), '--tasks', 'builtin', '--out', str(tmp_path))
    rows = _summary(tmp_path)
    n = rows['all']['tasks']
    assert rows['all']['fast_0'] == pytest.approx((n - 1) / n)          # all but the broken relu
    assert rows['all']['geomean_eager'] is not None


def test_needs_a_model_or_kernels(tmp_path):
    r = run('evaluate', '--out', str(tmp_path), check=False)
    assert r.returncode != 0 and 'one of them' in (r.stderr + r.stdout)
