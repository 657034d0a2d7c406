"""The built-in trainer's update against the planner: peak memory of one GRPO step of `small` by token budget.

`cudarl-wb train --preset small` trains LoRA adapters (rank 16) on two full fp32 copies of our `small` model
under bf16 autocast, without gradient checkpointing, its forward passes packed by tokens (`max_tokens`,
13_grpo). This builds the same agents (random weights: nothing is read from disk), gives each agent turns of
mixed lengths with mixed rewards, and runs `grpo_step` at several token budgets (`micro_batch` × the plan's `seq_len`), measuring
`torch.cuda.max_memory_allocated` over the step, as the trainer's `memory/train_measured_gib` does. Beside each
the estimate of the plan `cudarl-wb train` makes for that micro-batch (`builtin_plan`, `memory_check`), their ratio, and the bytes a token adds, measured (the slope between budgets) and planned.
First each agent generates a step's answers with the trainer's rollout engine (the Generator 64 answers to short prompts,
the Optimizer 48 to long ones, 640 new tokens each), as in a run: the peak of that is the `rollout` row, and the decoders
the engine keeps stay through the updates, as they do in a run (`--no-rollout`: the update alone).

    python bench/update_memory.py                      # micro-batches of 2, 4 and 8 turns of 1,664 tokens (the preset's: 8)
    python bench/update_memory.py --micro-batches 8,16

Prints a table and writes bench/results/update_memory.json (or $CUDARL_BENCH_RESULTS/update_memory.json).
Needs a CUDA GPU.
"""
import argparse, json, os, random, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import torch
from _table import table, results_dir


def turns(n_tokens: int, agent: str, rng: random.Random, vocab: int):
    "Turns of 300 to 1,664 tokens (a third prompt) for `agent`, about `n_tokens` in all, four to a group, rewards mixed."
    from cudarl_wb.grpo import Sample
    out, total = [], 0
    while total < n_tokens:
        n = rng.randint(300, 1664); p = n // 3
        out.append(Sample(agent, [rng.randrange(vocab) for _ in range(p)], [rng.randrange(vocab) for _ in range(n - p)],
                          rng.random(), group=len(out) // 4))
        total += n
    return out


def parts(plan) -> dict:
    "The plan's loads the update's estimate sums (both agents' alike summed), GiB each."
    out = {}
    for l in plan.uses[0].loads:
        if l.phase in ('resident', 'train') and l.role != 'evaluator': out[l.what] = round(out.get(l.what, 0.0) + l.gib, 3)
    return out


def rollout(models, tok, rng: random.Random, dev) -> dict:
    "One step's generation by both agents with the trainer's engine: its peak against the plan's `rollout` phase."
    from cudarl_wb.agents import Generator, Optimizer, Sampling
    from cudarl_wb.gpu_planner import memory_check
    from cudarl_wb.trainer import GRPOConfig, RECIPES, builtin_plan
    cfg = GRPOConfig(preset='small', **RECIPES['small'])
    sampling = Sampling(temperature=cfg.temperature, max_new_tokens=cfg.max_new_tokens)
    words = lambda n: [rng.randrange(4, len(tok)) for _ in range(n)]
    torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats(); t0 = time.perf_counter()
    Generator(models, sampling=sampling).generate([words(300) for _ in range(cfg.batch_size)], n=cfg.group_size, seed=0)
    Optimizer(models, sampling=sampling).generate([words(1000) for _ in range(6)], n=cfg.group_size, seed=1)
    torch.cuda.synchronize()
    m = memory_check(builtin_plan(cfg), {'rollout': torch.cuda.max_memory_allocated()}, 0)
    row = dict(phase='rollout', measured_gib=round(m['memory/rollout_measured_gib'], 2), estimate_gib=round(m['memory/rollout_estimate_gib'], 2),
               ratio=round(m['memory/rollout_ratio'], 3), step_s=round(time.perf_counter() - t0, 2),
               kept_gib=round(torch.cuda.memory_allocated() / 2**30, 2))   # what stays allocated: the agents and the kept decoders
    print(row, flush=True)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--micro-batches', default='2,4,8', help="the plan's micro_batch (turns of seq_len tokens a pass), comma-separated")
    ap.add_argument('--tokens', type=int, default=22500, help="each agent's tokens in the step (a `small` step: 41,000 to 49,000 in all)")
    ap.add_argument('--no-rollout', action='store_true', help='measure the update alone, with no decoders kept from a rollout')
    a = ap.parse_args()
    if not torch.cuda.is_available(): sys.exit('update_memory: needs a CUDA GPU')
    from cudarl_wb.models import build_model, AgentModels, LoraSettings
    from cudarl_wb.grpo import grpo_step
    from cudarl_wb.gpu_planner import GIB, memory_check
    from cudarl_wb.trainer import GRPOConfig, RECIPES, builtin_plan, update_config
    dev = torch.device('cuda')
    base, tok = build_model('small', seed=0, dtype=torch.float32, device=dev)
    models = AgentModels.create(base.float(), tok, full_finetune=True).adapt_copies(LoraSettings(r=16, alpha=32))
    opts = {ag: torch.optim.AdamW(models.parameters_of(ag), lr=1e-4) for ag in ('generator', 'optimizer')}
    rng = random.Random(0)
    samples = [s for ag in opts for s in turns(a.tokens, ag, rng, len(tok))]
    autocast = lambda: torch.autocast('cuda', dtype=torch.bfloat16)
    rows = [] if a.no_rollout else [rollout(models, tok, rng, dev)]
    for k in [int(b) for b in a.micro_batches.split(',')]:
        cfg = GRPOConfig(preset='small', **RECIPES['small'], micro_batch=k)
        plan, hp = builtin_plan(cfg), update_config(cfg)
        grpo_step(models, opts, samples, hp, tok.pad_token_id, dev, autocast=autocast)     # Adam's state exists from here
        torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        grpo_step(models, opts, samples, hp, tok.pad_token_id, dev, autocast=autocast)
        torch.cuda.synchronize()
        seconds, peak = time.perf_counter() - t0, torch.cuda.max_memory_allocated()
        m = memory_check(plan, {'train': peak}, 0)
        rows.append(dict(phase='train', micro_batch=k, budget=hp.max_tokens, measured_gib=round(m['memory/train_measured_gib'], 2),
                         estimate_gib=round(m['memory/train_estimate_gib'], 2), ratio=round(m['memory/train_ratio'], 3), step_s=round(seconds, 2),
                         parts=parts(plan)))
        print(rows[-1], flush=True)
    updates = [r for r in rows if r['phase'] == 'train']
    for r0, r1 in zip(updates, updates[1:]):
        d = r1['budget'] - r0['budget']
        r1['measured_kib_per_token'] = round((r1['measured_gib'] - r0['measured_gib']) * GIB / d / 1024, 1)
        r1['estimate_kib_per_token'] = round((r1['estimate_gib'] - r0['estimate_gib']) * GIB / d / 1024, 1)
    table(rows, ['phase', 'micro_batch', 'budget', 'measured_gib', 'estimate_gib', 'ratio', 'measured_kib_per_token', 'estimate_kib_per_token', 'step_s', 'kept_gib'])
    out = results_dir()/'update_memory.json'
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(card=torch.cuda.get_device_name(), turns=len(samples), rows=rows), indent=1))
    print(f'wrote {out}')


if __name__ == '__main__': main()
