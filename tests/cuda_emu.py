"""Run a task's CUDA solution on the CPU, to check kernels where there is no GPU.

The CUDA source is rewritten a little (launches and `__shared__` declarations), compiled with g++ against
`emu/cuda_emu.h`, and run once per shape as a separate process, with inputs written to a file and
outputs read back. The emulator runs every GPU thread of a block as a fiber that switches at barriers,
places every buffer against a guard page, makes inputs read-only and fills outputs and shared memory
with NaN bytes, so the usual kernel bugs show up here as they would on a GPU, or more reliably:
a missing tail check faults, a missing `__syncthreads` reads NaN, a divergent barrier stops with an error.

It checks logic, not speed, and not what only a GPU does (memory ordering between blocks, fast-math
intrinsics, FMA contraction). The benchmarker on a GPU remains the judge.
"""
from __future__ import annotations
import math, os, re, struct, tempfile
from dataclasses import dataclass, field
from pathlib import Path
import torch
from cudarl_wb.core import bracket_end, run_capped, cache_dir, content_hash

EMU_DIR = Path(__file__).parent / 'emu'
_SYNC = re.compile(r'__syncthreads|__syncwarp|__shfl\w*_sync|__ballot_sync|__any_sync|__all_sync')
_ALIGN = r'(?:__align__\(\s*\d+\s*\)\s+)?'
_TYPE = r'((?:(?:const|volatile|unsigned|signed|long|short)\s+)*[A-Za-z_][\w:]*)'


class EmuUnsupported(ValueError):
    "The source uses something the emulator cannot run."


def strip_comments(src: str) -> str:
    "`src` without C/C++ comments, newlines kept so line numbers stay."
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith('//', i):
            j = src.find('\n', i); i = n if j < 0 else j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append('\n' * src.count('\n', i, j)); i = j
        elif src[i] in '"\'':
            q, j = src[i], i + 1
            while j < n and src[j] != q: j += 2 if src[j] == '\\' else 1
            out.append(src[i:j + 1]); i = j + 1
        else:
            out.append(src[i]); i += 1
    return ''.join(out)


def _match(s: str, i: int, op: str, cl: str) -> int:
    "Index just past the bracket that closes the `op` at `s[i]` (`bracket_end`), refused where it never closes."
    end = bracket_end(s, i, op, cl)
    if end is None: raise EmuUnsupported(f'unbalanced {op}{cl} at offset {i}')
    return end


def _split_top(s: str) -> list[str]:
    "Split `s` at commas outside brackets."
    parts, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([{': depth += 1
        elif ch in ')]}': depth -= 1
        if ch == ',' and depth == 0: parts.append(cur); cur = ''
        else: cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


def _rewrite_launches(s: str) -> str:
    while (k := s.find('<<<')) >= 0:
        j = k
        while j > 0 and s[j - 1].isspace(): j -= 1
        if s[j - 1] == '>':                          # kernel<T, 4><<<...>>>
            depth, j = 0, j - 1
            while j >= 0:
                depth += s[j] == '>'; depth -= s[j] == '<'
                if depth == 0: break
                j -= 1
            while j > 0 and s[j - 1].isspace(): j -= 1
        start = j
        while start > 0 and (s[start - 1].isalnum() or s[start - 1] in '_:'): start -= 1
        name = s[start:k].strip()
        end_cfg = s.find('>>>', k)
        if end_cfg < 0 or not name: raise EmuUnsupported('cannot read a <<<...>>> launch')
        cfg = _split_top(s[k + 3:end_cfg])
        if not 2 <= len(cfg) <= 4: raise EmuUnsupported(f'launch of {name} with {len(cfg)} configuration values')
        cfg += ['0'] * (4 - len(cfg))
        p = end_cfg + 3
        while s[p].isspace(): p += 1
        if s[p] != '(': raise EmuUnsupported(f'launch of {name} without arguments')
        q = _match(s, p, '(', ')')
        call = (f'__emu_launch(dim3({cfg[0]}), dim3({cfg[1]}), (size_t)({cfg[2]}), (cudaStream_t)({cfg[3]}), '
                f'[&]() {{ {name}{s[p:q]}; }})')
        s = s[:start] + call + s[q:]
    return s


def translate(src: str) -> str:
    "CUDA source → C++ for the emulator."
    s = strip_comments(src)
    s = re.sub(rf'extern\s+__shared__\s+{_ALIGN}{_TYPE}\s+{_ALIGN}(\w+)\s*\[\s*\]\s*;',
               lambda m: f'{m.group(1)}* {m.group(2)} = ({m.group(1)}*)__emu_dyn_shared();', s)
    counter = iter(range(1, 1 << 30))
    def static(m):
        t, name, dims, i = m.group(1), m.group(2), m.group(3) or '', next(counter)
        alias = f'__emu_t_{name}_{i}'
        return (f'using {alias} = {t}{dims}; {alias}& {name} = *({alias}*)__emu_static_shared(sizeof({alias}), {i});')
    s = re.sub(rf'__shared__\s+{_ALIGN}{_TYPE}\s+{_ALIGN}(\w+)\s*((?:\[[^\]]*\])*)\s*;', static, s)
    if '__shared__' in s: raise EmuUnsupported('a __shared__ declaration the emulator cannot rewrite (one variable per declaration, please)')
    if re.search(r'\basm\s*(volatile\s*)?\(', s): raise EmuUnsupported('inline PTX')
    return _rewrite_launches(s)


def _call_shim(task) -> str:
    "The C++ that calls the task's launcher with buffers and sizes read from the argument file."
    args, b, z = [], 0, 0
    for p in task.params:
        if p.role in ('in', 'out'): args.append(f'({p.ctype})p[{b}]'); b += 1
        elif p.role == 'size': args.append(f'({p.ctype})s[{z}]'); z += 1
        elif p.role == 'scalar': args.append(f'({p.ctype})__emu_scalar(s[{z}])'); z += 1
        else: args.append('(cudaStream_t)nullptr')
    return (f'\nstatic double __emu_scalar(int64_t bits) {{ double d; memcpy(&d, &bits, 8); return d; }}\n'
            f'static void __emu_call(void** p, const int64_t* s) {{ (void)s; {task.launcher_name}({", ".join(args)}); }}\n'
            f'#include "emu_main.h"\n')


@dataclass
class EmuBuild:
    ok: bool
    binary: str | None
    log: str = ''
    fibers: bool = False


def build(task, source: str, timeout: float = 180) -> EmuBuild:
    "Compile `source` for the emulator (cached by content)."
    try: cpp = translate(source)
    except EmuUnsupported as e: return EmuBuild(False, None, f'unsupported: {e}')
    fibers = bool(_SYNC.search(cpp))
    text = '#include "cuda_emu.h"\n' + cpp + _call_shim(task)
    hdr = (EMU_DIR / 'cuda_emu.h').read_text() + (EMU_DIR / 'emu_main.h').read_text()
    key = content_hash(text, hdr, fibers)
    d = cache_dir('emu') / key
    exe = d / 'emu'
    if exe.exists(): return EmuBuild(True, str(exe), '', fibers)
    d.mkdir(parents=True, exist_ok=True)
    (d / 'candidate.cpp').write_text(text)
    tmp = d / f'.emu.{os.getpid()}'
    r = run_capped(['g++', '-std=c++17', '-O1', '-fno-strict-aliasing', '-w', f'-DEMU_FIBERS={int(fibers)}',
                    '-I', str(EMU_DIR / 'include'), '-I', str(EMU_DIR), '-o', str(tmp), str(d / 'candidate.cpp')],
                   timeout=timeout)
    if r.returncode != 0 or not tmp.exists():
        return EmuBuild(False, None, (r.stdout + r.stderr)[-6000:], fibers)
    os.replace(tmp, exe)
    return EmuBuild(True, str(exe), '', fibers)


def _to_bytes(t: torch.Tensor) -> bytes:
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def run(task, exe: str, sizes: dict, inputs: list[torch.Tensor], timeout: float = 300, reverse: bool = False):
    "Run the emulated launcher once. Returns (outputs or None, error message or '')."
    ps = task.params
    outs = task.outputs(sizes)
    ins_p = [p for p in ps if p.role == 'in']; outs_p = [p for p in ps if p.role == 'out']
    bufs = [(p.name, x.numel() * x.element_size(), 1) for p, x in zip(ins_p, inputs)]
    bufs += [(p.name, o.nbytes, 0) for p, o in zip(outs_p, outs)]
    # the launcher takes pointers in signature order; the file lists buffers in that order too
    order = [p for p in ps if p.role in ('in', 'out')]
    by_name = {b[0]: b for b in bufs}
    data = {p.name: _to_bytes(x) for p, x in zip(ins_p, inputs)}
    blob = [struct.pack('<q', len(order))]
    for p in order:
        name, nbytes, is_in = by_name[p.name]
        blob.append(struct.pack('<qqq', nbytes, is_in, len(name.encode())) + name.encode())
    szs = [p for p in ps if p.role in ('size', 'scalar')]
    blob.append(struct.pack('<q', len(szs)))
    for p in szs:
        v = sizes[p.name]
        blob.append(struct.pack('<q', int(v)) if p.role == 'size' else struct.pack('<d', float(v)))
    for p in order:
        if p.role == 'in': blob.append(data[p.name])
    with tempfile.TemporaryDirectory() as d:
        a, o = Path(d) / 'args.bin', Path(d) / 'out.bin'
        a.write_bytes(b''.join(blob))
        env = {**os.environ, 'EMU_REVERSE': '1' if reverse else '0'}
        r = run_capped([exe, str(a), str(o)], timeout=timeout, env=env, max_output=1 << 16)
        if r.timed_out: return None, f'timed out after {timeout:.0f} s'
        if r.returncode != 0:
            err = [l for l in r.stderr.splitlines() if 'EMU ERROR' in l]
            return None, (err[0] if err else f'exit code {r.returncode}: {r.stderr[-500:]}')
        raw = o.read_bytes()
    res, off = [], 0
    for p, spec in zip([p for p in order if p.role == 'out'], outs):
        n = spec.nbytes
        res.append(torch.frombuffer(bytearray(raw[off:off + n]), dtype=getattr(torch, spec.dtype)).reshape(spec.shape).clone())
        off += n
    return res, ''


U32 = 2.0 ** -24   # float32's unit roundoff


def reference_and_magnitude(task, inputs):
    """The float64 reference of `inputs`, and the reference on their absolute values: for sums and products
    that is the sum of the magnitudes of the terms behind each output, the classical scale of rounding error."""
    exact = task.run_reference([x.double() if x.is_floating_point() else x for x in inputs])
    mag = task.run_reference([x.double().abs() if x.is_floating_point() else x for x in inputs])
    return exact, mag


def bound(task, sizes, r64, mag64):
    """What a correct kernel may differ by, elementwise:
    `rtol |r| + atol rms(r) + 8 u (|m| + sqrt(K) |r|)`, with u float32's unit roundoff, m the reference on
    absolute values and K the reduction length. The `|m|` term covers sums of signed terms in any order (their
    rounding is about u times the sum of magnitudes), the `sqrt(K) |r|` term sums of same-sign terms (whose
    rounding grows with the length of the sum), and `rtol`/`atol` the dtype's own rounding and the math library."""
    K = max(1, task.reduction_length(sizes))
    rms = r64.pow(2).mean().sqrt().item() if r64.numel() else 0.0
    return task.rtol * r64.abs() + task.atol * rms + 8 * U32 * (mag64.abs() + math.sqrt(K) * r64.abs())


def compare(task, sizes: dict, outputs, expected, magnitude) -> tuple[bool, float, str]:
    "Kernel outputs against the float64 reference under `bound`. Returns (ok, worst error / bound, where)."
    worst, where = 0.0, ''
    for i, (y, r, m) in enumerate(zip(outputs, expected, magnitude)):
        if tuple(y.shape) != tuple(r.shape): return False, math.inf, f'output {i}: shape {tuple(y.shape)} != {tuple(r.shape)}'
        y64, r64 = y.double(), r.double()
        b = bound(task, sizes, r64, m.double()).clamp_min(1e-300)
        err = (y64 - r64).abs()
        bad = ~(err <= b)                              # NaN counts as bad
        bad &= ~((y64 == r64) & torch.isinf(r64))      # matching infinities are fine
        ratio = (err / b).nan_to_num(math.inf).max().item() if err.numel() else 0.0
        worst = max(worst, ratio)
        if bad.any():
            idx = torch.nonzero(bad.reshape(-1))[0].item()
            pos = tuple(int(v) for v in torch.unravel_index(torch.tensor(idx), tuple(r.shape)))
            where = f'output {i}{list(pos)} = {y64.reshape(-1)[idx].item():.6g}, expected {r64.reshape(-1)[idx].item():.6g} ({int(bad.sum())} of {bad.numel()} bad)'
            return False, worst, where
    return True, worst, ''


@dataclass
class EmuResult:
    task: str
    ok: bool
    message: str = ''
    shapes: list = field(default_factory=list)   # (label, order, worst error/bound)
    fibers: bool = False


def default_shapes(task, budget: float = 1e8) -> list[dict]:
    """The shapes cheap enough to emulate: every shape but the timed (last) one, under `budget` operations
    (FLOPs or elements, whichever is larger); the first shape always."""
    def cost(s): return max(task.nflops(s), sum(x.numel for x in task.inputs(s) + task.outputs(s)))
    return [s for i, s in enumerate(task.shapes[:-1]) if i == 0 or cost(s) <= budget]


# The first shape is run four times: the thread orders forward and reversed, and the input distributions
# the benchmarker draws from (signed, scaled by 100 and by 0.01, heavy-tailed); the others once.
FIRST_SHAPE_RUNS = [(False, 'normal', 1.0), (True, 'uniform', 100.0), (False, 'heavy', 1.0), (False, 'normal', 0.01)]


def check(task, source: str, shapes=None, seed: int = 0, timeout: float = 300) -> EmuResult:
    "Build `source`, run it on `shapes` (default `default_shapes`) and compare with the float64 reference."
    b = build(task, source)
    if not b.ok: return EmuResult(task.name, False, f'emulator build failed: {b.log}')
    res = EmuResult(task.name, True, fibers=b.fibers)
    shapes = default_shapes(task) if shapes is None else shapes
    for i, sizes in enumerate(shapes):
        for j, (rev, dist, scale) in enumerate(FIRST_SHAPE_RUNS if i == 0 else FIRST_SHAPE_RUNS[:1]):
            inputs = task.make_inputs(sizes, torch.Generator().manual_seed(seed + 100 * i + j), scale=scale, dist=dist)
            expected, magnitude = reference_and_magnitude(task, inputs)
            outs, err = run(task, b.binary, sizes, inputs, timeout, reverse=rev)
            label = f'{task.shape_label(sizes)} ({dist} x{scale:g}{", threads in reverse order" if rev else ""})'
            if err:
                res.ok, res.message = False, f'{label}: {err}'
                return res
            ok, worst, where = compare(task, sizes, outs, expected, magnitude)
            res.shapes.append((task.shape_label(sizes), 'reverse' if rev else 'forward', worst))
            if not ok:
                res.ok, res.message = False, f'{label}: wrong: {where}'
                return res
    return res
