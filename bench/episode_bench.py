"""Rollout speed and memory of the agents' sampling loop, and where an episode's time goes.

1. Sampling throughput, new tokens/s and peak GPU memory, for a group (one prompt, n answers) and for a
   batch of distinct prompts, every answer forced to the full length (no stop token):
   - `ours`: `agents.sample_tokens` (KV cache, one prefill per prompt, per-token log-probs on the spot);
   - `hf`: `model.generate(do_sample=True)` (no log-probs);
   - `hf+logits`: `model.generate(..., output_logits=True, return_dict_in_generate=True)` and the
     log-probs computed from the kept logits (what exact log-probs cost through `generate`).
2. Lengths that differ (the usual case in a group): `ours` drops finished rows from the batch; the
   same batch where every row runs to the end shows what that saves.
3. An episode batch (tiny model, random weights): seconds in generation and in the Tester per turn.

    python bench/episode_bench.py --quick                     # CPU: tiny, small batches
    python bench/episode_bench.py                             # GPU: tiny and small, groups of 8 and 16, 256 and 1024 tokens
    python bench/episode_bench.py --presets small --groups 16 --new-tokens 1024

Prints tables and writes bench/results/episode_bench.json (or --out).
"""
from __future__ import annotations
import argparse, json, os, platform, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run from a checkout without installing
sys.path.insert(0, str(Path(__file__).resolve().parent))       # bench/_table.py, also when imported by a test
from _table import table
import torch
import torch.nn.functional as F
from cudarl_wb.agents import Sampling, sample_tokens, encode_prompt, generator_messages, optimizer_messages, Generator, Optimizer, Tester
from cudarl_wb.models import AgentModels, load_model, as_device
from cudarl_wb.tasks import get_task, TASKS


def sync(device):
    if device.type == 'cuda': torch.cuda.synchronize(device)

def reset_peak(device):
    if device.type == 'cuda': torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats(device)

def peak_gib(device):
    return round(torch.cuda.max_memory_allocated(device) / 2**30, 3) if device.type == 'cuda' else None


def timed(fn, device, reps):
    "Median seconds of `fn()` over `reps` runs after one warm-up, and the peak memory of the last run."
    fn(); ts = []
    for _ in range(reps):
        reset_peak(device); sync(device); t0 = time.perf_counter(); fn(); sync(device); ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2], peak_gib(device)


def prompts_for(tok, distinct: int):
    names = sorted(TASKS)
    out = []
    for i in range(distinct):
        t = get_task(names[i % len(names)])
        out.append(encode_prompt(tok, generator_messages(t) if i % 2 == 0 else optimizer_messages(t, t.solution, 'Compiled for sm_90.')))
    return out


def hf_generate(model, tok, prompts, n, new, logprobs: bool):
    from cudarl_wb.agents import _left_pad
    rows = [p for p in prompts for _ in range(n)]
    ids, mask = _left_pad(rows, tok.pad_token_id, model.device)
    out = model.generate(input_ids=ids, attention_mask=mask, do_sample=True, max_new_tokens=new, min_new_tokens=new,
                         top_k=0, top_p=1.0, temperature=1.0, output_logits=logprobs, return_dict_in_generate=logprobs,
                         pad_token_id=tok.pad_token_id)
    if not logprobs: return out
    seq = out.sequences[:, ids.shape[1]:]
    logits = torch.stack(out.logits, 1).float()                 # [rows, new, vocab]: every step kept
    return F.log_softmax(logits, -1).gather(-1, seq[..., None])[..., 0]


def throughput(preset, device, dtype, groups, news, reps, distinct_prompts):
    model, tok = load_model(preset, device=device, dtype=dtype)
    model.eval()
    rows = []
    for n in groups:
        for new in news:
            for shape, prompts, k in (('group', prompts_for(tok, 1), n), ('distinct', prompts_for(tok, distinct_prompts), max(1, n // distinct_prompts))):
                total = len(prompts) * k * new
                samp = Sampling(max_new_tokens=new)
                cases = {'ours': lambda: sample_tokens(model, prompts, k, samp, [], tok.pad_token_id, seed=0),
                         'hf': lambda: hf_generate(model, tok, prompts, k, new, False),
                         'hf+logits': lambda: hf_generate(model, tok, prompts, k, new, True)}
                for what, fn in cases.items():
                    try:
                        with torch.no_grad(): s, peak = timed(fn, device, reps)
                        rows.append(dict(model=preset, dtype=str(model.dtype).removeprefix('torch.'), shape=shape, prompts=len(prompts),
                                         answers=len(prompts) * k, new_tokens=new, method=what, seconds=round(s, 3),
                                         tokens_per_s=round(total / s), peak_gib=peak))
                    except torch.cuda.OutOfMemoryError as e:
                        rows.append(dict(model=preset, shape=shape, answers=len(prompts) * k, new_tokens=new, method=what, error='out of memory'))
                        reset_peak(device)
                    print(rows[-1], flush=True)
    del model
    return rows


def ragged(preset, device, dtype, n, new, reps):
    "Answers that stop at different lengths: our loop drops finished rows; compare with every row running to the end."
    model, tok = load_model(preset, device=device, dtype=dtype)
    model.eval()
    prompt = prompts_for(tok, 1)
    # make a quarter of the rows stop early: pick the token each row is likely to emit soon as a stop token
    probe = sample_tokens(model, prompt, n, Sampling(max_new_tokens=new // 8), [], tok.pad_token_id, seed=1)
    stops = sorted({r[0][-1] for r in probe[: max(1, n * 3 // 4)]})
    samp = Sampling(max_new_tokens=new)
    with torch.no_grad():
        out = sample_tokens(model, prompt, n, samp, stops, tok.pad_token_id, seed=1)
        lens = [len(r) for r, _, _ in out]
        s_drop, peak = timed(lambda: sample_tokens(model, prompt, n, samp, stops, tok.pad_token_id, seed=1), device, reps)
        s_full, _ = timed(lambda: sample_tokens(model, prompt, n, samp, [], tok.pad_token_id, seed=1), device, reps)
    return dict(model=preset, answers=n, new_tokens=new, mean_len=round(sum(lens) / len(lens), 1), max_len=max(lens),
                seconds_ragged=round(s_drop, 3), seconds_all_full_length=round(s_full, 3), peak_gib=peak)


def episode_time(device, dtype, tasks, group, turns, new):
    from cudarl_wb.episode import run_episodes
    model, tok = load_model('tiny', device=device, dtype=dtype)
    am = AgentModels.create(model, tok)
    samp = Sampling(max_new_tokens=new)
    with Tester() as tester:
        t0 = time.perf_counter()
        eps = run_episodes(tasks, Generator(am, sampling=samp), Optimizer(am, sampling=samp), tester, group_size=group,
                           max_turns=turns, progress=False)
        wall = time.perf_counter() - t0
        gen = sum(t.seconds['generate'] for e in eps for t in e.turns)
        test = sum(t.seconds['test'] for e in eps for t in e.turns)
        return dict(mode=tester.mode, episodes=len(eps), turns=sum(len(e.turns) for e in eps), new_tokens=new,
                    wall_s=round(wall, 2), generate_s=round(gen, 2), test_s=round(test, 2), tester=tester.stats)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--quick', action='store_true', help='small sizes (a CPU run)')
    p.add_argument('--presets', default=None, help='comma-separated presets (default: tiny,small on a GPU, tiny on a CPU)')
    p.add_argument('--groups', default=None, help='answers per batch, e.g. 8,16')
    p.add_argument('--new-tokens', default=None, help='new tokens per answer, e.g. 256,1024')
    p.add_argument('--distinct', type=int, default=4, help='distinct prompts in the "distinct" shape')
    p.add_argument('--reps', type=int, default=3)
    p.add_argument('--dtype', default=None)
    p.add_argument('--device', default=None)
    p.add_argument('--out', default=str(Path(__file__).resolve().parent/'results'/'episode_bench.json'))
    a = p.parse_args(argv)
    device = as_device(a.device)
    gpu = device.type == 'cuda'
    if not gpu: torch.set_num_threads(1)   # a shared 2-core machine: more threads than free cores spin
    presets = (a.presets or ('tiny,small' if gpu and not a.quick else 'tiny')).split(',')
    groups = [int(x) for x in (a.groups or ('4' if a.quick or not gpu else '8,16')).split(',')]
    news = [int(x) for x in (a.new_tokens or ('64' if a.quick or not gpu else '256,1024')).split(',')]
    reps = 1 if a.quick else a.reps
    info = dict(device=torch.cuda.get_device_name(device) if gpu else f'cpu ({platform.processor() or platform.machine()})',
                torch=torch.__version__, python=platform.python_version())
    print(info)
    res = dict(info=info, throughput=[], ragged=[], episode=None)
    for preset in presets:
        res['throughput'] += throughput(preset, device, a.dtype, groups, news, reps, a.distinct)
        res['ragged'].append(ragged(preset, device, a.dtype, max(groups), max(news), reps))
    print('\nSampling throughput (every answer runs to the full length)')
    table(res['throughput'], ['model', 'dtype', 'shape', 'prompts', 'answers', 'new_tokens', 'method', 'seconds', 'tokens_per_s', 'peak_gib', 'error'])
    print('\nRagged lengths: finished rows leave the batch')
    table(res['ragged'], ['model', 'answers', 'new_tokens', 'mean_len', 'max_len', 'seconds_ragged', 'seconds_all_full_length', 'peak_gib'])
    res['episode'] = episode_time(device, a.dtype, ['relu', 'softmax_rows'], 2 if a.quick else 8, 2, 64 if a.quick else 256)
    print('\nAn episode batch (tiny, random weights):', res['episode'])
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2))
    print(f'\nwrote {out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
