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
"""
import argparse, json, statistics, sys, time, uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n', type=int, default=24, help='candidates for our pipeline')
    ap.add_argument('--kernelbench', type=int, default=3, help="candidates for KernelBench's way (~40 s each)")
    ap.add_argument('--out', default=str(ROOT/'bench/results/eval_bench.json'))
    args = ap.parse_args()
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
