"""How fast `cudarl-wb eval` answers, and how many candidates an open evaluator judges per minute.

Run from the repository root, on a GPU machine (everything) or without one (the compile-only path):

    python bench/eval_fast.py [--task relu] [--repeats 3] [--n 8]

* `eval` end to end: `cudarl-wb eval FILE --task T --json` as a new process, first with an empty cache
  and no evaluator server (the command starts the server; the build, the worker's self-test build,
  reference timings and the card's peaks all measured), then again `--repeats` times with the build
  cached and the server warm, then `--repeats` times in the command's own process (`--no-server`), and
  last the first call of a day: the build cached, the server stopped and started again by the
  command. For each, the wall time of the command and the result's own `seconds` breakdown (compile,
  worker start, references, load, correctness, timing, transfer).
* an open evaluator: the same kernel judged again `--repeats` times by one `Evaluator` (workers and
  references warm): the floor a notebook or the trainer sees.
* candidates per minute: `--n` distinct candidates (the fixed tasks' solutions, each made unique by a
  comment, so each is really built) through `evaluate_many` of an open evaluator, and one by one.

Without a GPU, `eval` and the evaluator stop after the build (verdict `compiled`): the figures are the
compile-only path; the judging path is then measured on a CPU worker instead (a C launcher for a small
`vector_add`, references timed on the CPU): a first evaluator that measures its references, the same
evaluator again, and a second evaluator that reads them from the cache. Prints a table and writes bench/results/eval_fast[_cpu].json with the device named.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time, uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT/'bench'))
from _table import table

FIXED = ['vector_add', 'relu', 'softmax_rows', 'matmul']


def run_eval(path, task, cache, *extra):
    "One `cudarl-wb eval --json` in a new process: (wall seconds, the result as a dict)."
    env = {**os.environ, 'CUDARL_CACHE': str(cache), 'PYTHONPATH': os.pathsep.join(filter(None, [str(ROOT), os.environ.get('PYTHONPATH')]))}
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', 'eval', str(path), '--task', task, '--json', *extra],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    try: res = json.loads(p.stdout)
    except ValueError: sys.exit(f'eval_fast: eval gave no JSON (exit {p.returncode}):\n{p.stderr[-2000:]}')
    return wall, res


def import_seconds(cache, modules='cudarl_wb.cli, cudarl_wb.benchmarker'):
    "What a new process pays before any judging: Python and `modules` (the judging side: torch too)."
    env = {**os.environ, 'CUDARL_CACHE': str(cache), 'PYTHONPATH': os.pathsep.join(filter(None, [str(ROOT), os.environ.get('PYTHONPATH')]))}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, '-c', f'import {modules}'], env=env, check=True, cwd=ROOT)
    return time.perf_counter() - t0


def row(label, wall, res):
    secs = res.get('extra', {}).get('seconds', {})
    r = dict(run=label, verdict=res.get('verdict'), wall_s=f'{wall:.2f}', judged_s=f"{secs.get('total', 0):.2f}")
    for k in ('compile', 'worker_start', 'references', 'load', 'correctness', 'timing', 'transfer'):
        r[k] = f'{secs[k]:.3f}' if k in secs else '-'
    r['cache'] = ('build hit' if res.get('extra', {}).get('cache_hit') else 'build') + \
                 ''.join(f', {k}: {v}' for k, v in (res.get('extra', {}).get('reference_cache') or {}).items())
    return r


def end_to_end(task, repeats, cache):
    "(label, wall, result) of: the first call, warm-server calls, in-process calls, a first call with the build cached."
    from cudarl_wb.tasks import get_task
    src = Path(cache)/f'{task}.cu'
    src.write_text(get_task(task).solution + f'\n// eval_fast {uuid.uuid4().hex}\n')
    runs = [('first call: starts the server, nothing cached', *run_eval(src, task, cache))]
    runs += [(f'cached build, warm server #{i + 1}', *run_eval(src, task, cache)) for i in range(repeats)]
    runs += [(f'cached build, in-process #{i + 1}', *run_eval(src, task, cache, '--no-server')) for i in range(repeats)]
    stop_server(cache)
    runs += [('first call: starts the server, build cached', *run_eval(src, task, cache))]
    stop_server(cache)
    return src, runs


def stop_server(cache):
    env = {**os.environ, 'CUDARL_CACHE': str(cache), 'PYTHONPATH': os.pathsep.join(filter(None, [str(ROOT), os.environ.get('PYTHONPATH')]))}
    subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', 'eval', '--stop-server'], env=env, cwd=ROOT, capture_output=True)


def open_evaluator(task, src, repeats, n, cache):
    "The same kernel again in an open evaluator, then n distinct candidates in a batch and one by one."
    os.environ['CUDARL_CACHE'] = str(cache)
    from cudarl_wb.benchmarker import Evaluator
    from cudarl_wb.tasks import get_task
    tag, text = uuid.uuid4().hex[:8], Path(src).read_text()
    def cands(k, what):
        return [(get_task(FIXED[i % len(FIXED)]), get_task(FIXED[i % len(FIXED)]).solution + f'\n// eval_fast {tag} {what} {i}\n')
                for i in range(k)]
    out = {}
    with Evaluator() as ev:
        ev.evaluate(task, text)                          # the worker up, the references read
        warm = []
        for _ in range(repeats):
            t0 = time.perf_counter(); r = ev.evaluate(task, text); warm.append((time.perf_counter() - t0, r))
        out['warm'] = [dict(seconds=s, verdict=r.verdict.value, breakdown=r.extra.get('seconds'), cache_hit=r.extra.get('cache_hit'),
                            reference_cache=r.extra.get('reference_cache')) for s, r in warm]
        for name in FIXED:                               # as KernelBench's baseline times are: before the clock
            if ev.slots: ev.reference_times(get_task(name))
        t0 = time.perf_counter(); rs = ev.evaluate_many(cands(n, 'batch')); batch = time.perf_counter() - t0
        t0 = time.perf_counter(); seq = [ev.evaluate(t, s) for t, s in cands(n, 'one')]; one = time.perf_counter() - t0
    out['batch'] = dict(candidates=n, seconds=batch, per_minute=60 * n / batch, verdicts=sorted({r.verdict.value for r in rs}))
    out['one_by_one'] = dict(candidates=n, seconds=one, per_minute=60 * n / one, verdicts=sorted({r.verdict.value for r in seq}))
    return out


def cpu_worker_path(cache):
    "Judging on a CPU worker: cold (references measured), warm (same evaluator), a new evaluator (references from disk)."
    import dataclasses
    os.environ['CUDARL_CACHE'] = str(cache)
    from cudarl_wb.benchmarker import Evaluator, c_candidate
    from cudarl_wb.tasks import get_task
    task = dataclasses.replace(get_task('vector_add'), name='vector_add_small', shapes=[{'n': 1000}, {'n': 4099}, {'n': 65537}])
    lib = c_candidate('for (int64_t i = 0; i < n; i++) c[i] = a[i] + b[i];')
    rows = []
    def judge(label, ev):
        t0 = time.perf_counter(); r = ev.evaluate(task, lib); wall = time.perf_counter() - t0
        rows.append((label, wall, dict(verdict=r.verdict.value, extra=dict(r.extra))))
    for label in ('first evaluator, first call', 'first evaluator, again'):
        if label.endswith('call'): ev = Evaluator(devices='cpu', timeout=5.0, time_budget=0.05)
        judge(label, ev)
    ev.close()
    with Evaluator(devices='cpu', timeout=5.0, time_budget=0.05) as ev:
        judge('new evaluator (references on disk)', ev)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--task', default='relu')
    ap.add_argument('--repeats', type=int, default=3, help='cached `eval` runs, and warm evaluations')
    ap.add_argument('--n', type=int, default=8, help='distinct candidates for the per-minute figures')
    ap.add_argument('--out', default=None, help='JSON path (default bench/results/eval_fast[_cpu].json)')
    args = ap.parse_args()
    import torch
    from cudarl_wb.benchmarker import library_versions
    gpu = torch.cuda.is_available()
    device = torch.cuda.get_device_name(0) if gpu else f'CPU only ({os.cpu_count()} cores): compile-only path'
    res = dict(device=device, task=args.task, versions=library_versions())
    with tempfile.TemporaryDirectory(prefix='eval-fast-') as cache:
        res['import_seconds'] = import_seconds(cache)
        res['client_import_seconds'] = import_seconds(cache, 'cudarl_wb.cli, cudarl_wb.sandbox')
        src, runs = end_to_end(args.task, args.repeats, cache)
        res['eval'] = [dict(run=l, wall_seconds=w, verdict=r['verdict'], seconds=r['extra'].get('seconds'),
                            cache_hit=r['extra'].get('cache_hit'), reference_cache=r['extra'].get('reference_cache'))
                       for l, w, r in runs]
        res['open'] = open_evaluator(args.task, src, args.repeats, args.n, cache)
        cpu_rows = [] if gpu else cpu_worker_path(Path(cache)/'cpu-worker')
    res['cpu_worker'] = [dict(run=l, wall_seconds=w, verdict=r['verdict'], seconds=r['extra'].get('seconds'),
                              reference_cache=r['extra'].get('reference_cache')) for l, w, r in cpu_rows]
    res['eval_cached_median_seconds'] = statistics.median(w for l, w, _ in runs if 'warm server' in l)
    res['eval_in_process_median_seconds'] = statistics.median(w for l, w, _ in runs if 'in-process' in l)
    res['eval_first_call_build_cached_seconds'] = runs[-1][1]
    print(f'device: {device}\nnew process, imports only: {res["import_seconds"]:.2f} s with torch and the benchmarker, '
          f'{res["client_import_seconds"]:.2f} s for the eval client\n')
    table([row(l, w, r) for l, w, r in runs] +
          [row(f'open evaluator #{i + 1}', x['seconds'], dict(verdict=x['verdict'], extra=dict(
               seconds=x['breakdown'] or {}, cache_hit=x['cache_hit'], reference_cache=x['reference_cache'])))
           for i, x in enumerate(res['open']['warm'])] +
          [row(f'CPU worker: {l}', w, r) for l, w, r in cpu_rows],
          ['run', 'verdict', 'wall_s', 'judged_s', 'compile', 'worker_start', 'references', 'load', 'correctness',
           'timing', 'transfer', 'cache'])
    print()
    o = res['open']
    table([dict(way='evaluate_many, open evaluator', **{k: f'{v:.1f}' if isinstance(v, float) else v for k, v in o['batch'].items()}),
           dict(way='evaluate one by one, open evaluator', **{k: f'{v:.1f}' if isinstance(v, float) else v for k, v in o['one_by_one'].items()})],
          ['way', 'candidates', 'seconds', 'per_minute', 'verdicts'])
    print(f"\n`eval` of a cached build: median {res['eval_cached_median_seconds']:.2f} s end to end with the server warm "
          f"(target ≤ 3 s on an H100/H200); {res['eval_in_process_median_seconds']:.2f} s in-process (--no-server); "
          f"{res['eval_first_call_build_cached_seconds']:.2f} s for a first call that starts the server")
    out = Path(args.out or ROOT/f"bench/results/eval_fast{'' if gpu else '_cpu'}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2, default=str))
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
