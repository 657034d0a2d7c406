"""Where a training step's seconds go: serial, pipelined, and pipelined with the next step begun early, on one card.

Run from the repository root:

    python bench/step_split.py --preset tiny --steps 4            # on a GPU: warm start, then 3×4 steps
    python bench/step_split.py --preset tiny --steps 2 --sft-budget 0 --group-size 2 --max-new-tokens 32   # CPU check
    python bench/step_split.py --preset tiny --steps 3 --workers-per-card 3 --timing ratio   # a cheaper judge
    CUDA_VISIBLE_DEVICES=0 python bench/step_split.py ...   # on one card of a machine with several

Batch, group, sandbox workers, timing mode, LoRA rank and the tasks drawn follow the preset's recipe
(`RECIPES` in 14_trainer, what `cudarl-wb train --preset small` takes) unless given.

On a GPU the trainer is placed as `cudarl-wb train` places it (the planner's built-in layout): the run
on one card, the Tester's workers on every other card of the machine, or beside the run on one card.

The trainer pipelines only where the model generates on a GPU: on the CPU both ways step serially, and the
CPU check runs the machinery only.

One trainer plays every step, so the ways share the model, the evaluator's workers and their warm
caches: one warm-up step (not counted, it starts the workers and times the references), then the
serial and the pipelined step in turn, `--steps` of each, then `--steps` pipelined steps in a row that
each begin the next one's first turn (`prefetch`, after one such step not counted, which had none begun
for it). `prefetch-unyielding` is `prefetch` with the Evaluator's `checks_yield` off, so the judging thread's
checks also run inside timing windows; given with `prefetch`, the two take turns in one row of steps.
Per way: the step's seconds, the generation (this thread's wall time generating), the judging thread's
busy seconds, the judging hidden under generation, the timing window, the update, the seconds the step
waited for judging (the rollout's wall time less its generation) and their share of the step
(`judging_spans_share`: the share as reported before, busy less hidden, over the step), the references timed in
the step (`refs_timed`) and their seconds before the card's lock (compiling, waiting for the card: `refs_before_s`)
and in it (`refs_card_s`), and the CPU-seconds each
step used, by whom (`cpu_seconds`: this process, the compilers it ran, the workers under it). The verdicts of
each way are counted too: the pipeline must judge as the serial step does. Where the judging went is
summed over each way's judged candidates (`judging_breakdown`: compile, queued, worker start,
references, load, correctness, timing, transfer; per step), each evaluation counted once however
many identical candidates shared it. On a GPU each step's measured memory sits beside the planner's
estimate (`memory_check`), planned for the step's own micro-batch, without gradient checkpointing (the
built-in trainer keeps every layer's activations) and for the largest task of the tiers it samples, and at
the end each evaluator process's own memory (sandbox workers, the card's reference worker), as NVML counts it.
`--workers-per-card` and `--timing` set the evaluator (defaults: as the trainer makes it).
The trainer compiles every task's reference in the background from its start; `cudarl-wb train` has that
done under its warm start, and `--settle` waits for it before the first step (by default the steps run beside it).

The timing windows are taken apart too: of each step's window seconds, those in which the card was held by a
candidate's timing, a reference's timing, a reference's compile (or its wait for the card), a check, a
reference compiled ahead (`background compiles`), or by none (`idle`: the host between jobs), and the
last step of each way is drawn as a timeline (`..._<way>_timeline.png` beside the JSON). The JSON keeps every step's
intervals and each reference measured or compiled, with their spans, and the longest checks are listed
(`slow_checks`: one in flight when a window opens holds the window up).

Prints a table and writes bench/results/step_split_<preset>[_cpu].json (or under $CUDARL_BENCH_RESULTS).
"""
import argparse, collections, json, os, shutil, statistics, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT/'bench'))
from _table import table, results_dir

KEYS = ['step_s', 'generating_s', 'judging_s', 'judging_hidden_s', 'timing_window_s', 'update_s', 'judging_waited_s', 'judging_share', 'judging_spans_share',
        'refs_timed', 'refs_before_s', 'refs_card_s']
WAYS = ['serial', 'pipelined', 'prefetch', 'prefetch-unyielding']


def parse():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--preset', default='tiny', choices=['tiny', 'small'])
    ap.add_argument('--checkpoint', default=None, help='agents folder to start from (default: a warm start of the preset)')
    ap.add_argument('--steps', type=int, default=4, help='steps of each way')
    ap.add_argument('--sft-budget', type=float, default=230.0, help='seconds of warm start when no checkpoint is given (0: none)')
    ap.add_argument('--batch-size', type=int, default=None, help="tasks a step (default: the preset's recipe, else 2)")
    ap.add_argument('--group-size', type=int, default=None, help="episodes a task (default: the preset's recipe, else 8)")
    ap.add_argument('--max-turns', type=int, default=2)
    ap.add_argument('--ways', default='serial,pipelined,prefetch', help='which ways to step, of ' + ', '.join(WAYS) + ' (comma-separated)')
    ap.add_argument('--max-new-tokens', type=int, default=640)
    ap.add_argument('--workers-per-card', type=int, default=None, help="sandbox workers per card (default: the preset's recipe, else 1)")
    ap.add_argument('--timing', default=None, choices=['full', 'ratio'], help="the evaluator's timing mode (default: the preset's recipe, else the trainer's, ratio)")
    ap.add_argument('--work', default=None, help='folder for the warm start and the run (default: a temporary one)')
    ap.add_argument('--out', default=None, help='JSON path')
    ap.add_argument('--settle', action='store_true', help="wait for the trainer's compiles of every task's reference before the first step "
                    "(as `cudarl-wb train` has them done under its warm start)")
    args = ap.parse_args()
    from cudarl_wb.trainer import GRPOConfig, train_defaults
    recipe, plain = train_defaults(args), GRPOConfig()
    for arg, field in [('batch_size', 'batch_size'), ('group_size', 'group_size'), ('workers_per_card', 'eval_workers'), ('timing', 'timing')]:
        if getattr(args, arg) is None: setattr(args, arg, recipe.get(field, getattr(plain, field)))
    return args


def trainer_for(args, work: Path):
    from cudarl_wb.trainer import GRPOConfig, GRPOTrainer, train_defaults
    from cudarl_wb.sft import start_agents
    from cudarl_wb.core import cuda_available
    device = 'cuda' if cuda_available() else 'cpu'
    source = args.checkpoint
    if source is None and args.sft_budget > 0:      # one warm start, kept in `work` for the next invocation
        start_agents(args.preset, sft_out=work/'sft', sft_budget_s=args.sft_budget, device=device)
        source = str(work/'sft')
    shutil.rmtree(work/'rl', ignore_errors=True)
    recipe = {k: v for k, v in train_defaults(args).items() if k in ('lora_rank', 'suite', 'demote')}   # what the update trains, the tasks drawn
    cfg = GRPOConfig(**recipe, preset=args.preset, generator_checkpoint=source, output_dir=str(work/'rl'), sft_budget_s=0,
                     batch_size=args.batch_size, group_size=args.group_size, max_turns=args.max_turns,
                     max_new_tokens=args.max_new_tokens, num_episodes=10**9, eval_workers=args.workers_per_card)
    tester = plan = None
    if device == 'cuda':       # placed as `cudarl-wb train` places it: the run on one card, the evaluator on the others
        from cudarl_wb.trainer import builtin_plan, plan_tester
        plan = builtin_plan(cfg)
        print(plan.summary())
        device, tester = plan.device_for('generator'), plan_tester(plan, cfg, args.timing)
    trainer = GRPOTrainer(cfg, device=device, tester=tester)
    trainer.plan = plan
    return trainer


def reports(trainer, step: int) -> list:
    "The Tester's report of every turn of step `step`, from the run's transcripts."
    from cudarl_wb.episode import load_transcripts
    eps = [ep for ep in load_transcripts(trainer.out/'transcripts.jsonl')]
    per = trainer.cfg.batch_size * trainer.cfg.group_size
    return [t.report for ep in eps[(step - 1) * per: step * per] for t in ep.turns]


def verdicts(reps) -> collections.Counter:
    return collections.Counter(str(r.verdict) for r in reps)


def evaluations(reps) -> list:
    "The distinct evaluations behind `reps`: identical candidates share one (same worker, same seed)."
    seen, out = set(), []
    for r in reps:
        key = (r.bench.extra.get('worker_pid'), r.bench.extra.get('seed')) if r.bench.extra.get('seed') is not None else id(r)
        if key not in seen: seen.add(key); out.append(r.bench)
    return out


def union(iv) -> list:
    "The intervals `iv` merged: disjoint and sorted."
    out = []
    for s, e in sorted((s, e) for s, e in iv if e > s):
        if out and s <= out[-1][1]: out[-1][1] = max(out[-1][1], e)
        else: out.append([s, e])
    return out


def clip(iv, to) -> list:
    "The parts of the intervals `iv` inside the intervals `to`."
    return [(max(s, a), min(e, b)) for s, e in iv for a, b in to if min(e, b) > max(s, a)]


def subtract(a, b) -> list:
    "The merged intervals `a` less the merged intervals `b`."
    out = []
    for s, e in a:
        for bs, be in b:
            if be <= s or bs >= e: continue
            if bs > s: out.append((s, bs))
            s = max(s, be)
        if s < e: out.append((s, e))
    return out


def length(iv) -> float: return sum(e - s for s, e in union(iv))


LANES = ['candidate timings', 'reference timings', 'reference compiles', 'checks', 'background compiles']   # in the order a second is given to one


def lanes_of(results, measured, compiled=()) -> dict:
    """When the card was held, by what, on this process's clock: each evaluation's jobs (`card_spans`: a timing or a
    check), each reference or peak measured (`span`: its compile and wait for the card, then
    its time holding the card) and each reference compiled ahead (`compiled`, `warm_references`: the card held shared)."""
    out = {k: [] for k in LANES}
    out['background compiles'] = [tuple(c['span']) for c in compiled]
    for r in results:
        for s, e, what in r.extra.get('card_spans') or []: out['candidate timings' if what == 'timing' else 'checks'].append((s, e))
    for m in measured:
        if m.get('span'):
            t0, t1, t2 = m['span']
            out['reference compiles'].append((t0, t1)); out['reference timings'].append((t1, t2))
    return out


def slow_checks(judged: dict, n: int = 8, over_s: float = 1.0) -> list:
    "The `n` longest checks over `over_s` seconds (a check in flight when a window opens holds it up): way, task, verdict, seconds."
    rows = [dict(way=way, task=r.task, verdict=r.verdict.value, check_s=round(e - s, 3), flags=','.join(r.flags[:3]))
            for way, bs in judged.items() for r in bs for s, e, what in r.extra.get('card_spans') or [] if what == 'check' and e - s > over_s]
    return sorted(rows, key=lambda x: -x['check_s'])[:n]


def window_parts(windows, lanes: dict) -> dict:
    """The seconds of the timing `windows` that each lane held, in `LANES`' order (a second goes to the first lane that
    held it), and those no lane held (`idle_s`: the host between jobs, the wait for a check's end); with the timings
    that began in a window."""
    left = whole = union(windows)
    out = {'window_s': length(whole)}
    for name in LANES:
        got = union(clip(union(lanes[name]), left))
        out[name.replace(' ', '_') + '_s'] = length(got)
        left = subtract(left, got)
    out['idle_s'] = length(left)
    out['timings'] = sum(any(a <= s < b for a, b in whole) for s, _ in lanes['candidate timings'])
    return out


def plot_timeline(spans: dict, lanes: dict, title: str, path: Path):
    "The last step's timeline: generation, timing windows and what held the card in them."
    try: import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt
    except ImportError: print('no matplotlib: no timeline drawn'); return
    t0, t1 = spans['step']
    rows = [('generation', spans['generations'], 'tab:blue'), ('timing windows', spans['windows'], 'tab:gray'),
            *[(n, clip(union(lanes[n]), [(t0, t1)]), c) for n, c in zip(LANES, ['tab:red', 'tab:purple', 'tab:orange', 'tab:green', 'tab:brown'])]]
    fig, ax = plt.subplots(figsize=(12, 3.2))
    for i, (name, iv, color) in enumerate(rows):
        ax.broken_barh([(s - t0, e - s) for s, e in union(iv)], (i - 0.4, 0.8), color=color)
    ax.set_yticks(range(len(rows)), [r[0] for r in rows]); ax.invert_yaxis()
    ax.set_xlim(0, t1 - t0); ax.set_xlabel('seconds into the step'); ax.set_title(title)
    fig.tight_layout(); fig.savefig(path, dpi=120); plt.close(fig)
    print(f'wrote {path}')


def cpu_seconds() -> dict:
    """CPU-seconds so far, by whom: this process (generation, the judging thread, the Python side of builds), the
    subprocesses it has waited for (nvcc, the host compiler, nm, objdump), and the live processes under it (the
    sandbox and reference workers, and what they started, such as torch.compile's workers)."""
    import resource
    me, done = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {'trainer': me.ru_utime + me.ru_stime, 'tools': done.ru_utime + done.ru_stime, 'workers': None}
    try:
        import psutil
        live = 0.0
        for p in psutil.Process().children(recursive=True):
            try: t = p.cpu_times(); live += t.user + t.system
            except psutil.Error: pass      # gone between the listing and the reading
        out['workers'] = live
    except ImportError: pass
    return out


def cpu_used(before: dict, after: dict) -> dict:
    "CPU-seconds between two `cpu_seconds()` readings (a worker that exited in between is not counted)."
    return {k: None if before[k] is None or after[k] is None else round(max(0.0, after[k] - before[k]), 2) for k in before}


def main():
    args = parse()
    work = Path(args.work or tempfile.mkdtemp(prefix='step_split_'))
    trainer = trainer_for(args, work)
    if args.settle and trainer.warming is not None:
        t = time.perf_counter(); trainer.warming.join()
        print(f"the references of the run's {len(trainer.pool) + len(trainer.eval_set)} tasks compiled: waited {time.perf_counter() - t:.1f} s")
    ways = [w for w in WAYS if w in args.ways.split(',')]
    steps, counts, judged = ({w: [] for w in ways}, {w: collections.Counter() for w in ways}, {w: [] for w in ways})
    timelines = {w: [] for w in ways}
    trainer.cfg.pipeline, trainer.cfg.prefetch = True, False
    ev = trainer.tester.evaluator if trainer.mode == 'full' else None   # kept past the Tester's close, which lets it go
    measured = lambda: ev.measured if ev is not None else []
    trainer.train_step()                                 # warm-up: workers start, references are timed

    def play(way, count=True):
        trainer.cfg.pipeline, trainer.cfg.prefetch = way != 'serial', way.startswith('prefetch')
        if ev is not None: ev.checks_yield = way != 'prefetch-unyielding'
        c0, n0 = cpu_seconds(), len(measured())
        m = trainer.train_step()
        if not count: return
        m.update({f'cpu/{k}_s': v for k, v in cpu_used(c0, cpu_seconds()).items()})
        refs = [r for r in measured()[n0:] if r['kind'] == 'reference_times']
        m.update(refs_timed=len(refs), refs_before_s=sum(r['before_s'] for r in refs), refs_card_s=sum(r['card_s'] for r in refs))
        m['judging_spans_share'] = (m['judging_s'] - m['judging_hidden_s']) / m['step_s']   # the share as reported before 2026-12-02
        steps[way].append({k: v for k, v in m.items() if isinstance(v, (int, float, str)) or v is None})
        timelines[way].append(trainer.spans)
        reps = reports(trainer, trainer.step)
        counts[way] += verdicts(reps)
        judged[way] += evaluations(reps)

    alternate, ahead = [w for w in ways if not w.startswith('prefetch')], [w for w in ways if w.startswith('prefetch')]
    for i in range(len(alternate) * args.steps): play(alternate[i % len(alternate)])
    if ahead:       # steps in a row: each one begins the next; the first (not counted) has none begun for it
        play(ahead[0], count=False)
        for i in range(len(ahead) * args.steps): play(ahead[i % len(ahead)])
        trainer.drop_ahead()
    cards = ev.devices if ev is not None else []
    by_process = {}
    if cards:             # each evaluator process's device memory now, to set beside the planner's per-process loads
        from evaluator_memory import worker_bytes
        try: by_process = {c: {k: [round(b / 2**30, 2) for b in v] for k, v in worker_bytes(trainer.tester, int(c.split(':')[1])).items()} for c in cards}
        except RuntimeError as e: by_process = {'error': str(e)}
        print(f'evaluator memory by process, GiB: {by_process}')
    trainer.tester.close()
    rows = []
    for way, ms in steps.items():
        row = {'way': way, 'steps': len(ms)}
        for k in KEYS: row[k] = round(statistics.fmean(m[k] for m in ms), 3)
        row['judging_of_step'] = round(statistics.fmean(m['judging_s'] / m['step_s'] for m in ms), 3)
        rows.append(row)
    from cudarl_wb.sft import _device_name
    device_name = _device_name(trainer.device)
    print(f'{args.preset} on {device_name} [{trainer.mode}]: {args.batch_size} tasks × {args.group_size} episodes × '
          f'{args.max_turns} turns a step, {args.steps} steps each way (means); the run on {trainer.device}, judging on '
          f"{', '.join(cards) or 'the CPU'} ({args.workers_per_card} worker(s) a card)")
    table(rows, ['way', 'steps', *KEYS, 'judging_of_step'])
    for way, c in counts.items(): print(f'{way} verdicts: {dict(sorted(c.items()))}')
    from cudarl_wb.benchmarker import SECONDS_PARTS, judging_breakdown
    parts = []
    for way, bs in judged.items():
        jb = judging_breakdown(bs)
        parts.append({'way': way, **{k: round(jb[k] / max(1, args.steps), 3) for k in SECONDS_PARTS},
                      'evaluations': round(jb['judged'] / max(1, args.steps), 1), 'cached_builds': round(jb['cache_hits'] / max(1, args.steps), 1),
                      'reused_timings': round(jb['timings_reused'] / max(1, args.steps), 1),
                      'workers_ended': round(jb['workers_ended'] / max(1, args.steps), 1), 'spares_used': round(jb['spares_used'] / max(1, args.steps), 1)})
    cpu = [{'way': way, **{k: round(statistics.fmean(m[f'cpu/{k}_s'] for m in ms), 1) if all(m[f'cpu/{k}_s'] is not None for m in ms) else None
                           for k in ('trainer', 'tools', 'workers')}} for way, ms in steps.items()]
    print('CPU-seconds a step (means), by whom: this process, the subprocesses it waited for (nvcc ...), the live workers under it:')
    table(cpu, ['way', 'trainer', 'tools', 'workers'])
    print('where the judging went, seconds per step summed over its evaluations (parts that overlap add up past the wall time):')
    table(parts, ['way', *SECONDS_PARTS, 'evaluations', 'cached_builds', 'reused_timings', 'workers_ended', 'spares_used'])
    compiled = ev.compiled if ev is not None else []
    lanes = lanes_of([r for bs in judged.values() for r in bs], measured(), compiled)
    windows = [{'way': way, 'step': i + 1, **{k: round(v, 3) if isinstance(v, float) else v for k, v in window_parts(sp['windows'], lanes).items()}}
               for way, sps in timelines.items() for i, sp in enumerate(sps) if sp]
    print("the timing windows taken apart: seconds of each step's windows in which the card was held by each, or by none (idle):")
    table(windows, ['way', 'step', 'window_s', 'timings', *[n.replace(' ', '_') + '_s' for n in LANES], 'idle_s'])
    slow = slow_checks(judged)
    if slow:
        print('the longest checks (one in flight when a window opens holds the window up):')
        table(slow, ['way', 'task', 'verdict', 'check_s', 'flags'])
    last = next((steps[w][-1] for w in reversed(ways) if steps[w]), {})
    memory = {k: v for k, v in last.items() if k.startswith('memory/')}
    if memory: print('memory, last step: ' + ', '.join(f'{k[7:]} {v:.2f}' for k, v in memory.items() if v is not None))
    name = f"step_split_{args.preset}{'' if trainer.mode == 'full' else '_cpu'}.json"
    out = Path(args.out) if args.out else results_dir()/name
    out.parent.mkdir(parents=True, exist_ok=True)
    for way in (ways if trainer.mode == 'full' else []):
        if timelines[way]: plot_timeline(timelines[way][-1], lanes, f'{args.preset} on {device_name}: the last {way} step',
                                         out.with_name(f'{out.stem}_{way}_timeline.png'))
    out.write_text(json.dumps(dict(preset=args.preset, device=device_name, mode=trainer.mode, args=vars(args), rows=rows,
                                   run_device=str(trainer.device), eval_devices=cards,
                                   verdicts={k: dict(v) for k, v in counts.items()}, judging_parts=parts, cpu_seconds=cpu, steps=steps, memory=memory,
                                   windows=windows, slow_checks=slow, timelines=timelines, measured=measured(), compiled=compiled,
                                   memory_by_process=by_process), indent=2, default=str))
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
