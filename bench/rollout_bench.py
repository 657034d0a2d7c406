"""Rollout speed: tokens/s of our batched sampling against `model.generate`.

A group rollout as GRPO runs it — a few distinct prompts of ~200 tokens (left-padded, lengths differ), n answers
each, 256 new tokens, temperature 1, no truncation — on a Qwen2-0.5B-shaped model (hidden 896, 24 layers,
14 heads, 2 kv heads, MLP 4864, vocabulary 151,936; random weights, bf16, built on the GPU: no download) and our
`small` preset. Random weights stop at random, so every method is forced to the full length: `min_new_tokens`
for `generate`, no stop tokens for ours.

Columns (methods):
- `hf_generate`: plain `model.generate(do_sample=True, ...)`, dynamic cache (no log-probs at all);
- `hf_static`: `generate(..., cache_implementation='static', disable_compile=True)`;
- `hf_static_compiled` (only with --hf-compile; in a subprocess under a time limit): HF's own static cache with
  its automatic `torch.compile`;
- `ours_dynamic`: `agents.sample_tokens(engine='dynamic')` (one prefill per prompt, exact log-probs);
- `ours_static`: `engine='static'`: static cache, finished rows masked, no host sync per step, no graph;
- `ours_graph`: `engine='graph'`: the same with the decode step captured as CUDA graphs, one per attention window, and
  the fused decode step (the default on a GPU);
- `ours_unfused` (only when named in --methods): the graph engine with the model's own forward instead of the fused step
  (`CUDARL_ROLLOUT_FUSED=0`);
- `ours_compiled` (only when named in --methods): the graph engine with the fused step's layer functions and draw through
  `torch.compile` (`CUDARL_ROLLOUT_COMPILE=1`); the first call, which compiles, is reported as `compile_s`;
- `ours_matmul`, `ours_matmul_compiled` (only when named): the same two with the fused step's attention as two batched
  matrix products (`CUDARL_ROLLOUT_ATTENTION=matmul`) instead of SDPA.

Per row: seconds for the whole call (prefill included; for ours also the graph captures, which happen per call),
tokens/s, ms per decode step, peak GPU memory, speedup over `hf_generate`, and on a GPU `floor_frac`: the least bytes a
step must move (the weights once, the filled part of the KV cache once: prompt plus half the answer on average) over
ms_per_step, as a fraction of the card's measured copy bandwidth (1.0 would be a step at the memory-bandwidth floor). A column that fails prints its error
and the run goes on; a time budget (--budget-s) skips what would not fit.

    python bench/rollout_bench.py --smoke          # CPU or GPU: tiny model, tiny sizes, seconds
    python bench/rollout_bench.py                  # GPU: qwen0.5b and small, batch 64 and 16 (~3 min on an H100)
    python bench/rollout_bench.py --hf-compile     # adds HF's compiled static cache for qwen0.5b at the largest batch

With --breakdown, each model and batch also gets one decode step taken apart: the PyTorch profiler's kernel time per
part of an eager step (attention with its projections and cache, MLP, output projection, sampling, log-probs, other),
then the whole step as the engine runs it (graph replays on a GPU, timed), each with the least bytes it must move
(weights once, the KV cache once, the logits once) and the fraction of the card's measured copy bandwidth that
reaches: `floor_frac`. The step taken apart is one from the middle of the answers, reading its window of the cache. --agents-from
runs an earlier `agents.py` instead of this checkout's, for a before/after on one machine:

    git show <commit>:cudarl_wb/agents.py > bench/agents_before.py
    python bench/rollout_bench.py --presets qwen0.5b,small,tiny --batches 64,256 --methods ours_graph \
        --agents-from bench/agents_before.py --out before.json
    python bench/rollout_bench.py --presets qwen0.5b --batches 64,256 --breakdown --budget-s 560 \
        --methods ours_graph,ours_unfused,ours_matmul,ours_compiled,ours_matmul_compiled --out after.json

Prints a table and writes bench/results/rollout_bench.json (and $CUDARL_BENCH_RESULTS/rollout_bench.json when it is set).
"""
from __future__ import annotations
import argparse, contextlib, json, os, platform, subprocess, sys, time, traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run from a checkout without installing
sys.path.insert(0, str(Path(__file__).resolve().parent))       # bench/_table.py, also when imported by a test
from _table import table, results_dir, RESULTS_ENV
import torch

QWEN2_05B = dict(hidden_size=896, num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
                 intermediate_size=4864, vocab_size=151936, max_position_embeddings=32768, tie_word_embeddings=True,
                 rms_norm_eps=1e-6, hidden_act='silu', rope_parameters={'rope_type': 'default', 'rope_theta': 1000000.0},
                 use_sliding_window=False, bos_token_id=151643, eos_token_id=151645, pad_token_id=151643)
# the graph engine under other settings of the agents module: method -> {module attribute: value}
SWITCHES = {'ours_unfused': {'FUSED_DECODE': False}, 'ours_compiled': {'COMPILE_DECODE': True},
            'ours_matmul': {'DECODE_ATTENTION_KERNEL': 'matmul'},
            'ours_matmul_compiled': {'DECODE_ATTENTION_KERNEL': 'matmul', 'COMPILE_DECODE': True}}
METHODS = ('ours_graph', 'hf_generate', 'ours_dynamic', 'hf_static', 'ours_static', *SWITCHES)   # the order they run in
OPT_IN = tuple(SWITCHES)   # run only when named in --methods
GPU_ONLY = ('ours_graph', *SWITCHES)
SLOW = {'hf_generate', 'hf_static', 'ours_dynamic', 'ours_static'}                   # timed once (seconds per run)


def build(preset: str, device, dtype):
    "(model, pad_id, token id range for random prompts)"
    if preset == 'qwen0.5b':
        from transformers import Qwen2Config, Qwen2ForCausalLM
        cfg = Qwen2Config(**QWEN2_05B)
        torch.manual_seed(0)
        with torch.device(device): model = Qwen2ForCausalLM(cfg)    # initialised where it runs: seconds, not minutes
        model = model.to(dtype).eval()
        model.generation_config.pad_token_id, model.generation_config.eos_token_id = 151643, 151645
        return model, 151643, (0, 151643)
    from cudarl_wb.models import build_model
    model, tok = build_model(preset, seed=0, device=device, dtype=dtype)
    return model.eval(), tok.pad_token_id, (4, len(tok))


def make_prompts(distinct: int, length: int, id_range, seed: int = 0) -> list[list[int]]:
    "`distinct` random prompts of about `length` tokens, each a different length (so the batch is left-padded)."
    g = torch.Generator().manual_seed(seed)
    lengths = [max(2, length + (8 * i if i % 2 else -8 * i)) for i in range(distinct)]
    return [torch.randint(*id_range, (n,), generator=g).tolist() for n in lengths]


def hf_generate(model, prompts, n, new, pad_id, static=False, compiled=False):
    from cudarl_wb.agents import _left_pad
    rows = [p for p in prompts for _ in range(n)]
    ids, mask = _left_pad(rows, pad_id, model.device)
    extra = dict(cache_implementation='static', disable_compile=not compiled) if static else {}
    out = model.generate(input_ids=ids, attention_mask=mask, do_sample=True, temperature=1.0, top_k=0, top_p=1.0,
                         max_new_tokens=new, min_new_tokens=new, pad_token_id=pad_id, **extra)
    got = out.shape[1] - ids.shape[1]
    if got != new: raise RuntimeError(f'generate returned {got} new tokens, not {new}')
    return out


@contextlib.contextmanager
def switched(agents, method: str):
    "The agents module with `method`'s settings (SWITCHES) for the duration of the block."
    switches = SWITCHES.get(method, {})
    if missing := [k for k in switches if not hasattr(agents, k)]: raise RuntimeError(f'this version of the agents module has no {missing}')
    saved = {k: getattr(agents, k) for k in switches}
    for k, v in switches.items(): setattr(agents, k, v)
    try: yield
    finally:
        for k, v in saved.items(): setattr(agents, k, v)


def ours(model, prompts, n, new, pad_id, method):
    import cudarl_wb.agents as agents
    from cudarl_wb.agents import Sampling, sample_tokens, LAST_ROLLOUT
    with switched(agents, method):
        rows = sample_tokens(model, prompts, n, Sampling(max_new_tokens=new, temperature=1.0), [], pad_id, seed=0,
                             engine='graph' if method in SWITCHES else method.removeprefix('ours_'))
    bad = [i for i, (r, lp, why) in enumerate(rows) if len(r) != new or len(lp) != new or why != 'length']
    if bad: raise RuntimeError(f'rows {bad[:5]} did not run to {new} tokens')
    return dict(LAST_ROLLOUT)


def sync(device):
    if device.type == 'cuda': torch.cuda.synchronize(device)


def timed(fn, device):
    "Seconds of one call, its peak GPU memory (GiB) and what it returned."
    if device.type == 'cuda': torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats(device)
    sync(device); t0 = time.perf_counter()
    out = fn()
    sync(device); dt = time.perf_counter() - t0
    peak = round(torch.cuda.max_memory_allocated(device) / 2**30, 3) if device.type == 'cuda' else None
    return dt, peak, out


def run_method(method, model, prompts, n, new, pad_id, device, reps, warm_new, budget_left):
    "One column: a short warm-up, then timed calls. Returns the row's measurements (or raises)."
    if method.startswith('hf'):
        static = method != 'hf_generate'
        call = lambda k: hf_generate(model, prompts, n, k, pad_id, static=static)
    else:
        call = lambda k: ours(model, prompts, n, k, pad_id, method)
    compiles = 'COMPILE_DECODE' in SWITCHES.get(method, {})
    if compiles and budget_left < 60: return dict(skipped=f'compiling needs ~60 s; {budget_left:.0f} s left')
    if compiles:   # the first call compiles for this shape; time the second as the warm-up
        t_compile, _, _ = timed(lambda: call(new), device)
        warm_new = new
    t_warm, _, _ = timed(lambda: call(warm_new), device)
    projected = t_warm * new / warm_new * (1 if method in SLOW else reps)
    if projected > budget_left: return dict(skipped=f'would take ~{projected:.0f} s; {budget_left:.0f} s left in the budget')
    times, peaks, info = [], [], None
    for _ in range(1 if method in SLOW else reps):
        dt, peak, out = timed(lambda: call(new), device)
        times.append(dt); peaks.append(peak)
        if isinstance(out, dict): info = out
    s = sorted(times)[len(times) // 2]
    row = dict(seconds=round(s, 3), tokens_per_s=round(len(prompts) * n * new / s), ms_per_step=round(1000 * s / new, 2),
               peak_gib=max(peaks) if peaks[0] is not None else None, runs=len(times), warmup_s=round(t_warm, 3))
    if compiles: row['compile_s'] = round(t_compile, 1)
    if info: row.update(engine=info.get('engine'), graph=info.get('graph'), graphs=info.get('graphs'), host_syncs=info.get('host_syncs'),
                        fused=info.get('fused'), compiled=info.get('compiled'), compile_error=info.get('compile_error'),
                        attention=info.get('attention'), windows=len(info.get('windows') or []) or None,
                        fallback=info.get('fallback_from'), decoder=info.get('decoder'), prefill_s=info.get('prefill_s'))
    return row


PARTS = ('attention', 'mlp', 'output projection', 'sampling', 'log-probs', 'other')
MODULE_PARTS = (('.self_attn', 'attention'), ('.mlp', 'mlp'), ('lm_head', 'output projection'))
RANGE_PARTS = {'rollout.sampling': 'sampling', 'rollout.logprobs': 'log-probs', 'bench.sample': 'sampling',
               # the fused step's ranges: attention with its norm and q/k/v; 'mlp' with the output projection and norm before it
               'rollout.attention': 'attention', 'rollout.mlp': 'mlp', 'rollout.output': 'output projection'}


def load_agents(path=None):
    "The `cudarl_wb.agents` module: the package's own, or the file at `path` (an earlier version, to compare against)."
    import importlib, importlib.util
    if not path: return importlib.import_module('cudarl_wb.agents')
    spec = importlib.util.spec_from_file_location('cudarl_wb.agents', path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules['cudarl_wb.agents'] = mod
    spec.loader.exec_module(mod)
    return mod


def copy_bandwidth(device, mib: int = 1024, reps: int = 10) -> float:
    "Bytes/s of a device-to-device copy (read + write counted), the card's practical memory bandwidth."
    src = torch.empty(mib * 2**20, dtype=torch.uint8, device=device); dst = torch.empty_like(src)
    dst.copy_(src); sync(device)
    t0 = time.perf_counter()
    for _ in range(reps): dst.copy_(src)
    sync(device)
    return 2 * src.numel() * reps / (time.perf_counter() - t0)


def weight_bytes(model) -> int:
    "Bytes of the weights a decode step reads: every parameter once, the input embedding only when tied to the output."
    weights = sum(p.numel() * p.element_size() for p in {id(p): p for p in model.parameters()}.values())
    emb = model.get_input_embeddings().weight
    if emb is not model.get_output_embeddings().weight: weights -= emb.numel() * emb.element_size()   # a lookup reads rows, not the table
    return weights


def kv_bytes_per_column(model, rows: int) -> int:
    "Bytes of keys and values one cache column holds for `rows` rows."
    cfg = model.config
    head_dim = getattr(cfg, 'head_dim', None) or cfg.hidden_size // cfg.num_attention_heads
    elem = next(model.parameters()).element_size()
    return cfg.num_hidden_layers * 2 * cfg.num_key_value_heads * head_dim * elem * rows


def floor_bytes(model, rows: int, prompt_width: int, new: int) -> int:
    "The least bytes an average decode step of a call moves: the weights once, the filled cache (prompt + half the answer) once."
    return weight_bytes(model) + kv_bytes_per_column(model, rows) * (prompt_width + new // 2)


def part_bytes(model, dec, filled: int) -> dict:
    "Bytes one decode step must read (or write) at the least, per part: weights once, the `filled` cache columns once, the logits once."
    size = lambda m: sum(p.numel() * p.element_size() for p in m.parameters())
    mods = dict(model.named_modules())
    per = {part: sum(size(m) for n, m in mods.items() if n.endswith(suffix)) for suffix, part in MODULE_PARTS}
    rows, vocab = dec.logits.shape
    kv = kv_bytes_per_column(model, rows) * filled
    weights = weight_bytes(model)
    emb = model.get_input_embeddings().weight
    per['attention'] += kv
    per['output projection'] += rows * vocab * emb.element_size()
    per['sampling'] = rows * vocab * 4
    return dict(per, total=weights + kv, weights=weights, kv=kv)


def _part_of(event) -> str:
    e = event
    while e is not None:
        for suffix, part in MODULE_PARTS:
            if e.name == f'bench.module{suffix}': return part
        if e.name in RANGE_PARTS: return RANGE_PARTS[e.name]
        e = e.cpu_parent
    return 'other'


def _labelled(model):
    "Forward hooks that wrap attention, MLP and output-projection modules in profiler ranges; returns their handles."
    handles, open_ = [], {}
    for name, m in model.named_modules():
        suffix = next((s for s, _ in MODULE_PARTS if name.endswith(s)), None)
        if suffix is None: continue
        def pre(mod, args, label=f'bench.module{suffix}'):
            open_[id(mod)] = torch.profiler.record_function(label); open_[id(mod)].__enter__()
        def post(mod, args, out): open_.pop(id(mod)).__exit__(None, None, None)
        handles += [m.register_forward_pre_hook(pre), m.register_forward_hook(post)]
    return handles


def profile_parts(dec, model, steps: int, hooks: bool = True) -> dict:
    "Device time (CPU time on a CPU) per part of an eager decode step, ms per step, from the PyTorch profiler."
    from torch.profiler import profile, ProfilerActivity, record_function
    gpu = dec.logits.device.type == 'cuda'
    handles = _labelled(model) if hooks else []
    try:
        with profile(activities=[ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])) as prof:
            for _ in range(steps):
                with record_function('bench.sample'): dec.sample()
                dec.advance()
            sync(dec.logits.device)
    finally:
        for h in handles: h.remove()
    ms = dict.fromkeys(PARTS, 0.0)
    for e in prof.events():
        if gpu: t = sum(k.duration for k in getattr(e, 'kernels', []))
        else: t = getattr(e, 'self_cpu_time_total', 0)
        if t: ms[_part_of(e)] += t / 1000 / steps
    return ms


def seek(dec, s: int):
    "Put a fresh decoder at decode step `s`: its first `s` answer columns opened (left as zeros), positions moved on."
    if s <= 0: return
    dec.positions.add_(s); dec.write_at.add_(s); dec.index.add_(s)
    dec.attn_mask[..., dec.width:dec.width + s] = dec.open_value


def decode_breakdown(agents, model, prompts, n, pad_id, device, new: int, replays: int = 100, compile: bool = False) -> dict:
    "A mid-answer decode step taken apart: per-part time from the profiler, the step timed as the engine runs it, bytes, bandwidth."
    samp = agents.Sampling(max_new_tokens=new, temperature=1.0)
    cache, logits, mask, pos = agents._prefill(model, prompts, n, pad_id, device)
    stop = torch.tensor([], dtype=torch.long, device=device)
    dec = agents.StaticDecoder(model, cache, logits, mask, pos, new, samp, stop, agents._generator(device, 0),
                               **({'compile': True} if compile else {}))
    del cache
    gpu = device.type == 'cuda'
    replays = max(1, min(replays, new - 8))
    width = mask.shape[1]
    start = max(0, new // 2 - replays // 2 - 5)       # the timed steps centre on the middle of the answers
    last = start + 5 + replays                        # 2 warm-up and 3 profiled steps, then the replays
    if hasattr(dec, 'set_window'): seek(dec, start); dec.set_window(width + last + 1)   # one window covers every timed step
    for _ in range(2): dec.step()                                  # warm-up, as the engine does before capture
    fused = getattr(dec, 'fused', None) is not None
    parts = profile_parts(dec, model, 3, hooks=not compile and not fused)   # compiled modules run fused: no per-module ranges
    captured = gpu and dec.capture()
    run = dec.graph.replay if captured else dec.step
    run(); sync(device); t0 = time.perf_counter()
    for _ in range(replays - 1): run()
    sync(device)
    step_ms = 1000 * (time.perf_counter() - t0) / (replays - 1) if replays > 1 else float('nan')
    filled = width + (start + last) // 2 if hasattr(dec, 'set_window') else dec.size
    return dict(parts=parts, step_ms=step_ms, graph=dec.graph_status if gpu else 'off', bytes=part_bytes(model, dec, filled),
                rows=dec.logits.shape[0], cache_columns=dec.size, window=getattr(dec, 'window', dec.size), filled=filled,
                fused=getattr(dec, 'fused_status', 'off'))


def breakdown_rows(name, batch, bd, bandwidth) -> list[dict]:
    "Table rows of one breakdown: ms per part, its share, and the fraction of the bandwidth floor it reaches."
    floor = lambda nbytes, ms: round(nbytes / (ms / 1000) / bandwidth, 3) if nbytes and ms > 0 else None
    b, total = bd['bytes'], sum(bd['parts'].values())
    out = [dict(model=name, batch=batch, part=p, ms=round(ms, 4), share=round(ms / total, 3) if total else None,
                mb_read=round(b.get(p, 0) / 1e6, 1) or None, floor_frac=floor(b.get(p, 0), ms))
           for p, ms in bd['parts'].items()]
    out.append(dict(model=name, batch=batch, part='step (kernels)', ms=round(total, 4), mb_read=round(b['total'] / 1e6, 1),
                    floor_frac=floor(b['total'], total)))
    out.append(dict(model=name, batch=batch, part=f'step ({"graph" if bd["graph"] == "captured" else "eager"}, timed)',
                    ms=round(bd['step_ms'], 4), mb_read=round(b['total'] / 1e6, 1), floor_frac=floor(b['total'], bd['step_ms'])))
    return out


def compiled_in_subprocess(args, preset, batch, distinct, timeout):
    "HF's static cache with its automatic torch.compile, in its own process so a slow or failing compile cannot stall the run."
    cmd = [sys.executable, __file__, '--only-hf-compiled', '--presets', preset, '--batches', str(batch),
           '--distinct', str(distinct), '--prompt-len', str(args.prompt_len), '--new-tokens', str(args.new_tokens),
           '--dtype', args.dtype, '--out', '-']
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(error=f'no result within {timeout:.0f} s (compile included)')
    line = next((l for l in reversed(p.stdout.splitlines()) if l.startswith('{')), None)
    if p.returncode or not line: return dict(error=f'exit {p.returncode}: {(p.stderr or p.stdout)[-400:]}')
    return json.loads(line)


def only_hf_compiled(args, device, dtype):
    preset, batch = args.presets.split(',')[0], int(args.batches.split(',')[0])
    model, pad_id, id_range = build(preset, device, dtype)
    prompts = make_prompts(args.distinct_for(batch), args.prompt_len, id_range)
    n = batch // len(prompts)
    t_first, _, _ = timed(lambda: hf_generate(model, prompts, n, args.new_tokens, pad_id, static=True, compiled=True), device)
    dt, peak, _ = timed(lambda: hf_generate(model, prompts, n, args.new_tokens, pad_id, static=True, compiled=True), device)
    print(json.dumps(dict(seconds=round(dt, 3), tokens_per_s=round(batch * args.new_tokens / dt),
                          ms_per_step=round(1000 * dt / args.new_tokens, 2), peak_gib=peak, runs=1, warmup_s=round(t_first, 3))))
    return 0


def breakdown(a, agents, preset, model, prompts, n, pad_id, device, info, method='ours_graph') -> list[dict]:
    "The per-part rows of one model and batch, with the agents module set as `method` runs it."
    batch = len(prompts) * n
    compile = 'COMPILE_DECODE' in SWITCHES.get(method, {})
    try:
        with torch.no_grad(), switched(agents, method):
            bd = decode_breakdown(agents, model, prompts, n, pad_id, device, a.new_tokens, compile=compile)
    except Exception as e:
        traceback.print_exc(limit=3)
        return [dict(model=preset, batch=batch, part=f'error: {type(e).__name__}: {str(e)[:200]}')]
    bw = info.get('copy_gb_per_s', 0) * 1e9 or copy_bandwidth(device)
    out = breakdown_rows(preset + ('' if method == 'ours_graph' else ' ' + method.removeprefix('ours_')), batch, bd, bw)
    out[-1]['note'] = f'window {bd["window"]} of {bd["cache_columns"]} columns, {bd["filled"]} filled; fused step {bd["fused"]}'[:100]
    for r in out: print(r, flush=True)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--smoke', action='store_true', help='tiny model and sizes (seconds, CPU or GPU)')
    p.add_argument('--presets', default=None, help="comma-separated: qwen0.5b, small, tiny (default: qwen0.5b,small; --smoke: tiny)")
    p.add_argument('--batches', default=None, help='rows per call (default 64,16; --smoke: 4)')
    p.add_argument('--distinct', type=int, default=None, help='distinct prompts per call (default: 4 at batch >= 64, else 2)')
    p.add_argument('--prompt-len', type=int, default=None, help='prompt tokens, about (default 200; --smoke 24)')
    p.add_argument('--new-tokens', type=int, default=None, help='new tokens per answer (default 256; --smoke 8)')
    p.add_argument('--methods', default=','.join(m for m in METHODS if m not in OPT_IN), help=f'comma-separated subset of {",".join(METHODS)}')
    p.add_argument('--reps', type=int, default=3, help='timed calls for the fast columns (the slow ones run once)')
    p.add_argument('--budget-s', type=float, default=330, help='skip what would not finish within this many seconds')
    p.add_argument('--hf-compile', action='store_true', help="also time generate's static cache with torch.compile (qwen0.5b, largest batch)")
    p.add_argument('--dtype', default=None, help='bf16 on a GPU, fp32 on the CPU by default')
    p.add_argument('--device', default=None)
    p.add_argument('--out', default=str(Path(__file__).resolve().parent / 'results' / 'rollout_bench.json'))
    p.add_argument('--breakdown', action='store_true', help='also take one decode step apart per model and batch (profiler)')
    p.add_argument('--agents-from', default=None, help='run the engines of this agents.py instead (an earlier version)')
    p.add_argument('--only-hf-compiled', action='store_true', help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    t_start = time.perf_counter()
    agents = load_agents(a.agents_from)
    from cudarl_wb.models import as_device, as_torch_dtype
    device = as_device(a.device)
    gpu = device.type == 'cuda'
    a.dtype = a.dtype or ('bf16' if gpu else 'fp32')
    dtype = as_torch_dtype(a.dtype, device)
    a.presets = a.presets or ('tiny' if a.smoke else 'qwen0.5b,small')
    a.batches = a.batches or ('4' if a.smoke else '64,16')
    a.prompt_len = a.prompt_len or (24 if a.smoke else 200)
    a.new_tokens = a.new_tokens or (8 if a.smoke else 256)
    a.distinct_for = lambda b: a.distinct or (4 if b >= 64 else 2)
    if a.only_hf_compiled: return only_hf_compiled(a, device, dtype)
    methods = [m for m in a.methods.split(',') if m]
    if unknown := set(methods) - set(METHODS): p.error(f'unknown methods {sorted(unknown)}')
    import transformers
    info = dict(device=torch.cuda.get_device_name(device) if gpu else f'cpu ({platform.processor() or platform.machine()})',
                torch=torch.__version__, transformers=transformers.__version__, python=platform.python_version(),
                dtype=str(dtype).removeprefix('torch.'), prompt_len=a.prompt_len, new_tokens=a.new_tokens,
                agents=a.agents_from or 'this checkout')
    if a.breakdown or gpu: info['copy_gb_per_s'] = round(copy_bandwidth(device) / 1e9, 1)
    print(info, flush=True)
    rows, parts = [], []
    warm_new = min(16, a.new_tokens)
    for preset in a.presets.split(','):
        try: model, pad_id, id_range = build(preset, device, dtype)
        except Exception as e:
            print(f'{preset}: could not build ({type(e).__name__}: {e})', flush=True)
            rows.append(dict(model=preset, error=f'build: {type(e).__name__}: {e}')); continue
        for batch in (int(b) for b in a.batches.split(',')):
            prompts = make_prompts(a.distinct_for(batch), a.prompt_len, id_range)
            n = max(1, batch // len(prompts))
            for method in methods:
                base = dict(model=preset, batch=len(prompts) * n, prompts=len(prompts), n=n,
                            prompt_tokens='/'.join(str(len(q)) for q in prompts), new_tokens=a.new_tokens, method=method)
                if method in GPU_ONLY and not gpu:
                    rows.append(dict(base, skipped='needs a GPU')); continue
                left = a.budget_s - (time.perf_counter() - t_start)
                try:
                    with torch.no_grad(): row = dict(base, **run_method(method, model, prompts, n, a.new_tokens, pad_id, device,
                                                                        a.reps, warm_new, left))
                except Exception as e:
                    row = dict(base, error=f'{type(e).__name__}: {str(e)[:300]}')
                    traceback.print_exc(limit=3)
                    if gpu: torch.cuda.empty_cache()
                if row.get('ms_per_step') and info.get('copy_gb_per_s'):
                    floor = floor_bytes(model, row['batch'], max(len(q) for q in prompts), a.new_tokens)
                    row['floor_frac'] = round(floor / (row['ms_per_step'] / 1000) / (info['copy_gb_per_s'] * 1e9), 3)
                rows.append(row)
                print({k: v for k, v in row.items() if k not in ('prompt_tokens',)}, flush=True)
            if a.breakdown: parts += breakdown(a, agents, preset, model, prompts, n, pad_id, device, info)
            for method in SWITCHES if a.breakdown else ():   # each setting that ran for this shape (and compiled for it)
                if any(r['method'] == method and r['model'] == preset and r.get('batch') == len(prompts) * n
                       and 'tokens_per_s' in r for r in rows):
                    parts += breakdown(a, agents, preset, model, prompts, n, pad_id, device, info, method)
        del model
        if gpu: torch.cuda.empty_cache()
    if a.hf_compile and gpu:
        preset, batch = a.presets.split(',')[0], max(int(b) for b in a.batches.split(','))
        left = a.budget_s - (time.perf_counter() - t_start)
        base = dict(model=preset, batch=batch, prompts=a.distinct_for(batch), n=batch // a.distinct_for(batch),
                    new_tokens=a.new_tokens, method='hf_static_compiled')
        row = dict(base, **compiled_in_subprocess(a, preset, batch, a.distinct_for(batch), left)) if left > 60 else \
            dict(base, skipped=f'{left:.0f} s left in the budget')
        rows.append(row); print(row, flush=True)
    for r in rows:   # speedup over plain generate at the same model and batch
        ref = next((x for x in rows if x['model'] == r['model'] and x.get('batch') == r.get('batch')
                    and x['method'] == 'hf_generate' and 'tokens_per_s' in x), None)
        if ref and 'tokens_per_s' in r: r['speedup'] = round(r['tokens_per_s'] / ref['tokens_per_s'], 2)
    print(f'\nRollout throughput: {a.prompt_len}-token prompts (about), {a.new_tokens} new tokens, temperature 1, '
          f'{info["dtype"]} on {info["device"]}')
    table(rows, ['model', 'batch', 'prompts', 'n', 'method', 'seconds', 'tokens_per_s', 'ms_per_step', 'floor_frac', 'peak_gib',
                 'speedup', 'prefill_s', 'graph', 'graphs', 'windows', 'decoder', 'host_syncs', 'attention', 'compiled', 'skipped', 'error'])
    if parts:
        print(f'\nOne decode step by part: kernel ms per step (profiled eager step), share, least MB read, fraction of the '
              f'{info["copy_gb_per_s"]} GB/s copy bandwidth reached; then the whole step as the engine runs it')
        table(parts, ['model', 'batch', 'part', 'ms', 'share', 'mb_read', 'floor_frac', 'note'])
    result = dict(info=info, rows=rows, breakdown=parts, wall_s=round(time.perf_counter() - t_start, 1))
    if a.out != '-':
        for out in [Path(a.out)] + ([results_dir() / 'rollout_bench.json'] if os.environ.get(RESULTS_ENV) else []):
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(result, indent=2))
            print(f'wrote {out}')
    print(f'wall time {result["wall_s"]} s')
    return 0


if __name__ == '__main__':
    if not torch.cuda.is_available(): torch.set_num_threads(min(2, torch.get_num_threads()))   # a shared CPU machine
    sys.exit(main())
