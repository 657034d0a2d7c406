"""Throughput of judging candidates: ours (nvcc + sandbox worker) against KernelBench's way, same kernels.

Run on a GPU machine from the repository root:

    python bench/eval_bench.py [--n 24] [--kernelbench 3]

* ours: `Evaluator.evaluate_many` over N candidates (the built-in solutions of the fixed tasks, each
  made unique by a comment so that every one is really compiled): nvcc build on CPU threads while the
  GPU checks (3+ shapes × 5 trials, guard zones, NaN poisoning) and times (adaptive, L2 flushed) the
  previous ones. Reference timings and the card's peaks are measured before the clock starts (they are
  cached per task and GPU), as KernelBench's baseline times are.
* KernelBench's way: for the first `--kernelbench` of the same kernels, `torch.utils.cpp_extension.load_inline`
  of the kernel wrapped as a `ModelNew` (a fresh extension name each, as every new candidate is), then
  its eval loop: 5 correctness trials with seeded `torch.randn` inputs and `allclose(atol=rtol=1e-4)`,
  3 warm-up and 100 timed runs, each synchronised, with a 256 MB L2 flush and an event pair, mean time.

Prints candidates per minute for both and the ratio (target ≥ 10×); writes bench/results/eval_bench.json.

    python bench/eval_bench.py --compile-profile [--n 8]          # any machine: where a build's seconds go
    python bench/eval_bench.py --timing-compare [--n 24]          # GPU: the `ratio` timing against `full`

* `--compile-profile`: N distinct candidates built as the trainer builds them (the card's arch, the
  launch-error helper), one at a time: nvcc's compile and link, the inspection of the build (nm,
  objdump), the source checks, a cache hit, and nvcc's own phases (`nvcc -time`) for one of them.
* `--timing-compare`: the same candidates judged by one evaluator in the `full` timing mode and by one in
  `ratio` (`--workers-per-card` workers each): candidates per minute, verdicts (they must agree), and
  the spread between the two kernel times (the `ratio` mode's cost in fidelity).
"""
import argparse, json, os, statistics, sys, time, uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT/'bench'))
from _table import table
FIXED = ['vector_add', 'relu', 'softmax_rows', 'matmul']


def candidates(n):
    from cudarl_wb.tasks import get_task
    tag = uuid.uuid4().hex[:8]
    out = []
    for i in range(n):
        t = get_task(FIXED[i % len(FIXED)])
        out.append((t, t.solution + f'\n// eval_bench {tag} candidate {i}\n'))
    return out


def kernelbench_wrapper(task, source):
    "The candidate wrapped as a torch extension: `forward(inputs..., outputs..., sizes...)`."
    ps = task.params
    args, call = [], []
    for p in ps:
        if p.role in ('in', 'out'):
            args.append(f'torch::Tensor {p.name}')
            call.append(f'({p.ctype}){p.name}.data_ptr()')
        elif p.role == 'stream': call.append('at::cuda::getCurrentCUDAStream()')
        else:
            args.append(f'{"double" if p.role == "scalar" else "int64_t"} {p.name}')
            call.append(f'({p.ctype}){p.name}')
    decl = f'void forward({", ".join(args)});'
    cuda = (source + '\n#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n'
            f'void forward({", ".join(args)}) {{ launch({", ".join(call)}); }}\n')
    return decl, cuda


def kernelbench_way(task, source, idx):
    "One candidate judged the way KernelBench does; returns seconds and what it found."
    import torch
    from torch.utils.cpp_extension import load_inline
    t0 = time.perf_counter()
    decl, cuda = kernelbench_wrapper(task, source)
    mod = load_inline(name=f'kb_{task.name}_{idx}_{uuid.uuid4().hex[:8]}', cpp_sources=decl, cuda_sources=cuda,
                      functions=['forward'], extra_cuda_cflags=['-O3'], verbose=False)
    t_build = time.perf_counter() - t0
    sizes = task.timing_shape
    size_args = [sizes[p.name] for p in task.params if p.role in ('size', 'scalar')]
    def model_new(*inputs):
        outs = [torch.empty(tuple(s.shape), dtype=getattr(torch, s.dtype), device='cuda') for s in task.outputs(sizes)]
        mod.forward(*inputs, *outs, *size_args)
        return outs[0]
    correct = True
    for trial in range(5):
        torch.manual_seed(trial)
        inputs = [torch.randn(tuple(s.shape), device='cuda') for s in task.inputs(sizes)]
        ref = task.run_reference(inputs)[0]
        out = model_new(*inputs)
        torch.cuda.synchronize()
        correct &= out.shape == ref.shape and torch.allclose(out, ref, atol=1e-4, rtol=1e-4)
    flush = torch.empty(int(256e6), dtype=torch.int8, device='cuda')
    times = []
    for i in range(3 + 100):
        torch.cuda.synchronize(); flush.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); model_new(*inputs); e.record(); torch.cuda.synchronize()
        if i >= 3: times.append(s.elapsed_time(e))
    return dict(task=task.name, seconds=time.perf_counter() - t0, build_seconds=t_build, correct=bool(correct),
                mean_ms=statistics.mean(times))


def compile_profile(n):
    "Per-build seconds, part by part (medians over `n` distinct candidates), and nvcc's phases for one."
    import subprocess, tempfile
    import cudarl_wb.compiler as C
    from cudarl_wb.benchmarker import launch_error_helper
    parts = {k: [] for k in ('source checks', 'nvcc -c', 'link', 'objdump -t', 'objdump -d', 'objdump -h -t -r', 'objdump -T', 'total', 'cache hit')}
    names = {'static_check': 'source checks', 'host_imports': 'objdump -t', 'has_syscall': 'objdump -d',
             'load_time_functions': 'objdump -h -t -r', 'exported_functions': 'objdump -T'}
    for fn, part in names.items():
        def timed(*a, _f=getattr(C, fn), _p=part, **k):
            t = time.perf_counter()
            try: return _f(*a, **k)
            finally: parts[_p].append(time.perf_counter() - t)
        setattr(C, fn, timed)
    flags, arch = (str(launch_error_helper()),), C.default_arch()
    for task, src in candidates(n):
        t = time.perf_counter(); r = C.compile_candidate(src, task, arch=arch, flags=flags); parts['total'].append(time.perf_counter() - t)
        parts['nvcc -c'].append(r.extra.get('compile_seconds', 0.0)); parts['link'].append(r.extra.get('link_seconds', 0.0))
        t = time.perf_counter(); C.compile_candidate(src, task, arch=arch, flags=flags); parts['cache hit'].append(time.perf_counter() - t)
    rows = [dict(part=k, median_s=round(statistics.median(v), 4), n=len(v)) for k, v in parts.items() if v]
    with tempfile.TemporaryDirectory() as d:
        Path(d, 'c.cu').write_text(candidates(1)[0][1])
        compile_, _ = C.nvcc_commands(arch)
        subprocess.run([*compile_, 'c.cu', '-o', 'c.o', '-time', 't.csv'], cwd=d, capture_output=True)
        phases = [l.split(',') for l in Path(d, 't.csv').read_text().splitlines()[1:]] if Path(d, 't.csv').exists() else []
    rows += [dict(part=f'  nvcc phase: {p[1].strip()}', median_s=round(float(p[6]) / 1e3, 4), n=1) for p in phases if len(p) > 6]
    return arch, rows


def timing_compare(cands, workers):
    "The candidates judged in the `full` and in the `ratio` timing mode: throughput, verdicts, kernel-time differences."
    from cudarl_wb.benchmarker import Evaluator, judging_breakdown
    from cudarl_wb.tasks import get_task
    out = {}
    for mode in ('full', 'ratio'):
        with Evaluator(workers_per_device=workers, timing=mode) as ev:
            ev.start()
            for name in FIXED: ev.reference_times(get_task(name))
            ev.peaks()
            t0 = time.perf_counter(); rs = ev.evaluate_many([(t, s + f'\n// {mode}\n') for t, s in cands]); secs = time.perf_counter() - t0
        out[mode] = dict(seconds=secs, per_minute=60 * len(cands) / secs, verdicts=[r.verdict.value for r in rs],
                         kernel_ms=[r.kernel_ms for r in rs], parts=judging_breakdown(rs))
    pairs = [(a, b) for a, b in zip(out['full']['kernel_ms'], out['ratio']['kernel_ms']) if a and b]
    rel = sorted(abs(b / a - 1) for a, b in pairs)
    out['same_verdicts'] = out['full']['verdicts'] == out['ratio']['verdicts']
    out['kernel_ms_rel_diff'] = dict(median=statistics.median(rel) if rel else None, max=rel[-1] if rel else None, n=len(rel))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n', type=int, default=24, help='candidates for our pipeline')
    ap.add_argument('--kernelbench', type=int, default=3, help="candidates for KernelBench's way (~40 s each)")
    ap.add_argument('--compile-profile', action='store_true', help="where a build's seconds go (no GPU needed)")
    ap.add_argument('--timing-compare', action='store_true', help='the ratio timing mode against full (GPU)')
    ap.add_argument('--workers-per-card', type=int, default=1, help='sandbox workers per card for --timing-compare')
    ap.add_argument('--out', default=None, help='JSON path (default bench/results/eval_bench[_compile|_timing].json)')
    args = ap.parse_args()
    if args.compile_profile or args.timing_compare:
        import torch
        kind = 'compile' if args.compile_profile else 'timing'
        out = Path(args.out or ROOT/f'bench/results/eval_bench_{kind}.json')
        if args.compile_profile:
            arch, rows = compile_profile(args.n)
            print(f'one build at a time, {args.n} distinct candidates, {arch}, {os.cpu_count()} CPU cores (medians):')
            table(rows, ['part', 'median_s', 'n'])
            res = dict(arch=arch, cpus=os.cpu_count(), rows=rows)
        else:
            if not torch.cuda.is_available(): sys.exit('eval_bench --timing-compare: needs a GPU')
            res = timing_compare(candidates(args.n), args.workers_per_card)
            res['device'] = torch.cuda.get_device_name(0)
            for mode in ('full', 'ratio'):
                print(f"{mode:6s} {res[mode]['per_minute']:7.1f} candidates/min; judging parts (s): "
                      + ', '.join(f'{k} {v:.2f}' for k, v in res[mode]['parts'].items() if isinstance(v, float) and v))
            print(f"same verdicts: {res['same_verdicts']}; kernel time, ratio against full: {res['kernel_ms_rel_diff']}")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=2, default=str))
        print(f'wrote {out}')
        return
    import torch
    if not torch.cuda.is_available(): sys.exit('eval_bench: needs a GPU')
    from cudarl_wb.benchmarker import Evaluator
    from cudarl_wb.tasks import get_task
    cands = candidates(args.n)
    res = dict(device=torch.cuda.get_device_name(0), torch=torch.__version__)
    with Evaluator() as ev:
        t0 = time.perf_counter(); ev.start()
        for name in FIXED: ev.reference_times(get_task(name))
        ev.peaks()
        res['warm_up_seconds'] = time.perf_counter() - t0
        t0 = time.perf_counter()
        results = ev.evaluate_many(cands)
        secs = time.perf_counter() - t0
        seq_n = min(8, args.n)
        t1 = time.perf_counter()
        seq = [ev.evaluate(t, s + '\n// sequential\n') for t, s in candidates(seq_n)]
        seq_secs = time.perf_counter() - t1
    n_ok = sum(r.correct for r in results)
    res['ours'] = dict(candidates=args.n, correct=n_ok, seconds=secs, per_minute=60 * args.n / secs,
                       compile_seconds=statistics.median(r.extra.get('compile_seconds', 0) for r in results),
                       judge_seconds=statistics.median(r.extra.get('worker_seconds', 0) for r in results),
                       sequential_per_minute=60 * seq_n / seq_secs)
    print(f"ours: {args.n} candidates ({n_ok} correct) in {secs:.1f} s = {res['ours']['per_minute']:.1f}/min "
          f"(sequential {res['ours']['sequential_per_minute']:.1f}/min; median build {res['ours']['compile_seconds']:.2f} s, "
          f"judge {res['ours']['judge_seconds']:.2f} s)")
    kb = []
    for i, (t, s) in enumerate(cands[:args.kernelbench]):
        try: kb.append(kernelbench_way(t, s, i)); print('KernelBench way:', kb[-1])
        except Exception as e: print(f'KernelBench way failed for {t.name}: {type(e).__name__}: {str(e)[:500]}')
    if kb:
        kb_secs = sum(k['seconds'] for k in kb)
        res['kernelbench'] = dict(candidates=len(kb), seconds=kb_secs, per_minute=60 * len(kb) / kb_secs, runs=kb)
        res['ratio'] = res['ours']['per_minute'] / res['kernelbench']['per_minute']
    print(f"\n{'method':34s} {'candidates':>10s} {'seconds':>9s} {'per minute':>11s}")
    print(f"{'ours (nvcc + sandbox, overlapped)':34s} {args.n:10d} {secs:9.1f} {res['ours']['per_minute']:11.1f}")
    print(f"{'ours (one at a time)':34s} {seq_n:10d} {seq_secs:9.1f} {res['ours']['sequential_per_minute']:11.1f}")
    if kb:
        print(f"{'KernelBench (load_inline + loop)':34s} {len(kb):10d} {kb_secs:9.1f} {res['kernelbench']['per_minute']:11.1f}")
        print(f"\nratio: {res['ratio']:.1f}× more candidates per minute (target ≥ 10×)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2, default=str))
    print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
