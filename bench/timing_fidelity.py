"""Timing fidelity: our median against `triton.testing.do_bench` on the same call, and run-to-run spread.

Run on a GPU machine from the repository root:

    python bench/timing_fidelity.py [--runs 5] [--tasks vector_add relu softmax_rows matmul]

For each built-in solution (naive, and optimised where the task has one) at the task's timing shape:

* `ours (judged)`: `kernel_ms` of a full `Evaluator.evaluate` in the sandbox worker (what rewards use),
  once per run;
* `ours (same call)`: `time_calls` in this process on exactly the call do_bench times;
* `do_bench`: `triton.testing.do_bench(fn, warmup=25, rep=100, return_mode='median')` on that call.

Targets: |ours / do_bench - 1| < 5%, run-to-run spread (max - min) / median < 2%. Prints a table,
writes bench/results/timing_fidelity.json.
"""
import argparse, json, statistics, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def spread(xs): return (max(xs) - min(xs)) / statistics.median(xs) if xs else float('nan')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--tasks', nargs='*', default=['vector_add', 'relu', 'softmax_rows', 'matmul'])
    ap.add_argument('--out', default=str(ROOT/'bench/results/timing_fidelity.json'))
    args = ap.parse_args()
    import torch
    if not torch.cuda.is_available(): sys.exit('timing_fidelity: needs a GPU')
    import triton.testing
    from cudarl_wb.benchmarker import Evaluator, KernelLauncher, draw_inputs, time_calls
    from cudarl_wb.tasks import get_task, TASKS

    def do_bench(fn):
        try: return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode='median')
        except TypeError: return triton.testing.do_bench(fn, warmup=25, rep=100, quantiles=[0.5])

    rows, t_start = [], time.time()
    with Evaluator() as ev:
        ev.start()
        dev_name = torch.cuda.get_device_name(0)
        for name in args.tasks:
            if name not in TASKS: print(f'skip {name}: not registered'); continue
            task = get_task(name)
            for kind, src in (('naive', task.solution), ('optimized', task.optimized)):
                if not src: continue
                cr = ev.compile(task, src)
                if not cr.ok: print(f'{name}/{kind}: did not build\n{cr.log[-1000:]}'); continue
                judged = []
                for _ in range(args.runs):
                    r = ev.evaluate(task, cr)
                    if not r.correct: print(f'{name}/{kind}: {r.verdict.value}: {r.message}'); break
                    judged.append(r.kernel_ms)
                sizes = task.timing_shape
                ins = draw_inputs(task, sizes, 1, 'cuda')
                outs = [torch.empty(tuple(s.shape), dtype=getattr(torch, s.dtype), device='cuda') for s in task.outputs(sizes)]
                launcher = KernelLauncher(cr.lib_path, task)
                call = launcher.bind(ins, outs, sizes, torch.cuda.current_stream().cuda_stream)
                same = [time_calls(lambda s: call(), device='cuda').median_ms for _ in range(args.runs)]
                ref = [do_bench(call) for _ in range(args.runs)]
                eager_ours = statistics.median(time_calls(lambda s: task.reference(*ins), device='cuda').median_ms for _ in range(3))
                eager_db = statistics.median(do_bench(lambda: task.reference(*ins)) for _ in range(3))
                row = dict(task=name, kind=kind, shape=task.shape_label(sizes),
                           judged_ms=statistics.median(judged) if judged else None, judged_spread=spread(judged),
                           same_call_ms=statistics.median(same), same_call_spread=spread(same),
                           do_bench_ms=statistics.median(ref), do_bench_spread=spread(ref),
                           eager_ours_ms=eager_ours, eager_do_bench_ms=eager_db, runs=args.runs)
                row['judged_vs_do_bench'] = row['judged_ms'] / row['do_bench_ms'] - 1 if row['judged_ms'] else None
                row['same_call_vs_do_bench'] = row['same_call_ms'] / row['do_bench_ms'] - 1
                row['eager_vs_do_bench'] = eager_ours / eager_db - 1
                rows.append(row)
                print(f"{name}/{kind}: judged {row['judged_ms']} ms, same call {row['same_call_ms']:.4g}, do_bench {row['do_bench_ms']:.4g}")

    hdr = f"{'task':14s} {'kind':9s} {'do_bench ms':>12s} {'judged ms':>10s} {'Δ':>7s} {'spread':>7s} {'same call':>10s} {'Δ':>7s} {'spread':>7s} {'eager Δ':>8s}"
    print('\n' + hdr + '\n' + '-' * len(hdr))
    for r in rows:
        j = f"{r['judged_ms']:10.4g} {100 * r['judged_vs_do_bench']:+6.1f}% {100 * r['judged_spread']:6.2f}%" if r['judged_ms'] else f"{'-':>10s} {'-':>7s} {'-':>7s}"
        print(f"{r['task']:14s} {r['kind']:9s} {r['do_bench_ms']:12.4g} {j} {r['same_call_ms']:10.4g} "
              f"{100 * r['same_call_vs_do_bench']:+6.1f}% {100 * r['same_call_spread']:6.2f}% {100 * r['eager_vs_do_bench']:+7.1f}%")
    ok_median = all(abs(r['judged_vs_do_bench']) < 0.05 for r in rows if r['judged_ms'])
    ok_spread = all(r['judged_spread'] < 0.02 for r in rows if r['judged_ms'])
    print(f"\nwithin 5% of do_bench: {ok_median};  run-to-run spread under 2%: {ok_spread};  device: {dev_name}")
    out = dict(device=dev_name, torch=torch.__version__, triton=triton.__version__, rows=rows,
               within_5pct=ok_median, spread_under_2pct=ok_spread, seconds=time.time() - t_start)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2))
    print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
