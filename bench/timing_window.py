"""What a timing window costs: a step's correct candidates timed one after another, nothing else on the card.

Run on a GPU machine from the repository root:

    python bench/timing_window.py [--tasks 8] [--per-task 4] [--workers-per-card 3] [--rules full ratio]

The trainer checks a turn's answers while the model generates, then pauses generation and times the ones that
passed (`Evaluator.time_checked`, one window). This bench builds that window: `--tasks` procedural tasks (the
kind `small` trains on) × `--per-task` copies of each one's solution, each copy a library of its own (a global
of its own, so no two share a timing), checked first with `time_it=False`, their references measured before
the clock starts, then timed in one window under each timing rule of `--rules`:

* `full`, `ratio`: the Evaluator's modes (`TIMING_MODES`);
* `NAME:key=value,...`: any rule, `time_calls`' keywords over `ratio`'s (for example `slow:warmup_s=0.05,escape_reps=10`).

Per rule: the window's seconds, candidates a second, the mean seconds per candidate of each part of the
timing job (`timing_parts`: buffer sets, warm-up, timed repetitions, cross-check, the check of the timed
outputs, a retime) and of what lies around it (the job in the worker, its transfer, the wait for the card),
the repetitions timed, and each kernel time against `full`'s on the same library (median and largest
difference) and against `triton.testing.do_bench` on the same call in this process (`--do-bench`, a copy of
each task, default on). Prints a table and writes bench/results/timing_window.json (or under $CUDARL_BENCH_RESULTS).
"""
import argparse, json, os, statistics, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT/'bench'))
from _table import table, results_dir

def parse_rule(spec: str, modes: dict) -> tuple[str, dict]:
    "A `--rules` item: a mode's name, or `NAME:key=value,...` over `ratio`."
    if spec in modes: return spec, dict(modes[spec])
    name, _, kvs = spec.partition(':')
    rule = dict(modes['ratio'])
    for kv in filter(None, kvs.split(',')):
        k, v = kv.split('=')
        rule[k] = type(modes['full'].get(k, 0.0))(float(v))
    return name, rule


def candidates(tasks, per_task: int) -> list:
    "(task, source) pairs: `per_task` copies of each task's solution, each a different library."
    return [(t, t.solution + f'\n__device__ int timing_window_copy_{i} = {i};\n') for t in tasks for i in range(per_task)]


def window(ev, pairs, crs):
    "Check `pairs`, then time those that passed in one window: (results, the window's seconds)."
    checks = ev.evaluate_many(list(zip([t for t, _ in pairs], crs)), time_it=False)
    t0 = time.perf_counter()
    timed = ev.time_checked(list(zip([t for t, _ in pairs], crs, checks)))
    return timed, time.perf_counter() - t0


def parts_of(results) -> dict:
    "Mean seconds per timed candidate of each part, and of what lies around the timing job."
    rows = [r for r in results if r.correct and r.kernel_ms]
    mean = lambda xs: statistics.fmean(xs) if xs else 0.0
    out = {f'{k}_s': mean([r.extra.get('timing_parts', {}).get(k, 0.0) for r in rows])
           for k in ('buffers', 'warmup', 'timed', 'escape', 'outputs', 'retime')}
    out['job_s'] = mean([r.extra['seconds'].get('job', 0.0) for r in rows])
    out['worker_s'] = mean([r.extra.get('worker_seconds', 0.0) for r in rows])
    out['queued_s'] = mean([r.extra['seconds'].get('queued', 0.0) for r in rows])
    out['reps'] = mean([r.extra.get('timing', {}).get('reps', 0) for r in rows])
    return out


def do_bench_ms(task, cr) -> float:
    "`triton.testing.do_bench`'s median of the library's call at the timing shape, in this process."
    import torch, triton.testing
    from cudarl_wb.benchmarker import KernelLauncher, draw_inputs
    sizes = task.timing_shape
    ins = draw_inputs(task, sizes, 1, 'cuda')
    outs = [torch.empty(tuple(s.shape), dtype=getattr(torch, s.dtype), device='cuda') for s in task.outputs(sizes)]
    call = KernelLauncher(cr.lib_path, task).bind(ins, outs, sizes, torch.cuda.current_stream().cuda_stream)
    return triton.testing.do_bench(call, warmup=25, rep=100, return_mode='median')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tasks', type=int, default=8, help='procedural tasks')
    ap.add_argument('--per-task', type=int, default=4, help='libraries of each task')
    ap.add_argument('--workers-per-card', type=int, default=3)
    ap.add_argument('--rules', nargs='*', default=['full', 'ratio'])
    ap.add_argument('--seed', type=int, default=4242)
    ap.add_argument('--no-do-bench', dest='do_bench', action='store_false')
    ap.add_argument('--out', default=None)
    args = ap.parse_args()
    import torch
    from cudarl_wb.benchmarker import Evaluator, TIMING_MODES
    from cudarl_wb.tasks import procedural_tasks
    if not torch.cuda.is_available(): sys.exit('timing_window: needs a GPU')
    card = torch.cuda.get_device_name(0)
    tasks = procedural_tasks(args.tasks, seed=args.seed, split='train')
    pairs = candidates(tasks, args.per_task)
    rows, times, libs = [], {}, {}
    for spec in args.rules:
        name, rule = parse_rule(spec, TIMING_MODES)
        with Evaluator(['cuda:0'], workers_per_device=args.workers_per_card, timing='ratio') as ev:
            ev.timing = dict(rule)
            ev.start()
            crs = [ev.compile(t, s) for t, s in pairs]
            t = time.perf_counter(); ev.warm_references(tasks, measure=True); refs_s = time.perf_counter() - t
            results, secs = window(ev, pairs, crs)
        ok = [r for r in results if r.correct and r.kernel_ms]
        times[name] = [r.kernel_ms if r.correct else None for r in results]
        libs.update({i: (pairs[i][0], crs[i]) for i in range(len(pairs)) if crs[i].ok})
        row = dict(rule=name, candidates=len(pairs), timed=len(ok), window_s=round(secs, 2),
                   per_s=round(len(ok) / secs, 1) if secs else None, references_s=round(refs_s, 1),
                   **{k: round(v, 4) for k, v in parts_of(results).items()}, settings=rule)
        rows.append(row)
        print(f"{name}: {row['timed']} of {len(pairs)} timed in {secs:.2f} s ({row['per_s']} a second)", flush=True)
    base = times.get('full')
    dbench = {i: do_bench_ms(*libs[i]) for i in range(0, len(pairs), args.per_task) if i in libs} if args.do_bench else {}
    for row in rows:
        ms = times[row['rule']]
        if base:
            d = [abs(a / b - 1) for a, b in zip(ms, base) if a and b]
            row['vs_full_median'], row['vs_full_max'] = (round(statistics.median(d), 4), round(max(d), 4)) if d else (None, None)
        d = [abs(ms[i] / v - 1) for i, v in dbench.items() if ms[i]]
        row['vs_do_bench_median'], row['vs_do_bench_max'] = (round(statistics.median(d), 4), round(max(d), 4)) if d else (None, None)
    print(f'\n{card}, {len(pairs)} candidates ({args.tasks} tasks × {args.per_task}), {args.workers_per_card} workers')
    table(rows, ['rule', 'timed', 'window_s', 'per_s', 'buffers_s', 'warmup_s', 'timed_s', 'escape_s', 'outputs_s',
                 'retime_s', 'worker_s', 'job_s', 'queued_s', 'reps', 'vs_full_median', 'vs_full_max',
                 'vs_do_bench_median', 'vs_do_bench_max'])
    out = Path(args.out) if args.out else results_dir()/'timing_window.json'
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(card=card, torch=torch.__version__, tasks=[t.name for t in tasks], rows=rows,
                                   kernel_ms=times, do_bench_ms={pairs[i][0].name: v for i, v in dbench.items()}), indent=1))
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
