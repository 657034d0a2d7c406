"""The built-in task suite and the procedural families: every solution builds with nvcc, computes the
reference's answer (on the CPU, through the kernel emulator in `cuda_emu.py`), and `cudarl-wb tasks` works.

The emulator is proven first: planted kernels with the bugs a careful author still makes (no tail check,
a missing `__syncthreads`, a divergent barrier, writing an input, an unwritten output, a shuffle over
exited lanes, too little shared memory) must each be caught, so a passing solution means something.
The GPU check of every solution is `bench/suite_gpu.py`, run on a GPU machine (the `cuda` test at the end).
"""
import json, os, re, shutil, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

import cuda_emu
from cudarl_wb.tasks import get_task, procedural_tasks, tasks_by_tier

ROOT = Path(__file__).resolve().parents[1]


def builtin_solutions():
    "(task, kind, source) for every naive and optimised solution of the built-in suite."
    out = []
    for t in tasks_by_tier(family='builtin'):      # other tests may have registered KernelBench tasks in this process
        out.append((t, 'naive', t.solution))
        if t.optimized: out.append((t, 'optimized', t.optimized))
    return out


def procedural_sample():
    "36 procedural tasks: 20 from the training split, 16 held out, the three families mixed."
    return procedural_tasks(20, seed=1000, split='train') + procedural_tasks(16, seed=1000, split='heldout')


def in_pool(fn, items):
    "Map `fn` over `items` on two threads (the cores CI has)."
    with ThreadPoolExecutor(2) as ex: return list(ex.map(fn, items))


# ------------------------------------------------------------------ the suite's shape
def test_suite_size_and_tiers():
    ts = tasks_by_tier(family='builtin')
    assert len(ts) >= 40
    assert {t.tier for t in ts} == {0, 1, 2, 3}
    assert {'vector_add', 'relu', 'softmax_rows', 'matmul'} <= {t.name for t in ts}
    assert sum(any(p.dtype in ('float16', 'bfloat16') for p in t.params) for t in ts) >= 3
    for t in ts:
        assert t.solution and t.flops is not None, t.name
        assert len(t.shapes) >= 3 and any(any(v % 32 for v in s.values()) for s in t.shapes), t.name


def test_every_solution_file_belongs_to_a_task():
    names = {p.name.split('.')[0] for p in (ROOT / 'cudarl_wb/assets/solutions').glob('*.cu')}
    assert names == {t.name for t in tasks_by_tier(family='builtin')}


# ------------------------------------------------------------------ nvcc builds
def _build(item, tmp):
    from cudarl_wb.compiler import compile_candidate
    task, kind, src = item
    r = compile_candidate(src, task=task)          # with the task: the static check compares the launcher too
    spills = [k.spill_store_bytes + k.spill_load_bytes for k in r.kernels] or \
             [int(v) for v in re.findall(r'(\d+) bytes spill (?:stores|loads)', r.log)]
    why = '; '.join(f'{i.code}: {i.message}' for i in r.issues) + '\n' + r.log[-2000:]
    return task.name, kind, r.ok, why, spills


@pytest.fixture
def fresh_build_cache(tmp_path, monkeypatch):
    "A fresh nvcc cache, so the builds below really run nvcc."
    monkeypatch.setenv('CUDARL_CACHE', str(tmp_path))
    return tmp_path


def test_builtin_solutions_build_with_nvcc(fresh_build_cache):
    res = in_pool(lambda it: _build(it, fresh_build_cache), builtin_solutions())
    bad = [f'{n} ({k}):\n{log}' for n, k, ok, log, _ in res if not ok]
    assert not bad, '\n\n'.join(bad)
    spilling = [(n, k) for n, k, ok, log, sp in res if any(sp)]
    assert not spilling, f'register spills in {spilling}'
    assert len(res) >= 48


def test_procedural_solutions_build_with_nvcc(fresh_build_cache):
    sample = procedural_sample()
    assert {t.extra['split'] for t in sample} == {'sft', 'rl', 'test'}
    assert {t.extra['generator'] for t in sample} == {'elementwise', 'rowreduce', 'broadcast'}
    res = in_pool(lambda t: _build((t, 'naive', t.solution), fresh_build_cache), sample)
    bad = [f'{n}:\n{log}' for n, k, ok, log, _ in res if not ok]
    assert not bad, '\n\n'.join(bad)


# ------------------------------------------------------------------ the emulator catches planted bugs
RELU_NO_TAIL = r'''
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    y[i] = x[i] > 0.f ? x[i] : 0.f;          // no i < n check
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
'''
RELU_WRITES_INPUT = RELU_NO_TAIL.replace('y[i] = x[i] > 0.f ? x[i] : 0.f;          // no i < n check',
                                         'if (i < n) { y[i] = x[i] > 0.f ? x[i] : 0.f; ((float*)x)[i] = 0.f; }')
RELU_HALF_WRITTEN = RELU_NO_TAIL.replace('y[i] = x[i] > 0.f ? x[i] : 0.f;          // no i < n check',
                                         'if (i < n && i % 2 == 0) y[i] = x[i] > 0.f ? x[i] : 0.f;')
RELU_HUGE_BLOCK = RELU_NO_TAIL.replace('k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>', 'k<<<(unsigned)((n + 2047) / 2048), 2048, 0, stream>>>')

SUM_ROWS = (Path(__file__).resolve().parents[1] / 'cudarl_wb/assets/solutions/sum_rows.cu').read_text()
SUM_ROWS_NO_INNER_SYNC = SUM_ROWS.replace(
    '''        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();''', '''        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];''')
SUM_ROWS_DIVERGENT_SYNC = SUM_ROWS.replace(
    '''        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();''', '''        if (threadIdx.x < s) { partial[threadIdx.x] += partial[threadIdx.x + s]; __syncthreads(); }''')
SOFTMAX = (Path(__file__).resolve().parents[1] / 'cudarl_wb/assets/solutions/softmax_rows.cu').read_text()
SOFTMAX_SMALL_SMEM = SOFTMAX.replace('threads * sizeof(float), stream', 'threads * sizeof(float) / 2, stream')
SUM_ALL = (Path(__file__).resolve().parents[1] / 'cudarl_wb/assets/solutions/sum_all.cu').read_text()
SUM_ALL_SKIPS_ONE_PERCENT = SUM_ALL.replace('i < n; i += blockDim.x', 'i < n - n / 100; i += blockDim.x')
MATMUL = (Path(__file__).resolve().parents[1] / 'cudarl_wb/assets/solutions/matmul.cu').read_text()
MATMUL_HALF_SUMS = MATMUL.replace('#include <stdint.h>', '#include <stdint.h>\n#include <cuda_fp16.h>').replace(
    'acc += A[row * k + i] * B[i * n + col];', 'acc = __half2float(__float2half(acc + A[row * k + i] * B[i * n + col]));')
MATVEC_OPT = (Path(__file__).resolve().parents[1] / 'cudarl_wb/assets/solutions/matvec.opt.cu').read_text()
MATVEC_OPT_ODD_BLOCK = MATVEC_OPT.replace('int threads = 256;', 'int threads = 100;').replace(
    '>> 5;\n    if (row >= m) return;', '>> 5;\n    if (row >= m) row = m - 1;')


@pytest.mark.parametrize('task,source,expected', [
    ('relu', RELU_NO_TAIL, 'out-of-bounds access'),
    ('relu', RELU_WRITES_INPUT, 'write to read-only input'),
    ('relu', RELU_HALF_WRITTEN, 'wrong'),
    ('relu', RELU_HUGE_BLOCK, 'invalid launch: block (2048'),
    ('sum_rows', SUM_ROWS_NO_INNER_SYNC, 'wrong'),
    ('sum_rows', SUM_ROWS_DIVERGENT_SYNC, '__syncthreads reached by'),
    ('softmax_rows', SOFTMAX_SMALL_SMEM, 'out-of-bounds access extern __shared__'),
    ('matvec', MATVEC_OPT_ODD_BLOCK, 'has only 4 threads in this warp'),
    ('sum_all', SUM_ALL_SKIPS_ONE_PERCENT, 'wrong'),
    ('matmul', MATMUL_HALF_SUMS, 'wrong'),
], ids=['no-tail-check', 'writes-input', 'half-written', 'block-too-big', 'missing-syncthreads', 'divergent-syncthreads',
        'shared-too-small', 'shuffle-over-missing-lanes', 'sum-skips-1%', 'half-precision-sums'])
def test_emulator_catches_planted_bug(task, source, expected):
    t = get_task(task)
    shapes = [{'n': 1000}] if task == 'relu' else t.shapes[:1]      # relu's first shape, 1024, has no tail
    if task in ('sum_all', 'matmul'): shapes = t.shapes[:2]         # long sums, where rounding is largest
    r = cuda_emu.check(t, source, shapes=shapes)
    assert not r.ok and expected in r.message, r.message


def test_emulator_passes_the_fixed_solutions_and_reports_the_error_ratio():
    r = cuda_emu.check(get_task('softmax_rows'), SOFTMAX)
    assert r.ok, r.message
    assert r.fibers and [s[1] for s in r.shapes][:2] == ['forward', 'reverse']
    assert all(s[2] < 0.05 for s in r.shapes)


# ------------------------------------------------------------------ every solution computes the right thing
def _emulate(item):
    task, kind, src = item
    return task.name, kind, cuda_emu.check(task, src)


def test_builtin_solutions_correct_on_cpu_emulator():
    res = in_pool(_emulate, builtin_solutions())
    bad = [f'{n} ({k}): {r.message}' for n, k, r in res if not r.ok]
    assert not bad, '\n'.join(bad)
    # every task ran on at least one shape off a multiple of 32, in both thread orders
    for n, k, r in res:
        assert {'forward', 'reverse'} <= {s[1] for s in r.shapes}, (n, k)


def test_procedural_solutions_correct_on_cpu_emulator():
    res = in_pool(_emulate, [(t, 'naive', t.solution) for t in procedural_sample()])
    bad = [f'{n}: {r.message}\n{get_task(n).extra["math"]}' for n, k, r in res if not r.ok]
    assert not bad, '\n'.join(bad)


# ------------------------------------------------------------------ the CLI
def cli(*args, check=True, **env_vars):
    exe = shutil.which('cudarl-wb')
    cmd = [exe, *args] if exe else [sys.executable, '-m', 'cudarl_wb.cli', *args]
    env = {**os.environ, 'COLUMNS': '200', **env_vars}
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=300, env=env)


def test_cli_tasks_list_json():
    tasks = json.loads(cli('tasks', 'list', '--json').stdout)
    assert len(tasks) == len(tasks_by_tier(family='builtin')) >= 40
    mm = next(t for t in tasks if t['name'] == 'matmul')
    assert mm['shapes'][-1]['flops'] == 2 * 2048 ** 3 and mm['has_optimized']
    tier2 = json.loads(cli('tasks', 'list', '--tier', '2', '--json').stdout)
    assert tier2 and {t['tier'] for t in tier2} == {2}


def test_cli_tasks_list_table_and_procedural():
    out = cli('tasks', 'list', '--family', 'procedural', '--procedural', '4', '--split', 'heldout').stdout
    assert out.count('proc_') == 4
    out = cli('tasks', 'list').stdout
    assert 'softmax_rows' in out and 'attention' in out


def test_cli_tasks_show():
    r = cli('tasks', 'show', 'softmax_rows')
    assert 'extern "C" void launch' in r.stdout and 'naive solution' in r.stdout and 'rows=8192' in r.stdout
    d = json.loads(cli('tasks', 'show', 'proc_broadcast_5', '--json').stdout)
    assert d['family'] == 'procedural' and '__global__' in d['solution'] and d['extra']['split'] in ('sft', 'rl', 'val', 'test')
    assert 'matmul_tiled_kernel' in cli('tasks', 'show', 'matmul', '--optimized').stdout


def test_cli_tasks_show_unknown_fails_cleanly():
    r = cli('tasks', 'show', 'matmull', check=False)
    assert r.returncode == 1 and 'did you mean matmul' in r.stderr and 'Traceback' not in r.stderr
    r = cli('tasks', 'show', 'relu', '--optimized', check=False)
    assert r.returncode == 1 and 'no optimised solution' in r.stderr


def test_cli_eval_again_builds_nothing_times_no_reference_and_says_where_the_seconds_went(tmp_path):
    "A second `eval` in a new process reads the build (and, on a GPU, the reference times) from the cache."
    src = tmp_path / 'relu.cu'
    src.write_text(get_task('relu').solution)
    runs = [json.loads(cli('eval', str(src), '--task', 'relu', '--json', check=False, CUDARL_CACHE=str(tmp_path)).stdout)
            for _ in range(2)]
    assert [r['extra']['cache_hit'] for r in runs] == [False, True]
    for r in runs:
        secs = r['extra']['seconds']
        assert 'compile' in secs and 'total' in secs, secs
        parts = sum(v for k, v in secs.items() if k != 'total')
        assert parts <= secs['total'] + 1e-3 and secs['total'] - parts < 0.05 + 0.05 * secs['total'], secs
    assert runs[1]['extra']['seconds']['compile'] < runs[0]['extra']['seconds']['compile']
    if torch.cuda.is_available():
        assert runs[0]['verdict'] == runs[1]['verdict'] == 'correct'
        assert set(runs[1]['extra']['reference_cache'].values()) == {'disk'}, runs[1]['extra']
    out = cli('eval', str(src), '--task', 'relu', '--profile', check=False, CUDARL_CACHE=str(tmp_path)).stdout
    assert 'where the seconds went' in out and 'cache hit' in out, out


# ------------------------------------------------------------------ on the GPU
@pytest.mark.cuda
def test_every_solution_correct_on_gpu(tmp_path):
    "Every naive and optimised solution, and 36 procedural ones, correct on a GPU (bench/suite_gpu.py)."
    out = tmp_path / 'suite_gpu.json'
    r = subprocess.run([sys.executable, str(ROOT / 'bench/suite_gpu.py'), '--no-time', '--procedural', '36',
                        '--json', str(out)], capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-5000:] + r.stderr[-5000:]
    rows = json.loads(out.read_text())['rows']
    assert rows and all(row['correct'] for row in rows)
