"""Speed, memory and learnability of the model presets (and optionally a real checkpoint).

For each model: parameters; a training step (forward, backward, AdamW) in tokens/s for LoRA agents and
for full fine-tuning, with peak GPU memory; sampling throughput of `generate` in new tokens/s at several
batch sizes; and how fast one kernel is memorised by LoRA on the random base versus full fine-tuning
(the notebook's claim that LoRA needs a trained base).

    python bench/bench_models.py                       # CPU: tiny, short
    python bench/bench_models.py --presets tiny,small --batch 8 --seq 1024 --gen-batches 16,64 --new-tokens 256
    python bench/bench_models.py --model /path/to/Qwen2.5-Coder-1.5B-Instruct --presets small

Prints a table and writes bench/results/models.json (or --out).
"""
from __future__ import annotations
import argparse, json, os, platform, sys, time
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run from a checkout without installing
import torch
from cudarl_wb.models import AgentModels, LoraSettings, load_model, parameter_count, as_device
from cudarl_wb.tasks import get_task


def sync(device):
    if device.type == 'cuda': torch.cuda.synchronize(device)


def peak_gib(device):
    return round(torch.cuda.max_memory_allocated(device) / 2**30, 2) if device.type == 'cuda' else None


def reset_peak(device):
    if device.type == 'cuda': torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats(device)


def train_speed(name, mode, device, batch, seq, steps, seed=0):
    "Tokens/s of forward + backward + AdamW for one agent, and the peak memory."
    reset_peak(device)
    # LoRA: frozen base in the machine's dtype (bf16 on a GPU). Full: fp32 weights, bf16 autocast on a GPU.
    model, tok = load_model(name, device=device, dtype=None if mode == 'lora' else 'fp32')
    am = AgentModels.create(model, tok, full_finetune=(mode == 'full'))
    opt = torch.optim.AdamW(am.parameters_of('generator'), lr=1e-4)
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(4, len(tok), (batch, seq), generator=g).to(device)
    amp = torch.autocast('cuda', dtype=torch.bfloat16) if (device.type == 'cuda' and mode == 'full') else nullcontext()
    times = []
    for i in range(steps + 2):                      # two warm-up steps
        sync(device); t0 = time.perf_counter()
        with am.use('generator') as m, amp:
            loss = m(input_ids=x, labels=x).loss
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        sync(device)
        if i >= 2: times.append(time.perf_counter() - t0)
    times.sort()
    med = times[len(times) // 2]
    row = dict(model=name, what=f'train {mode}', batch=batch, seq=seq, step_s=round(med, 4),
               tokens_per_s=round(batch * seq / med), peak_gib=peak_gib(device),
               trainable=sum(p.numel() for p in am.parameters_of('generator')))
    del am, model, opt
    return row


def generate_speed(name, device, batch, new_tokens, prompt_len=128, seed=0):
    "New tokens/s of sampling `new_tokens` per sequence for `batch` sequences (LoRA generator active)."
    reset_peak(device)
    model, tok = load_model(name, device=device)
    am = AgentModels.create(model, tok)
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(4, len(tok), (batch, prompt_len), generator=g).to(device)
    kw = dict(max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=True, temperature=1.0,
              pad_token_id=tok.pad_token_id)
    with torch.no_grad(), am.use('generator') as m:
        m.generate(input_ids=x[:, :16], max_new_tokens=8, do_sample=True, pad_token_id=tok.pad_token_id)   # warm-up
        sync(device); t0 = time.perf_counter()
        out = m.generate(input_ids=x, attention_mask=torch.ones_like(x), **kw)
        sync(device); dt = time.perf_counter() - t0
    n = (out.shape[1] - prompt_len) * batch
    row = dict(model=name, what='generate', batch=batch, seq=prompt_len + new_tokens, step_s=round(dt, 3),
               tokens_per_s=round(n / dt), peak_gib=peak_gib(device), trainable=None)
    del am, model
    return row


def memorise(preset, mode, device, steps, lr):
    "Steps for one agent to memorise the relu solution (loss < 0.05 on the answer), LoRA vs full fine-tuning."
    model, tok = load_model(preset, device=device, dtype='fp32')
    am = AgentModels.create(model, tok, full_finetune=(mode == 'full'),
                            lora=None if mode == 'full' else LoraSettings(r=32, alpha=64))
    msgs = [{'role': 'user', 'content': 'Write relu.'},
            {'role': 'assistant', 'content': f"```cuda\n{get_task('relu').solution.strip()}\n```"}]
    enc = tok.apply_chat_template(msgs, return_dict=True, return_assistant_tokens_mask=True, return_tensors='pt')
    labels = enc['input_ids'].masked_fill(enc['assistant_masks'] == 0, -100).to(device)
    ids = enc['input_ids'].to(device)
    opt = torch.optim.AdamW(am.parameters_of('generator'), lr=lr)
    first = last = None
    for step in range(1, steps + 1):
        with am.use('generator') as m: loss = m(input_ids=ids, labels=labels).loss
        loss.backward(); opt.step(); opt.zero_grad()
        last = loss.item(); first = first if first is not None else last
        if last < 0.05: break
    return dict(model=preset, what=f'memorise {mode} lr={lr:g}', batch=1, seq=ids.shape[1], step_s=None,
                tokens_per_s=None, peak_gib=None, trainable=sum(p.numel() for p in am.parameters_of('generator')),
                first_loss=round(first, 3), last_loss=round(last, 3), steps=step)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--presets', default='tiny', help='comma-separated presets')
    p.add_argument('--model', default=None, help='also a real checkpoint: a local folder or a Hub name in the cache')
    p.add_argument('--device', default=None)
    p.add_argument('--batch', type=int, default=None, help='training batch (default 8 on a GPU, 2 on a CPU)')
    p.add_argument('--seq', type=int, default=None, help='training sequence length (default 1024 GPU, 256 CPU)')
    p.add_argument('--steps', type=int, default=5)
    p.add_argument('--gen-batches', default=None, help='comma-separated generate batches (default 16,64 GPU, 4 CPU)')
    p.add_argument('--new-tokens', type=int, default=None, help='new tokens per sequence (default 256 GPU, 32 CPU)')
    p.add_argument('--memorise-steps', type=int, default=200, help='0 to skip the LoRA-vs-full learnability rows')
    p.add_argument('--out', default=str(Path(__file__).parent/'results'/'models.json'))
    a = p.parse_args(argv)
    device = as_device(a.device)
    gpu = device.type == 'cuda'
    batch, seq = a.batch or (8 if gpu else 2), a.seq or (1024 if gpu else 256)
    gen_batches = [int(b) for b in (a.gen_batches or ('16,64' if gpu else '4')).split(',')]
    new_tokens = a.new_tokens or (256 if gpu else 32)
    names = [n for n in a.presets.split(',') if n] + ([a.model] if a.model else [])
    rows = []
    for name in names:
        print(f'== {name}', flush=True)
        for mode in ('lora', 'full'):
            if mode == 'full' and name not in ('tiny', 'small'): continue   # full copies of a real model: not our use
            try: rows.append(train_speed(name, mode, device, batch, seq, a.steps))
            except torch.cuda.OutOfMemoryError as e: rows.append(dict(model=name, what=f'train {mode}', error='out of memory'))
            print(rows[-1], flush=True)
        for b in gen_batches:
            try: rows.append(generate_speed(name, device, b, new_tokens))
            except torch.cuda.OutOfMemoryError: rows.append(dict(model=name, what='generate', batch=b, error='out of memory'))
            print(rows[-1], flush=True)
    if a.memorise_steps:
        for mode, lr in (('lora', 1e-2), ('lora', 3e-3), ('full', 1.5e-3)):
            rows.append(memorise('tiny', mode, device, a.memorise_steps, lr)); print(rows[-1], flush=True)
    env = dict(device=torch.cuda.get_device_name(device) if gpu else platform.processor() or 'cpu',
               torch=torch.__version__, threads=torch.get_num_threads(),
               parameters={n: parameter_count(n) for n in names if n in ('tiny', 'small')})
    cols = ['model', 'what', 'batch', 'seq', 'step_s', 'tokens_per_s', 'peak_gib', 'trainable', 'first_loss', 'last_loss', 'steps', 'error']
    cols = [c for c in cols if any(c in r for r in rows)]
    print(f"\n{env['device']}, torch {env['torch']}, {env['threads']} threads; parameters {env['parameters']}")
    widths = {c: max(len(c), *(len(str(r.get(c, ''))) for r in rows)) for c in cols}
    print('  '.join(c.ljust(widths[c]) for c in cols))
    for r in rows: print('  '.join(str(r.get(c, '') if r.get(c) is not None else '-').ljust(widths[c]) for c in cols))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(dict(env=env, rows=rows), indent=2))
    print(f'wrote {a.out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
