#!/usr/bin/env python
"""GPU checks of the compiler that need no pytest or nbdev (run them on a GPU machine):

1. every bench kernel's library loads with ctypes in a process that has torch and CUDA initialised, for both
   runtime linkings (static: nvcc's default; shared: libcudart.so.13 from the process);
2. a handful of bench kernels, called through their `launch` with torch tensors and torch's stream, match torch;
3. our theoretical occupancy equals the driver's cuOccupancyMaxActiveBlocksPerMultiprocessor for every kernel
   at block sizes 32…1024, and ptxas's registers / shared bytes equal the driver's function attributes.

    python tests/gpu_checks/compile.py [--out gpu_check/compile_gpu_check.json]      # `.ci/gpu checks` runs it

Exit status 0 when everything agrees.
"""
import argparse, ctypes, json, sys, tempfile, os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
os.environ.setdefault('CUDARL_CACHE', tempfile.mkdtemp(prefix='compile-gpu-check-'))

import torch  # noqa: E402
from cudarl_wb.compiler import (compile_candidate, cubin_of, default_arch, driver_occupancy, feedback, short_name,  # noqa: E402
                                theoretical_occupancy)
from cudarl_wb.tasks import get_task  # noqa: E402

KERNELS = {p.stem: p for p in sorted((REPO / 'bench' / 'kernels').glob('*.cu'))}
P = ctypes.c_void_p
I64 = ctypes.c_int64


def stream(): return torch.cuda.current_stream().cuda_stream


def g(*shape, dtype=torch.float32): return torch.randn(*shape, device='cuda').to(dtype)


def case_vector_add_float4(lib):
    n = 1_000_003
    a, b, c = g(n), g(n), torch.full((n,), float('nan'), device='cuda')
    lib.launch.argtypes = [P, P, P, I64, P]
    lib.launch(a.data_ptr(), b.data_ptr(), c.data_ptr(), n, stream())
    return (c - (a + b)).abs().max().item(), 0.0


def case_softmax(lib):
    rows, cols = 1023, 4097
    x, y = g(rows, cols), torch.full((rows, cols), float('nan'), device='cuda')
    lib.launch.argtypes = [P, P, I64, I64, P]
    lib.launch(x.data_ptr(), y.data_ptr(), rows, cols, stream())
    return (y - torch.softmax(x, -1)).abs().max().item(), 1e-5


def case_matmul(lib):
    m, n, k = 257, 129, 511
    A, B, C = g(m, k), g(k, n), torch.full((m, n), float('nan'), device='cuda')
    lib.launch.argtypes = [P, P, P, I64, I64, I64, P]
    lib.launch(A.data_ptr(), B.data_ptr(), C.data_ptr(), m, n, k, stream())
    ref = (A.double() @ B.double()).float()
    return (C - ref).abs().max().item(), 2e-3


def case_matmul_wmma(lib):
    m, n, k = 256, 128, 512
    A, B, C = g(m, k, dtype=torch.half), g(k, n, dtype=torch.half), torch.full((m, n), float('nan'), device='cuda')
    lib.launch.argtypes = [P, P, P, I64, I64, I64, P]
    lib.launch(A.data_ptr(), B.data_ptr(), C.data_ptr(), m, n, k, stream())
    return (C - A.float() @ B.float()).abs().max().item(), 5e-2


def case_transpose(lib):
    rows, cols = 1000, 777
    x, y = g(rows, cols), torch.full((cols, rows), float('nan'), device='cuda')
    lib.launch.argtypes = [P, P, I64, I64, P]
    lib.launch(x.data_ptr(), y.data_ptr(), rows, cols, stream())
    return (y - x.t()).abs().max().item(), 0.0


CASES = {'02_vector_add_float4': case_vector_add_float4, '08_softmax_rows': case_softmax, '09_softmax_online_warp': case_softmax,
         '13_matmul_naive': case_matmul, '14_matmul_tiled': case_matmul, '15_matmul_register_tiled': case_matmul,
         '23_matmul_wmma_fp16': case_matmul_wmma, '11_transpose_naive': case_transpose, '12_transpose_tiled': case_transpose}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--out', default='gpu_check/compile_gpu_check.json')
    a = p.parse_args(argv)
    assert torch.cuda.is_available(), 'needs a GPU'
    torch.cuda.init()
    arch = default_arch()
    print(f'{torch.cuda.get_device_name(0)}, arch {arch}, torch {torch.__version__}, cache {os.environ["CUDARL_CACHE"]}', flush=True)
    report, failures = dict(device=torch.cuda.get_device_name(0), arch=arch, loads=[], runs=[], occupancy=[]), []

    # 1. every library loads next to torch, both linkings; the fixed tasks' relu and vector_add compute right
    for cudart in ('static', 'shared'):
        for name, path in KERNELS.items():
            r = compile_candidate(path.read_text(), cudart=cudart)
            try:
                ctypes.CDLL(r.lib_path); ok, err = r.ok, ''
            except OSError as e: ok, err = False, str(e)
            report['loads'].append(dict(kernel=name, cudart=cudart, ok=ok, bytes=Path(r.lib_path).stat().st_size if r.lib_path else 0, error=err))
            if not ok: failures.append(f'load {name} ({cudart}): {err or feedback(r)}')
        for tname in ('relu', 'vector_add'):
            t = get_task(tname)
            r = compile_candidate(t.solution, t, cudart=cudart)
            if not r.ok: failures.append(f'task {tname} ({cudart}) did not build: {feedback(r)}'); continue
            try: lib = ctypes.CDLL(r.lib_path)
            except OSError as e: failures.append(f'task {tname} ({cudart}) does not load: {e}'); continue
            xs = [g(1_000_003) for _ in range(2 if tname == 'vector_add' else 1)]
            y = torch.full((1_000_003,), float('nan'), device='cuda')
            lib.launch.argtypes = [P] * (len(xs) + 1) + [I64, P]
            lib.launch(*[x.data_ptr() for x in xs], y.data_ptr(), 1_000_003, stream())
            torch.cuda.synchronize()
            ok = torch.equal(y, t.reference(*xs))
            report['runs'].append(dict(kernel=f'task {tname}', cudart=cudart, max_err=0.0 if ok else float('nan'), ok=ok))
            if not ok: failures.append(f'task {tname} ({cudart}) wrong')
    sizes = {}
    for row in report['loads']: sizes.setdefault(row['cudart'], []).append(row['bytes'])
    print('libraries load next to torch:', {k: f'{sum(v) / len(v) / 1e6:.2f} MB average' for k, v in sizes.items()},
          f'({sum(r["ok"] for r in report["loads"])}/{len(report["loads"])} loaded)', flush=True)

    # 2. bench kernels compute what torch computes
    for name, case in CASES.items():
        r = compile_candidate(KERNELS[name].read_text())
        if not r.ok: failures.append(f'{name} did not build: {feedback(r)}'); continue
        try: err, tol = case(ctypes.CDLL(r.lib_path))
        except Exception as e: failures.append(f'{name}: {type(e).__name__}: {e}'); continue
        torch.cuda.synchronize()
        ok = err <= tol
        report['runs'].append(dict(kernel=name, cudart='static', max_err=err, ok=ok))
        print(f'  {name:28} max error {err:.2e} (tolerance {tol:g}) {"ok" if ok else "WRONG"}', flush=True)
        if not ok: failures.append(f'{name}: max error {err}')

    # 3. occupancy and resources against the driver
    agree = disagree = 0
    for name, path in KERNELS.items():
        cubin, ours, mangled = cubin_of(path.read_text(), arch)
        for k, mname in zip(ours, mangled):
            drv = driver_occupancy(cubin, mname, block_sizes=(32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024))
            same_res = (drv['registers'], drv['shared_bytes']) == (k.registers, k.shared_bytes)
            for block, blocks in drv['blocks'].items():
                mine = theoretical_occupancy(k, block, arch)['active_blocks']
                row = dict(kernel=name, function=short_name(k.name), block=block, ours=mine, driver=blocks,
                           registers=(k.registers, drv['registers']), shared=(k.shared_bytes, drv['shared_bytes']))
                report['occupancy'].append(row)
                if mine == blocks and same_res: agree += 1
                else:
                    disagree += 1; failures.append(f'occupancy {name}/{short_name(k.name)} block {block}: ours {mine}, driver {blocks}; '
                                                   f'regs {k.registers}/{drv["registers"]}, smem {k.shared_bytes}/{drv["shared_bytes"]}')
    print(f'occupancy: {agree} (kernel, block size) pairs agree with the driver, {disagree} differ', flush=True)

    report['failures'] = failures
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, default=str))
    print('\n'.join(['FAILURES:'] + failures) if failures else 'all GPU checks passed', f'\nwrote {out}')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
