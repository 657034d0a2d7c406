"""The evaluator's device memory against the planner's estimate, task by task, up to the largest task a run times.

A sandbox worker keeps in PyTorch's caching allocator what the largest task it has timed needed (the timing
buffer sets, the float64 check of the outputs, the L2 flush), and the reference worker what the references
needed. The planner sizes an evaluation card for the largest task of the run's training pool (`_timing_gib`).
A training run only reaches that size once a candidate for that task is correct and timed, which a fresh
policy rarely manages; this bench gets there directly. It builds the Tester that `cudarl-wb train --preset P`
builds (the plan's evaluation cards, `--workers-per-card` sandbox workers on each), judges the naive solution
of a median task and then of the pool's largest tasks, smallest first, and after each reads every worker
process's device memory from NVML, beside the plan's estimate for the card.

    python bench/evaluator_memory.py --preset small [--workers-per-card 1] [--largest 3]

Prints a table and writes JSON to bench/results/evaluator_memory.json (or $CUDARL_BENCH_RESULTS/evaluator_memory.json).
Needs a CUDA GPU and nvidia-ml-py.
"""
import argparse, json, os, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _table import table, results_dir


def worker_bytes(tester, card: int) -> dict:
    "Device bytes of each sandbox, reference and spare worker on `card`, as NVML counts them: {'sandbox': [...], ...}."
    from cudarl_wb.benchmarker import card_process_bytes
    used = card_process_bytes(card)
    if used is None: raise RuntimeError(f'NVML cannot read the processes on card {card} (needs nvidia-ml-py)')
    out, seen = {'sandbox': [], 'reference': [], 'spare': []}, set()
    for s in tester.evaluator.slots:
        if s.device != f'cuda:{card}': continue
        for kind, w in (('sandbox', s.worker), ('reference', s.trusted)):   # a card's slots share its reference worker
            if w is not None and w.proc is not None and w.proc.pid in used and w.proc.pid not in seen:
                seen.add(w.proc.pid); out[kind].append(used[w.proc.pid] or 0)
    sp = tester.evaluator._spares.get(f'cuda:{card}')
    if sp is not None and sp.worker is not None and sp.worker.proc is not None and sp.worker.proc.pid in used:
        out['spare'].append(used[sp.worker.proc.pid] or 0)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--preset', default='small')
    p.add_argument('--workers-per-card', type=int, default=1)
    p.add_argument('--largest', type=int, default=3, help="how many of the pool's largest tasks to judge after the median one")
    p.add_argument('--median', default='relu', help='the task judged first, a typical size')
    p.add_argument('--out', default=None)
    args = p.parse_args(argv)
    import torch
    if not torch.cuda.is_available(): sys.exit('evaluator_memory: needs a CUDA GPU')
    from cudarl_wb.gpu_planner import GIB, memory_check
    from cudarl_wb.tasks import get_task
    from cudarl_wb.trainer import GRPOConfig, builtin_plan, plan_tester, training_tasks, _timing_gib
    cfg = GRPOConfig(preset=args.preset, eval_workers=args.workers_per_card)
    plan = builtin_plan(cfg)
    print(plan.summary())
    pool = [t for t in training_tasks(cfg)[0] if t.tier <= cfg.start_tier + 1 and t.solution]
    largest = sorted(pool, key=lambda t: t.nbytes(t.timing_shape))[-args.largest:]
    tasks = [get_task(args.median)] + largest
    tester = plan_tester(plan, cfg)
    cards = [int(d.split(':')[1]) for d in tester.evaluator.devices]
    rows = []
    try:
        for t in tasks:
            t0 = time.perf_counter()
            rep = tester.test(t, t.solution)
            per_card = {c: worker_bytes(tester, c) for c in cards}
            card = max(cards, key=lambda c: sum(map(sum, per_card[c].values())))    # the card that judged it
            mem = per_card[card]
            total = sum(map(sum, mem.values()))
            check = memory_check(plan, {'evaluator': total}, card)
            rows.append(dict(task=t.name, card=card, task_gib=round(t.nbytes(t.timing_shape) / GIB, 3), verdict=rep.verdict.value,
                             kernel_ms=round(rep.bench.kernel_ms, 4) if rep.bench.kernel_ms else None,
                             sandbox_gib=round(sum(mem['sandbox']) / GIB, 2), reference_gib=round(sum(mem['reference']) / GIB, 2), spare_gib=round(sum(mem['spare']) / GIB, 2),
                             measured_gib=round(total / GIB, 2), estimate_gib=round(check['memory/evaluator_estimate_gib'], 2),
                             ratio=round(check['memory/evaluator_ratio'], 2), seconds=round(time.perf_counter() - t0, 1)))
            print(rows[-1], flush=True)
    finally: tester.close()
    print(f"card: {torch.cuda.get_device_name(cards[0])} (evaluation cards {cards}); preset {args.preset}, "
          f"{args.workers_per_card} sandbox worker(s) per card; the plan times up to {_timing_gib(cfg):.3f} GiB a task")
    table(rows, ['task', 'card', 'task_gib', 'verdict', 'kernel_ms', 'sandbox_gib', 'reference_gib', 'measured_gib', 'estimate_gib', 'ratio', 'seconds'])
    out = Path(args.out) if args.out else results_dir()/'evaluator_memory.json'
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(preset=args.preset, workers_per_card=args.workers_per_card, card=torch.cuda.get_device_name(cards[0]), cards=cards,
                                   plan=plan.to_dict(), rows=rows), indent=2, default=str))
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
