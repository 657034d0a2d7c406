"""What the reference timings cost a GRPO step's judging, and what measuring them ahead saves.

A step of `small`'s recipe judges 8 tasks × 8 episodes. Once the model passes often, nearly every task of the
step needs its PyTorch reference timed (eager and `torch.compile`) before a passing candidate gets a speedup;
the 200 training compositions are new to the card for most of a 20-minute run. This bench judges a step-like
batch (`--tasks` procedural training tasks × `--copies` distinct copies of each task's own solution, every copy
really built) with an `Evaluator` of `--workers` sandbox workers on one card, three ways, each on new tasks:

1. `cold`: the references are measured when the first passing candidate needs them;
2. `compiled ahead`: `Evaluator.warm_references` first (its wall time is reported), which compiles the references
   side by side outside the card's lock, then the judging, whose reference timings read Inductor's cache;
3. `measured ahead`: `warm_references(measure=True)`, the timings too, then the judging;
4. `cached`: the tasks of 1 judged again (references in memory): the floor.

For one task it also times the parts of a reference measurement in this process: the eager timing, the
`torch.compile` (its first call), and the compiled timing.

    python bench/references_bench.py [--tasks 8] [--copies 8] [--workers 3] [--timing ratio]

Prints a table and writes bench/results/references_bench_<timing>.json (under $CUDARL_BENCH_RESULTS when it is set). Needs a GPU.
"""
import argparse, json, os, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT/'bench'))
from _table import table, results_dir


def parts_of_one(task) -> dict:
    "Seconds of a reference measurement's parts, in this process."
    import torch
    from cudarl_wb.benchmarker import draw_inputs, time_calls
    sets = [draw_inputs(task, task.timing_shape, 17 + s, 'cuda') for s in range(4)]
    t0 = time.perf_counter(); time_calls(lambda s: task.reference(*sets[s]), 4, device='cuda'); eager = time.perf_counter() - t0
    t0 = time.perf_counter(); cf = torch.compile(task.reference, dynamic=False); cf(*sets[0]); torch.cuda.synchronize()
    comp = time.perf_counter() - t0
    t0 = time.perf_counter(); time_calls(lambda s: cf(*sets[s]), 4, device='cuda'); timed = time.perf_counter() - t0
    return dict(eager_timing_s=eager, torch_compile_s=comp, compiled_timing_s=timed)


def judge(ev, tasks, copies: int) -> dict:
    from cudarl_wb.benchmarker import judging_breakdown
    pairs = [(t, f'{t.solution}\n// copy {k} {time.time_ns()}\n') for t in tasks for k in range(copies)]
    t0 = time.perf_counter(); rs = ev.evaluate_many(pairs); wall = time.perf_counter() - t0
    b = judging_breakdown(rs)
    return dict(wall_s=wall, correct=sum(r.correct for r in rs), judged=len(rs), references_s=b['references'],
                queued_s=b['queued'], compile_s=b['compile'], timing_s=b['timing'], correctness_s=b['correctness'])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tasks', type=int, default=8)
    ap.add_argument('--copies', type=int, default=8)
    ap.add_argument('--workers', type=int, default=3)
    ap.add_argument('--timing', default='full', help="the evaluator's timing mode: full, or ratio (what a training reward needs)")
    ap.add_argument('--seed', type=int, default=int(time.time()) % 100_000, help='first composition seed (new tasks each run)')
    a = ap.parse_args(argv)
    import torch
    if not torch.cuda.is_available(): print('references_bench: needs a GPU'); return 2
    from cudarl_wb.benchmarker import Evaluator
    from cudarl_wb.tasks import procedural_tasks
    os.environ['CUDARL_CACHE'] = tempfile.mkdtemp(prefix='references_bench_')   # nothing cached from earlier runs, Inductor's builds included
    pool = procedural_tasks(3 * a.tasks + 1, seed=a.seed, split='train')
    one, first, second, third = pool[0], pool[1:a.tasks + 1], pool[a.tasks + 1:2 * a.tasks + 1], pool[2 * a.tasks + 1:]
    rows = [dict(way='parts of one reference, in this process', **parts_of_one(one))]
    with Evaluator(['cuda:0'], workers_per_device=a.workers, timing=a.timing) as ev:
        ev.peaks()
        rows.append(dict(way='cold', **judge(ev, first, a.copies)))
        for way, tasks, measure in (('compiled ahead', second, False), ('measured ahead', third, True)):
            t0 = time.perf_counter(); w = ev.warm_references(tasks, measure=measure); warm = time.perf_counter() - t0
            print(way, {k: (round(v, 2) if isinstance(v, float) else v) for k, v in w.items()})
            rows.append(dict(way=way, ahead_s=warm, **judge(ev, tasks, a.copies)))
        rows.append(dict(way='cached', **judge(ev, first, a.copies)))
        card = ev.slots[0].device_name
    print(f'{a.tasks} procedural tasks × {a.copies} copies, {a.workers} workers on one {card}, timing {a.timing}')
    cols = ['way', 'eager_timing_s', 'torch_compile_s', 'compiled_timing_s', 'ahead_s', 'wall_s', 'references_s', 'queued_s',
            'compile_s', 'timing_s', 'correct', 'judged']
    table([{k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()} for r in rows], cols)
    out = results_dir()
    (out/f'references_bench_{a.timing}.json').write_text(json.dumps(dict(card=card, args=vars(a), rows=rows), indent=1))
    return 0


if __name__ == '__main__':
    sys.exit(main())
