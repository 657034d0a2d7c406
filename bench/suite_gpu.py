#!/usr/bin/env python
"""Every solution of the task suite on the GPU: correct on every shape, and timed against eager PyTorch.

For each built-in task (and optionally a sample of procedural ones) it builds the naive and the optimised
solution with `compile_candidate`, loads the library with ctypes and calls the launcher on fresh CUDA
tensors. Correctness: every shape, four trials on all but the timed shape (normal x1, uniform x100,
heavy-tailed x1, normal x0.01) and one on the timed shape; outputs poisoned with NaN before the call; inputs checked
unchanged after it; compared with the float64 reference r under `rtol |r| + atol rms(r) + 8 u (|m| + sqrt(K) |r|)`,
u = 2^-24, m the reference on the inputs' absolute values, K the task's reduction length. Timing, at the timed (last) shape: CUDA events around each call with
the L2 flushed (a 256 MiB write) before it, warm-up, then repetitions until 0.5 s or 200 runs; the median.
Eager PyTorch is timed the same way on the same inputs.

    python bench/suite_gpu.py                          # all built-in tasks, naive and optimised, timed
    python bench/suite_gpu.py --no-time                # correctness only (a few minutes)
    python bench/suite_gpu.py --procedural 36          # plus procedural tasks from both splits
    python bench/suite_gpu.py --tasks matmul,relu      # some tasks only
    python bench/suite_gpu.py --cudart shared          # link the CUDA runtime dynamically (nvcc -cudart shared)

Prints a table and writes JSON (default bench/results/suite_gpu.json). Exit status 0 when every solution
is correct, 1 when one is wrong, 2 when one crashed the CUDA context (the rest are then not run).
This is the suite's own check; the benchmarker (06_benchmarker) is the project's judge of candidates.
"""
from __future__ import annotations
import argparse, ctypes, json, math, os, platform, statistics, sys, time, traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch
from cudarl_wb.tasks import get_task, procedural_tasks, tasks_by_tier
from cudarl_wb.compiler import compile_candidate

TRIALS = [('normal', 1.0), ('uniform', 100.0), ('heavy', 1.0), ('normal', 0.01)]   # the benchmarker's input plan


def ctypes_launcher(lib_path: str, task):
    "The task's launcher from the built library, with argument types from the signature."
    lib = ctypes.CDLL(lib_path)
    fn = getattr(lib, task.launcher_name)
    conv = {'in': ctypes.c_void_p, 'out': ctypes.c_void_p, 'size': ctypes.c_int64, 'scalar': ctypes.c_double,
            'stream': ctypes.c_void_p}
    fn.argtypes = [conv[p.role] for p in task.params]
    fn.restype = None
    return lib, fn


def call(fn, task, sizes, inputs, outputs):
    ins, outs, args = iter(inputs), iter(outputs), []
    for p in task.params:
        if p.role == 'in': args.append(next(ins).data_ptr())
        elif p.role == 'out': args.append(next(outs).data_ptr())
        elif p.role in ('size', 'scalar'): args.append(sizes[p.name])
        else: args.append(torch.cuda.current_stream().cuda_stream)
    fn(*args)


def fresh_outputs(task, sizes):
    return [torch.full(tuple(s.shape), float('nan'), dtype=getattr(torch, s.dtype), device='cuda')
            if getattr(torch, s.dtype).is_floating_point else
            torch.full(tuple(s.shape), -1, dtype=getattr(torch, s.dtype), device='cuda') for s in task.outputs(sizes)]


U32 = 2.0 ** -24   # float32's unit roundoff


def compare(task, sizes, outputs, expected, magnitude):
    """(ok, worst error / bound, where) under the elementwise bound `rtol |r| + atol rms(r) + 8 u (|m| + sqrt(K) |r|)`:
    r the float64 reference, m the reference on the inputs' absolute values (the scale of rounding in sums of
    signed terms), K the reduction length (rounding in sums of same-sign terms grows with sqrt(K))."""
    K = max(1, task.reduction_length(sizes))
    worst = 0.0
    for i, (y, r, m) in enumerate(zip(outputs, expected, magnitude)):
        if tuple(y.shape) != tuple(r.shape): return False, math.inf, f'output {i} shape {tuple(y.shape)} != {tuple(r.shape)}'
        y64, r64 = y.double(), r.double()
        rms = r64.pow(2).mean().sqrt().item() if r64.numel() else 0.0
        bound = (task.rtol * r64.abs() + task.atol * rms + 8 * U32 * (m.double().abs() + math.sqrt(K) * r64.abs())).clamp_min(1e-300)
        err = (y64 - r64).abs()
        bad = ~(err <= bound) & ~((y64 == r64) & torch.isinf(r64))
        worst = max(worst, (err / bound).nan_to_num(math.inf).max().item() if err.numel() else 0.0)
        if bad.any():
            idx = torch.nonzero(bad.reshape(-1))[0].item()
            return False, worst, (f'output {i} flat[{idx}] = {y64.reshape(-1)[idx].item():.6g}, expected '
                                  f'{r64.reshape(-1)[idx].item():.6g} ({int(bad.sum())} of {bad.numel()} bad)')
    return True, worst, ''


def check(task, fn, seed=0):
    "Correctness on every shape. Returns (ok, worst ratio, message)."
    worst = 0.0
    for si, sizes in enumerate(task.shapes):
        trials = TRIALS if si < len(task.shapes) - 1 else TRIALS[:1]
        for ti, (dist, scale) in enumerate(trials):
            g = torch.Generator().manual_seed(seed + 1000 * si + ti)
            inputs = task.make_inputs(sizes, g, device='cuda', scale=scale, dist=dist)
            saved = [x.clone() for x in inputs]
            outputs = fresh_outputs(task, sizes)
            call(fn, task, sizes, inputs, outputs)
            torch.cuda.synchronize()
            label = f'{task.shape_label(sizes)} {dist}x{scale:g}'
            if any(not torch.equal(a, b) for a, b in zip(inputs, saved)): return False, worst, f'{label}: inputs modified'
            expected = task.run_reference([x.double() if x.is_floating_point() else x for x in inputs])
            magnitude = task.run_reference([x.double().abs() if x.is_floating_point() else x for x in inputs])
            ok, w, where = compare(task, sizes, outputs, expected, magnitude)
            worst = max(worst, w)
            if not ok: return False, worst, f'{label}: {where}'
            del inputs, saved, outputs, expected, magnitude
    return True, worst, ''


class Timer:
    "Median time of a call: events around it, L2 flushed before it, repetitions until a time budget."
    def __init__(self, budget_s=0.5, max_reps=200, min_reps=10):
        self.flush = torch.empty(256 * 2**20, dtype=torch.uint8, device='cuda')
        self.budget_s, self.max_reps, self.min_reps = budget_s, max_reps, min_reps

    def __call__(self, f) -> tuple[float, float]:
        for _ in range(3): f()
        torch.cuda.synchronize()
        times, t_end = [], time.perf_counter() + self.budget_s
        while len(times) < self.min_reps or (len(times) < self.max_reps and time.perf_counter() < t_end):
            self.flush.fill_(len(times) & 0xff)
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); f(); b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
        med = statistics.median(times)
        q = statistics.quantiles(times, n=4) if len(times) >= 4 else [med, med, med]
        return med, (q[2] - q[0]) / med if med else 0.0


def time_task(task, fn, timer):
    sizes = task.timing_shape
    inputs = task.make_inputs(sizes, torch.Generator().manual_seed(7), device='cuda')
    outputs = fresh_outputs(task, sizes)
    ms, spread = timer(lambda: call(fn, task, sizes, inputs, outputs))
    return ms, spread


def time_eager(task, timer):
    sizes = task.timing_shape
    inputs = task.make_inputs(sizes, torch.Generator().manual_seed(7), device='cuda')
    try: return timer(lambda: task.reference(*inputs))
    except Exception as e: return None, repr(e)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tasks', help='comma-separated task names (default: every built-in task)')
    ap.add_argument('--procedural', type=int, default=0, help='also check N procedural tasks (half train, half held out)')
    ap.add_argument('--no-time', action='store_true', help='correctness only')
    ap.add_argument('--no-optimized', action='store_true', help='naive solutions only')
    ap.add_argument('--cudart', choices=['static', 'shared'], default='static', help='how the .so links the CUDA runtime')
    ap.add_argument('--json', default=str(ROOT / 'bench/results/suite_gpu.json'))
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print('suite_gpu: no CUDA GPU visible to torch; nothing to do'); return 2

    tasks = [get_task(n) for n in args.tasks.split(',')] if args.tasks else tasks_by_tier(family='builtin')
    if args.procedural:
        h = args.procedural // 2
        tasks += procedural_tasks(args.procedural - h, seed=500, split='train') + procedural_tasks(h, seed=500, split='heldout')
    jobs = []
    for t in tasks:
        jobs.append((t, 'naive', t.solution))
        if t.optimized and not args.no_optimized: jobs.append((t, 'opt', t.optimized))
    flags = ('-cudart', 'shared') if args.cudart == 'shared' else ()
    major, minor = torch.cuda.get_device_capability(0)
    arch = f'sm_{major}{minor}'
    t0 = time.perf_counter()
    with ThreadPoolExecutor(min(16, os.cpu_count() or 2)) as ex:
        builds = list(ex.map(lambda j: compile_candidate(j[2], task=j[0], arch=arch, flags=flags), jobs))
    print(f'built {len(jobs)} solutions for {arch} in {time.perf_counter() - t0:.1f} s '
          f'({sum(b.ok for b in builds)} ok) on {torch.cuda.get_device_name(0)}', flush=True)

    timer = None if args.no_time else Timer()
    rows, crashed, eager_cache = [], False, {}
    for (task, kind, _), b in zip(jobs, builds):
        row = dict(task=task.name, kind=kind, tier=task.tier, family=task.family, correct=False, worst=None, message='',
                   ms=None, spread=None, eager_ms=None, speedup=None, gbps=None, tflops=None)
        rows.append(row)
        if crashed: row['message'] = 'not run (an earlier kernel crashed the CUDA context)'; continue
        if not b.ok:
            issues = '; '.join(f'{i.code}: {i.message}' for i in getattr(b, 'issues', []) or [])
            row['message'] = f'{getattr(b.verdict, "value", "did not build")}: ' + (issues or b.log[-300:]); continue
        try:
            lib, fn = ctypes_launcher(b.lib_path, task)
            ok, worst, msg = check(task, fn)
            row.update(correct=ok, worst=worst, message=msg)
            if ok and timer:
                ms, spread = time_task(task, fn, timer)
                if task.name not in eager_cache: eager_cache[task.name] = time_eager(task, timer)
                eager = eager_cache[task.name][0]
                s = task.timing_shape
                row.update(ms=ms, spread=spread, eager_ms=eager, speedup=eager / ms if eager else None,
                           gbps=task.nbytes(s) / ms / 1e6, tflops=task.nflops(s) / ms / 1e9)
        except Exception as e:
            row['message'] = f'crashed: {e!r}'[:500]
            try: torch.cuda.synchronize()
            except Exception: crashed = True
            traceback.print_exc()
        line = f'{task.name:24s} {kind:5s} {"ok   " if row["correct"] else "WRONG"} worst {row["worst"] or 0:8.2e}'
        if row['ms'] is not None:
            line += (f' | {row["ms"]:9.4f} ms ±{100 * row["spread"]:4.1f}% | eager {row["eager_ms"] or float("nan"):9.4f} ms'
                     f' | x{row["speedup"] or float("nan"):6.2f} | {row["gbps"]:7.1f} GB/s {row["tflops"]:7.2f} TFLOP/s')
        print(line + (f' | {row["message"]}' if row['message'] else ''), flush=True)

    out = Path(args.json); out.parent.mkdir(parents=True, exist_ok=True)
    meta = dict(device=torch.cuda.get_device_name(0), arch=arch, torch=torch.__version__, cuda=torch.version.cuda,
                python=platform.python_version(), cudart=args.cudart, timed=not args.no_time)
    out.write_text(json.dumps(dict(meta=meta, rows=rows), indent=1))
    n_ok = sum(r['correct'] for r in rows)
    print(f'\n{n_ok}/{len(rows)} solutions correct; JSON in {out}')
    for r in rows:
        if not r['correct']: print(f'  {r["task"]} ({r["kind"]}): {r["message"]}')
    return 2 if crashed else (0 if n_ok == len(rows) else 1)


if __name__ == '__main__':
    sys.exit(main())
