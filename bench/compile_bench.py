#!/usr/bin/env python
"""How fast does a candidate become a library? nvcc → shared library (our path), cold and cached, one at a
time and with the build pool, over the realistic kernels in bench/kernels/; on a GPU machine also the same
kernels built the way KernelBench does it (torch.utils.cpp_extension.load_inline), side by side.

    python bench/compile_bench.py                         # cold, cached, pool at 1 and 2 workers
    python bench/compile_bench.py --workers 1 2 4 8       # pool sizes to try
    python bench/compile_bench.py --flags=-std=c++17      # as nvcc's default standard builds (before C++14 first)
    python bench/compile_bench.py --load-inline 3         # GPU machine: also 3 kernels through load_inline (~40 s each)

Prints tables and writes JSON (default bench/results/compile_bench.json). Wall times on a shared machine
depend on what else runs: the load average before and after is recorded, and so is the CPU time that
nvcc and its tools used per candidate, which does not depend on sharing.
"""
import argparse, json, os, platform, resource, shutil, socket, statistics, subprocess, sys, tempfile, time, uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from cudarl_wb.core import nvcc_path, nvcc_version, run_capped        # noqa: E402
from cudarl_wb.compiler import (compile_candidate, compile_many, default_arch, scan_source, short_name,  # noqa: E402
                                available_cores, _split_params, _normalise_param)

KERNELS = sorted((REPO / 'bench' / 'kernels').glob('*.cu'))
LOAD_INLINE_DEFAULT = ['01_vector_add', '08_softmax_rows', '14_matmul_tiled', '15_matmul_register_tiled', '10_layernorm']


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def fresh_cache() -> str:
    d = tempfile.mkdtemp(prefix='compile-bench-')
    os.environ['CUDARL_CACHE'] = d
    return d


def med(xs): return statistics.median(xs) if xs else float('nan')


def table(rows, cols, title=''):
    "A plain-text table (no dependency beyond Python)."
    cells = [[str(c) for c in cols]] + [[f'{r[c]:.3f}' if isinstance(r[c], float) else str(r[c]) for c in cols] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    lines = [title] if title else []
    for j, row in enumerate(cells):
        lines.append('  '.join(v.rjust(w) if j and i else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths))))
        if j == 0: lines.append('  '.join('-' * w for w in widths))
    print('\n'.join(lines) + '\n', flush=True)


def bench_cold_and_cached(sources, arch, hits=5, flags=()):
    "Each kernel built once in a fresh cache (cold), then `hits` times more (cached)."
    cache = fresh_cache()
    rows = []
    for name, src in sources:
        cpu0, t0 = children_cpu(), time.perf_counter()
        r = compile_candidate(src, arch=arch, flags=flags)
        cold, cpu = time.perf_counter() - t0, children_cpu() - cpu0
        hit_times = []
        for _ in range(hits):
            t0 = time.perf_counter()
            h = compile_candidate(src, arch=arch, flags=flags)
            hit_times.append(time.perf_counter() - t0)
            assert h.cache_hit, name
        k = max(r.kernels, key=lambda k: k.registers) if r.kernels else None
        occ = r.extra.get('occupancy_detail', {}).get(short_name(k.name), {}) if k else {}
        rows.append(dict(kernel=name, ok=r.ok, cold_s=cold, nvcc_cpu_s=cpu, compile_s=r.extra.get('compile_seconds', float('nan')),
                         link_s=r.extra.get('link_seconds', float('nan')), std=r.extra.get('std', ''), cached_ms=1e3 * med(hit_times),
                         kernels=len(r.kernels), regs=k.registers if k else 0, smem=k.shared_bytes if k else 0,
                         spills=(k.spill_store_bytes + k.spill_load_bytes) if k else 0,
                         occupancy=f'{occ["occupancy"]:.0%}@{occ["block_size"]}' if occ else ''))
    shutil.rmtree(cache, ignore_errors=True)
    return rows


def bench_pool(sources, arch, workers, flags=()):
    "All kernels through compile_many with `workers` builds at once, in a fresh cache."
    cache = fresh_cache()
    cpu0, t0 = children_cpu(), time.perf_counter()
    rs = compile_many([s for _, s in sources], workers=workers, arch=arch, flags=flags)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    shutil.rmtree(cache, ignore_errors=True)
    return dict(workers=workers, candidates=len(rs), built=sum(r.ok for r in rs), wall_s=wall,
                per_min=60 * len(rs) / wall, nvcc_cpu_s_per_candidate=cpu / len(rs))


def cubin_seconds(src, arch):
    "nvcc → cubin for the device code alone (the figure ANCHORS.md quotes), for reference."
    with tempfile.TemporaryDirectory() as d:
        Path(d, 'k.cu').write_text(src)
        r = run_capped([nvcc_path(), '-cubin', f'-arch={arch}', '-O3', 'k.cu', '-o', 'k.cubin'], cwd=d, timeout=120,
                       env={**os.environ, 'TMPDIR': d})
        return r.seconds if r.returncode == 0 else float('nan')


# ---- KernelBench's way: a torch C++ extension built by load_inline ----------------------------------------

def load_inline_sources(src: str):
    "The candidate wrapped as KernelBench candidates are: a C++ function taking tensors that calls the launcher."
    from cudarl_wb.tasks import parse_signature
    view = scan_source(src)
    f = next(f for f in view.functions if f.name == 'launch')
    params = [_normalise_param(p, i) for i, p in enumerate(_split_params(f.params))]
    _, ps = parse_signature('void launch(' + ', '.join(params) + ')')
    args, call = [], []
    for i, p in enumerate(ps):
        if p.role in ('in', 'out'): args.append(f'torch::Tensor p{i}'); call.append(f'({p.ctype})p{i}.data_ptr()')
        elif p.role == 'size': args.append(f'int64_t p{i}'); call.append(f'({p.ctype})p{i}')
        elif p.role == 'scalar': args.append(f'double p{i}'); call.append(f'({p.ctype})p{i}')
        else: call.append('c10::cuda::getCurrentCUDAStream().stream()')
    decl = f'void run({", ".join(args)});'
    cuda = ('#include <torch/extension.h>\n#include <c10/cuda/CUDAStream.h>\n' + src +
            f'\nvoid run({", ".join(args)}) {{ launch({", ".join(call)}); }}\n')
    return decl, cuda


def bench_load_inline(sources, arch):
    import torch
    from torch.utils.cpp_extension import load_inline
    rows = []
    for name, src in sources:
        decl, cuda = load_inline_sources(src)
        build = tempfile.mkdtemp(prefix='kb-load-inline-')
        t0 = time.perf_counter()
        try:
            load_inline(name=f'kb_{name.replace("-", "_")}_{uuid.uuid4().hex[:8]}', cpp_sources=decl, cuda_sources=cuda,
                        functions=['run'], build_directory=build, verbose=False)
            li, err = time.perf_counter() - t0, ''
        except Exception as e:
            li, err = float('nan'), f'{type(e).__name__}: {str(e)[-300:]}'
        shutil.rmtree(build, ignore_errors=True)
        cache = fresh_cache()
        t0 = time.perf_counter()
        r = compile_candidate(src, arch=arch)
        ours = time.perf_counter() - t0
        shutil.rmtree(cache, ignore_errors=True)
        rows.append(dict(kernel=name, load_inline_s=li, ours_s=ours, ours_ok=r.ok, speedup=li / ours if ours else float('nan'),
                         nvcc_cubin_s=cubin_seconds(src, arch), error=err))
        print(f'  {name}: load_inline {li:.1f} s, ours {ours:.2f} s' + (f'  [{err}]' if err else ''), flush=True)
    return rows


def machine():
    info = dict(host=socket.gethostname(), platform=platform.platform(), python=platform.python_version(),
                cores=available_cores(), nvcc=nvcc_version(), load_before=os.getloadavg())
    try:
        import torch
        info['torch'] = torch.__version__
        info['gpu'] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except ImportError: info['torch'] = info['gpu'] = None
    return info


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--workers', type=int, nargs='+', default=[1, 2], help='pool sizes (default: 1 2)')
    p.add_argument('--kernels', type=int, default=0, help='use only the first N kernels (default: all)')
    p.add_argument('--hits', type=int, default=5, help='cached builds timed per kernel')
    p.add_argument('--load-inline', type=int, default=0, metavar='N', help='also build N kernels with load_inline (GPU machine)')
    p.add_argument('--arch', default=None, help='target arch (default: the GPU here, else sm_90)')
    p.add_argument('--flags', nargs='*', default=[], help='extra nvcc flags for every build, e.g. --flags=-std=c++17 (nvcc\'s default standard)')
    p.add_argument('--out', default=str(REPO / 'bench' / 'results' / 'compile_bench.json'))
    a = p.parse_args(argv)
    arch = a.arch or default_arch()
    sources = [(k.stem, k.read_text()) for k in KERNELS[:a.kernels or None]]
    info = machine()
    print(f"{info['host']}: {info['cores']} cores, nvcc {info['nvcc']}, arch {arch}, gpu {info['gpu']}, "
          f"load average {info['load_before'][0]:.1f} (shared machines run slower)\n", flush=True)

    rows = bench_cold_and_cached(sources, arch, a.hits, tuple(a.flags))
    table(rows, ['kernel', 'ok', 'std', 'cold_s', 'nvcc_cpu_s', 'compile_s', 'link_s', 'cached_ms', 'regs', 'smem', 'spills', 'occupancy'],
          f'{len(rows)} kernels, one at a time')
    summary = dict(kernels=len(rows), built=sum(r['ok'] for r in rows), cold_median_s=med([r['cold_s'] for r in rows]),
                   nvcc_cpu_median_s=med([r['nvcc_cpu_s'] for r in rows]), cached_median_ms=med([r['cached_ms'] for r in rows]))
    pool = [bench_pool(sources, arch, w, tuple(a.flags)) for w in a.workers]
    table(pool, ['workers', 'candidates', 'built', 'wall_s', 'per_min', 'nvcc_cpu_s_per_candidate'], 'the build pool (compile_many)')
    li = []
    if a.load_inline:
        names = [n for n in LOAD_INLINE_DEFAULT if any(n == s for s, _ in sources)][:a.load_inline]
        names += [s for s, _ in sources if s not in names][:a.load_inline - len(names)]
        print(f'load_inline for {", ".join(names)} (about 40 s each) …', flush=True)
        li = bench_load_inline([(n, s) for n, s in sources if n in names], arch)
        table(li, ['kernel', 'load_inline_s', 'ours_s', 'speedup', 'nvcc_cubin_s', 'ours_ok'], 'KernelBench load_inline vs ours, same machine')
        summary['load_inline_median_s'] = med([r['load_inline_s'] for r in li])
        summary['ours_median_s_same_kernels'] = med([r['ours_s'] for r in li])
        summary['speedup_median'] = med([r['speedup'] for r in li])
    info['load_after'] = os.getloadavg()
    targets = dict(cold_median_le_1_5_s=summary['cold_median_s'] <= 1.5, cached_median_le_20_ms=summary['cached_median_ms'] <= 20)
    if li: targets['speedup_ge_20x'] = summary['speedup_median'] >= 20
    print('summary:', json.dumps(summary, indent=1))
    print('targets:', json.dumps(targets), f"| load average before/after {info['load_before'][0]:.1f}/{info['load_after'][0]:.1f}")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(machine=info, arch=arch, flags=a.flags, summary=summary, targets=targets, kernels=rows, pool=pool, load_inline=li),
                              indent=2, default=str))
    print(f'wrote {out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
