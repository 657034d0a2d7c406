"""Check the GPU planner's memory arithmetic against a real card.

For a few model shapes (random weights built from the built-in configs: nothing is downloaded) it runs
what the planner estimates and measures `torch.cuda.max_memory_allocated`:

* learner: one training step (forward, fp32 log-softmax of the sampled tokens, backward, AdamW step)
  of one micro-batch, with gradient checkpointing, as LoRA (peft; skipped if peft is missing) or full
  fine-tuning (fp32 master weights, bf16 autocast);
* kv: the bytes of the KV cache that a forward pass with `use_cache=True` leaves behind.

The planner's estimate for the same run sits beside each measurement, with their ratio. Prints a table
and writes JSON to bench/results/planner_memory.json (or $CUDARL_BENCH_RESULTS/planner_memory.json).
Needs a CUDA GPU, torch and transformers.
"""
import gc, json, os, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch
from cudarl_wb.gpu_planner import (GIB, PlanConfig, builtin_model, learner_loads, kv_gib_per_sequence, detect_inventory)

CASES = [  # model, mode, seq_len
    ('Qwen/Qwen2.5-Coder-0.5B-Instruct', 'lora', 2048),
    ('Qwen/Qwen2.5-Coder-0.5B-Instruct', 'full', 2048),
    ('Qwen/Qwen2.5-Coder-1.5B-Instruct', 'lora', 4096),
    ('Qwen/Qwen2.5-Coder-1.5B-Instruct', 'full', 2048),
    ('Qwen/Qwen2.5-Coder-7B-Instruct', 'lora', 2048),
]
TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']


def build(spec, dtype):
    from transformers import Qwen2Config, Qwen2ForCausalLM
    cfg = Qwen2Config(hidden_size=spec.hidden, num_hidden_layers=spec.layers, num_attention_heads=spec.heads,
                      num_key_value_heads=spec.kv_heads, intermediate_size=spec.intermediate, vocab_size=spec.vocab,
                      tie_word_embeddings=spec.tied, max_position_embeddings=32768)
    cfg._attn_implementation = 'sdpa'
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device('cuda'): model = Qwen2ForCausalLM(cfg)
    finally: torch.set_default_dtype(old)
    return model


def free():
    gc.collect(); torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()


def learner_step(name, mode, seq_len):
    spec = builtin_model(name)
    free()
    base = torch.cuda.memory_allocated()
    model = build(spec, torch.bfloat16 if mode == 'lora' else torch.float32)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={'use_reentrant': False})
    model.config.use_cache = False
    if mode == 'lora':
        from peft import LoraConfig, get_peft_model
        model.enable_input_require_grads()
        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=TARGETS))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5)
    ids = torch.randint(0, spec.vocab, (1, seq_len), device='cuda')

    def step():
        with torch.autocast('cuda', dtype=torch.bfloat16, enabled=(mode == 'full')):
            logits = model(input_ids=ids).logits
        logp = torch.log_softmax(logits[:, :-1].float(), -1).gather(-1, ids[:, 1:, None])
        loss = -logp.mean()
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        del logits, logp, loss

    step()                                   # the first step creates Adam's state
    torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter(); step(); torch.cuda.synchronize(); secs = time.perf_counter() - t0
    measured = (torch.cuda.max_memory_allocated() - base) / GIB
    cfg = PlanConfig(lora=(mode == 'lora'), seq_len=seq_len, micro_batch=1)
    loads = learner_loads(spec, cfg, 'bf16', ['generator'], 1)
    # the planner's full-FT learner also keeps a frozen reference copy; this step has none
    estimate = sum(l.gib for l in loads if l.role != 'reference')
    del model, opt, params, ids
    free()
    return dict(what='learner step', model=name.split('/')[-1], mode=mode, seq_len=seq_len, measured_gib=round(measured, 2),
                estimate_gib=round(estimate, 2), ratio=round(estimate / measured, 2), step_s=round(secs, 2),
                parts={l.what: round(l.gib, 2) for l in loads if l.role != 'reference'})


def kv_cache(name, batch=4, tokens=1024):
    spec = builtin_model(name)
    free()
    model = build(spec, torch.bfloat16).eval()
    ids = torch.randint(0, spec.vocab, (batch, tokens), device='cuda')
    with torch.no_grad(): out = model(input_ids=ids, use_cache=True)
    cache = out.past_key_values
    nbytes, seen = 0, set()
    for t in _tensors(cache):
        if t.data_ptr() not in seen: seen.add(t.data_ptr()); nbytes += t.numel() * t.element_size()
    measured = nbytes / GIB
    estimate = batch * kv_gib_per_sequence(spec, PlanConfig(seq_len=tokens), 'bf16')
    del model, out, cache
    free()
    return dict(what='kv cache', model=name.split('/')[-1], mode=f'{batch}x{tokens} tokens', seq_len=tokens,
                measured_gib=round(measured, 4), estimate_gib=round(estimate, 4), ratio=round(estimate / measured, 3))


def _tensors(obj):
    "Every tensor inside a cache object (DynamicCache of any transformers version, or tuples)."
    if torch.is_tensor(obj): yield obj; return
    if isinstance(obj, (list, tuple)):
        for o in obj: yield from _tensors(o)
        return
    for attr in ('layers', 'key_cache', 'value_cache', 'keys', 'values'):
        if hasattr(obj, attr): yield from _tensors(getattr(obj, attr))


def main():
    if not torch.cuda.is_available(): sys.exit('planner_memory: needs a CUDA GPU')
    try: import transformers  # noqa: F401
    except ImportError: sys.exit('planner_memory: needs transformers')
    try: import peft  # noqa: F401
    except ImportError: peft = None
    inv = detect_inventory()
    rows = []
    for name in ('Qwen/Qwen2.5-Coder-1.5B-Instruct', 'Qwen/Qwen2.5-Coder-7B-Instruct'):
        rows.append(kv_cache(name))
    for name, mode, seq in CASES:
        if mode == 'lora' and peft is None:
            rows.append(dict(what='learner step', model=name.split('/')[-1], mode=mode, seq_len=seq, error='peft missing')); continue
        try: rows.append(learner_step(name, mode, seq))
        except torch.OutOfMemoryError as e:
            free(); rows.append(dict(what='learner step', model=name.split('/')[-1], mode=mode, seq_len=seq, error=f'OOM: {e}'[:200]))
    print(f"card: {inv.gpus[0].name if inv.gpus else '?'} ({inv.source}); torch {torch.__version__}, transformers {transformers.__version__}")
    print(f"{'what':<13} {'model':<26} {'mode':<16} {'seq':>5} {'measured GiB':>13} {'estimate GiB':>13} {'est/meas':>9}")
    for r in rows:
        if 'error' in r: print(f"{r['what']:<13} {r['model']:<26} {r['mode']:<16} {r['seq_len']:>5}  {r['error']}"); continue
        print(f"{r['what']:<13} {r['model']:<26} {r['mode']:<16} {r['seq_len']:>5} {r['measured_gib']:>13} {r['estimate_gib']:>13} {r['ratio']:>9}")
    from _table import results_dir
    out = results_dir()
    out.mkdir(parents=True, exist_ok=True)
    (out/'planner_memory.json').write_text(json.dumps({'inventory': inv.to_dict(), 'rows': rows}, indent=2))
    print(f'wrote {out/"planner_memory.json"}')


if __name__ == '__main__':
    main()
