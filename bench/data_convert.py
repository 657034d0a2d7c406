"""How fast problems convert, and what the Sakana shim costs on the GPU.

CPU part (any machine): KernelBench folder → tasks, per problem, in the isolated worker and in-process.
GPU part (with CUDA): the archive's vectorised ReLU through `sakana_to_launcher` (shim, output buffer
handed to the host code's first allocation) against torch.relu and against a naive copy-out variant, at
16M floats; median of 100 timed runs with an L2 flush before each.

    python bench/data_convert.py [--kernelbench DIR] [--out bench/results/data_convert.json]
    python bench/data_convert.py --table KernelBench/KernelBench [--levels 1 2 3 4]   # converted / skipped by reason, per level
"""
import argparse, ctypes, json, statistics, sys, time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cudarl_wb.data import load_kernelbench, sakana_to_launcher, convert_problem, task_from_spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def cpu_part(folder):
    rows = []
    for isolate in (True, False):
        t0 = time.perf_counter()
        tasks, skipped = load_kernelbench(folder, isolate=isolate)
        dt = time.perf_counter() - t0
        n = len(tasks) + len(skipped)
        rows.append(dict(what=f'kernelbench {"worker" if isolate else "in-process"}', problems=n, tasks=len(tasks),
                         seconds=round(dt, 2), per_problem_s=round(dt / max(n, 1), 3)))
    return rows


def conversion_table(folder, levels=(1, 2, 3, 4), timeout=60.0):
    "Per level: files, converted, scaled down, and the skipped problems by reason (KernelBench's own layout)."
    rows = []
    for level in levels:
        t0 = time.perf_counter()
        tasks, skipped = load_kernelbench(folder, level=level, timeout=timeout)
        reasons, which = {}, {}
        for s in skipped:
            reasons[s.reason] = reasons.get(s.reason, 0) + 1
            which.setdefault(s.reason, []).append(Path(s.path).stem)
        rows.append(dict(level=level, files=len(tasks) + len(skipped), converted=len(tasks),
                         scaled=sum(bool(t.extra.get('scaled')) for t in tasks), seconds=round(time.perf_counter() - t0, 1),
                         skipped=dict(sorted(reasons.items(), key=lambda kv: -kv[1])), skipped_files=which,
                         notes={t.name: t.extra['notes'] for t in tasks if t.extra.get('notes')}))
        print(f"level {level}: {rows[-1]['converted']}/{rows[-1]['files']} converted ({rows[-1]['scaled']} scaled down), "
              f"{rows[-1]['seconds']} s; skipped: {rows[-1]['skipped']}", flush=True)
        for reason, stems in which.items(): print(f'  {reason}: {", ".join(stems)}', flush=True)
    return rows


def gpu_part():
    from cudarl_wb.compiler import compile_candidate
    rows = json.loads((ROOT/'tests/data/sakana_rows.json').read_text())
    relu = next(r for r in rows if r['Kernel_Name'] == 'relu_vec4_base')
    src = relu['PyTorch_Code_Functional'].replace('batch_size = 16\ndim = 16384', 'batch_size = 1024\ndim = 16384')
    task = task_from_spec(convert_problem(src, 'relu', 'relu', 1)['spec'])
    launcher = sakana_to_launcher(relu['CUDA_Code'], task)
    # the same kernel with the output elision defeated: every call pays a copy into the output buffer
    copy_out = launcher.replace('if (!s.out_taken && t.nbytes() == s.out_bytes)', 'if (false)')
    sizes = task.timing_shape
    x = torch.randn(sizes['d0'], sizes['d1'], device='cuda')
    flush = torch.empty(256 << 20, dtype=torch.uint8, device='cuda')
    out = torch.empty_like(x)
    stream = torch.cuda.current_stream().cuda_stream

    def timed(fn, reps=100):
        for _ in range(3): fn()
        ts = []
        for _ in range(reps):
            flush.zero_(); s, e = torch.cuda.Event(True), torch.cuda.Event(True)
            s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
        return statistics.median(ts)

    def lib_fn(source):
        r = compile_candidate(source)
        assert r.ok, r.log[-2000:]
        f = getattr(ctypes.CDLL(r.lib_path), task.launcher_name)
        args = [ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(out.data_ptr()), ctypes.c_int64(sizes['d0']),
                ctypes.c_int64(sizes['d1']), ctypes.c_void_p(stream)]
        return lambda: f(*args)

    res = []
    for name, fn in (('torch.relu', lambda: torch.relu(x)),
                     ('archive relu via shim (output elided)', lib_fn(launcher)),
                     ('archive relu via shim (copy-out)', lib_fn(copy_out))):
        ms = timed(fn)
        res.append(dict(what=name, elements=x.numel(), median_ms=round(ms, 4), gbps=round(2 * x.numel() * 4 / ms / 1e6, 1)))
    lib_fn(launcher)(); torch.cuda.synchronize()
    assert torch.equal(out, torch.relu(x)), 'converted kernel is wrong'
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--kernelbench', default=str(ROOT/'tests/data/kernelbench'))
    ap.add_argument('--out', default=str(ROOT/'bench/results/data_convert.json'))
    ap.add_argument('--table', metavar='DIR', help="KernelBench's own problem folder: print the conversion table per level")
    ap.add_argument('--levels', type=int, nargs='+', default=[1, 2, 3, 4])
    a = ap.parse_args()
    if a.table:
        rows = conversion_table(a.table, a.levels)
        out = Path(a.out).with_name('data_convert_table.json')
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, indent=2))
        print('wrote', out)
        return
    result = {'device': torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'cpu', 'cpu': cpu_part(a.kernelbench)}
    if torch.cuda.is_available(): result['gpu'] = gpu_part()
    for part in ('cpu', 'gpu'):
        for r in result.get(part, []): print('  '.join(f'{k}={v}' for k, v in r.items()))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=2))
    print('wrote', a.out)


if __name__ == '__main__':
    main()
