"""First look at a GPU machine: can a candidate built by nvcc be called from a torch process?

Builds the naive `relu` and `vector_add` solutions twice (CUDA runtime linked statically, nvcc's default,
and `-cudart shared`), loads each with ctypes into this torch process, calls the launcher with torch
pointers on torch's current stream and on a side stream, and checks the result. Prints a table and
writes JSON to --out (default gpu_check/gpu_smoke.json). `.ci/gpu checks` runs it.
"""
import ctypes, json, os, subprocess, sys, tempfile, time
from pathlib import Path
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from cudarl_wb.tasks import get_task
from cudarl_wb.cli import machine_info

def build(src, cudart, arch):
    d = Path(tempfile.mkdtemp()); (d/'k.cu').write_text(src)
    t0 = time.perf_counter()
    r = subprocess.run(['nvcc', '-shared', '-Xcompiler', '-fPIC', '-O3', f'-arch={arch}', f'-cudart={cudart}',
                        '-o', str(d/'k.so'), str(d/'k.cu')], capture_output=True, text=True)
    return d/'k.so', time.perf_counter() - t0, r.returncode, r.stderr[-500:]

def main():
    info = machine_info()
    rows, out = [], {'info': info}
    cap = torch.cuda.get_device_capability(0)
    arch = f'sm_{cap[0]}{cap[1]}'
    for cudart in ('static', 'shared'):
        for name in ('relu', 'vector_add'):
            t = get_task(name)
            lib, secs, rc, err = build(t.solution, cudart, arch)
            row = dict(task=name, cudart=cudart, build_s=round(secs, 2), rc=rc)
            if rc:
                row['error'] = err; rows.append(row); continue
            so = ctypes.CDLL(str(lib))
            n = 1_000_003
            g = torch.Generator().manual_seed(0)
            ins = [x.cuda() for x in t.make_inputs({'n': n}, g)]
            for stream_kind in ('current', 'side'):
                y = torch.full((n,), float('nan'), device='cuda')
                s = torch.cuda.current_stream() if stream_kind == 'current' else torch.cuda.Stream()
                args = [ctypes.c_void_p(x.data_ptr()) for x in ins] + [ctypes.c_void_p(y.data_ptr()),
                        ctypes.c_int64(n), ctypes.c_void_p(s.cuda_stream)]
                so.launch(*args)
                torch.cuda.synchronize()
                ref = t.run_reference(ins)[0]
                row[f'ok_{stream_kind}'] = bool(torch.equal(y, ref))
            # time at 16M with events, 20 reps, device synchronised inside the region
            n = 16_777_216
            ins = [x.cuda() for x in t.make_inputs({'n': n}, g)]
            y = torch.empty(n, device='cuda')
            args = [ctypes.c_void_p(x.data_ptr()) for x in ins] + [ctypes.c_void_p(y.data_ptr()), ctypes.c_int64(n),
                    ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)]
            for _ in range(3): so.launch(*args)
            times = []
            for _ in range(20):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda.synchronize(); a.record(); so.launch(*args); torch.cuda.synchronize(); b.record(); b.synchronize()
                times.append(a.elapsed_time(b))
            times.sort(); row['ms_16M'] = round(times[len(times)//2], 4)
            rows.append(row)
    out['rows'] = rows
    dest = Path(sys.argv[sys.argv.index('--out') + 1] if '--out' in sys.argv else 'gpu_check/gpu_smoke.json')
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=2, default=str))
    print(json.dumps({k: info[k] for k in ('torch', 'torch_cuda', 'nvcc_version', 'driver', 'gpus')}, indent=1))
    for r in rows: print(r)

if __name__ == '__main__': main()
