#!/usr/bin/env python
"""Every solution of the task suite on the GPU, judged by the project's `Evaluator`: correct, and timed.

For each built-in task (and optionally a sample of procedural ones) it judges the naive and the optimised
solution with `Evaluator.evaluate_many`, as the trainer judges candidates: built with nvcc on CPU threads,
run in a sandbox worker, every shape over five trials (fresh inputs from five distributions and scales,
NaN-poisoned outputs, guard zones, inputs compared after the call, the float64 reference under the
benchmarker's tolerance rule), then timed at the timing shape (L2 flushed, rotated buffer sets, adaptive
repetitions) against eager PyTorch and torch.compile, timed the same way.

    python bench/suite_gpu.py                          # all built-in tasks, naive and optimised, timed
    python bench/suite_gpu.py --no-time                # correctness only (a few minutes)
    python bench/suite_gpu.py --procedural 36          # plus procedural tasks from both splits
    python bench/suite_gpu.py --tasks matmul,relu      # some tasks only
    python bench/suite_gpu.py --cudart shared          # link the CUDA runtime dynamically (nvcc -cudart shared)

Prints a table and writes JSON (default bench/results/suite_gpu.json). Exit status 0 when every solution
is correct, 1 when one is not, 2 without a GPU.
"""
from __future__ import annotations
import argparse, json, platform, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch
from cudarl_wb.benchmarker import Evaluator
from cudarl_wb.tasks import get_task, procedural_tasks, tasks_by_tier


def jobs_for(args) -> list:
    "(task, kind, source) for every solution asked for."
    tasks = [get_task(n) for n in args.tasks.split(',')] if args.tasks else tasks_by_tier(family='builtin')
    if args.procedural:
        h = args.procedural // 2
        tasks += procedural_tasks(args.procedural - h, seed=500, split='train') + procedural_tasks(h, seed=500, split='heldout')
    jobs = []
    for t in tasks:
        jobs.append((t, 'naive', t.solution))
        if t.optimized and not args.no_optimized: jobs.append((t, 'opt', t.optimized))
    return jobs


def row_of(task, kind, r) -> dict:
    return dict(task=task.name, kind=kind, tier=task.tier, family=task.family, verdict=r.verdict.value, correct=r.correct,
                worst=max((c.max_rel_err or 0.0 for c in r.checks), default=None), message=r.message, flags=list(r.flags),
                ms=r.kernel_ms, spread=r.kernel_spread, eager_ms=r.eager_ms, compiled_ms=r.compiled_ms,
                speedup=r.speedup_eager, speedup_compile=r.speedup_compile, gbps=r.achieved_gbps,
                tflops=r.achieved_tflops, peak_fraction=r.peak_fraction)


def print_row(row):
    f = lambda v, spec: '—' if v is None else format(v, spec)
    line = f'{row["task"]:24s} {row["kind"]:5s} {"ok   " if row["correct"] else "WRONG"} worst {row["worst"] or 0:8.2e}'
    if row['ms'] is not None:
        line += (f' | {row["ms"]:9.4f} ms ±{100 * (row["spread"] or 0):4.1f}% | eager {f(row["eager_ms"], "9.4f")} ms'
                 f' | x{f(row["speedup"], "6.2f")} | {f(row["gbps"], "7.1f")} GB/s {f(row["tflops"], "7.2f")} TFLOP/s')
    print(line + ('' if row['correct'] else f' | {row["message"][:200]}'), flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tasks', help='comma-separated task names (default: every built-in task)')
    ap.add_argument('--procedural', type=int, default=0, help='also check N procedural tasks (half train, half held out)')
    ap.add_argument('--no-time', action='store_true', help='correctness only')
    ap.add_argument('--no-optimized', action='store_true', help='naive solutions only')
    ap.add_argument('--no-compile', action='store_true', help='skip the torch.compile baseline')
    ap.add_argument('--cudart', choices=['static', 'shared'], default='static', help='how the .so links the CUDA runtime')
    ap.add_argument('--json', default=str(ROOT / 'bench/results/suite_gpu.json'))
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print('suite_gpu: no CUDA GPU visible to torch; nothing to do'); return 2
    jobs = jobs_for(args)
    flags = ('-cudart', 'shared') if args.cudart == 'shared' else ()
    t0 = time.perf_counter()
    with Evaluator(compile_flags=flags, torch_compile=not args.no_compile) as ev:
        results = ev.evaluate_many([(t, src) for t, _, src in jobs], time_it=not args.no_time)
        device = ev.slots[0].device_name
    rows = [row_of(t, kind, r) for (t, kind, _), r in zip(jobs, results)]
    for row in rows: print_row(row)
    out = Path(args.json); out.parent.mkdir(parents=True, exist_ok=True)
    meta = dict(device=device, torch=torch.__version__, cuda=torch.version.cuda, python=platform.python_version(),
                cudart=args.cudart, timed=not args.no_time, seconds=time.perf_counter() - t0)
    out.write_text(json.dumps(dict(meta=meta, rows=rows), indent=1, default=str))
    n_ok = sum(r['correct'] for r in rows)
    print(f'\n{n_ok}/{len(rows)} solutions correct on {device} in {meta["seconds"]:.0f} s; JSON in {out}')
    for r in rows:
        if not r['correct']: print(f'  {r["task"]} ({r["kind"]}): {r["verdict"]}: {r["message"][:300]}')
    return 0 if n_ok == len(rows) else 1


if __name__ == '__main__':
    sys.exit(main())
