"""GRPO of `tiny` on a CPU from one warm start, under settings given on the command line: does held-out compile rise?

Compile-only rewards (no GPU). Every run starts from the same warm start (an SFT output folder), so
the step-0 evaluation is the same for all of them and a difference at the end is the settings'.

    python runs/recipe_cpu.py --warm DIR [--steps 8] [--eval-tasks 40] [--set learning_rate=2e-5 --set lora_rank=8 ...]

Prints the held-out compile rate (best turn and first turn) at each evaluation and appends one JSON line
per run to runs/recipe_cpu/recipe_cpu.jsonl (or --json PATH).
"""
import argparse, ast, json, os, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]


def _value(s: str):
    try: return ast.literal_eval(s)
    except (ValueError, SyntaxError): return s


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--warm', required=True, help='an SFT output folder (the warm start)')
    p.add_argument('--steps', type=int, default=8)
    p.add_argument('--eval-tasks', type=int, default=40)
    p.add_argument('--eval-every', type=int, default=0)
    p.add_argument('--set', action='append', default=[], help='a GRPOConfig field=value')
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--json', default=str(ROOT/'runs'/'recipe_cpu'/'recipe_cpu.jsonl'))
    a = p.parse_args(argv)
    import torch
    from cudarl_wb.trainer import GRPOConfig, GRPOTrainer
    torch.set_num_threads(a.threads)
    over = dict(kv.split('=', 1) for kv in a.set)
    over = {k: _value(v) for k, v in over.items()}
    bs, gs = over.get('batch_size', 2), over.get('group_size', 8)
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix='run-', dir=Path(a.json).parent))/'rl'
    cfg = GRPOConfig(**{**dict(preset='tiny', generator_checkpoint=a.warm, output_dir=str(out), eval_tasks=a.eval_tasks,
                                eval_every=a.eval_every, num_episodes=a.steps * bs * gs), **over})
    t0 = time.perf_counter()
    final = GRPOTrainer(cfg, device='cpu').fit(progress=False)
    wall = time.perf_counter() - t0
    evals = [dict(step=e['step'], compile=e['compile_rate'], first=e['first_compile_rate'],
                  **{k: v for k, v in e.items() if k.startswith('tier') and k.endswith('compile_rate')}) for e in final['evals']]
    steps = [dict(compile=round(h['compile_rate'], 3), flat=round(h.get('zero_std_share', float('nan')), 3), step_s=round(h['step_s'], 1))
             for h in final['steps']]
    row = dict(settings=over, steps=a.steps, eval_tasks=a.eval_tasks, evals=evals, train=steps, wall_s=round(wall),
               load=os.getloadavg(), out=str(out))
    for e in evals: print(f"step {e['step']}: held-out compile {e['compile']:.2f} (first turn {e['first']:.2f})")
    print('sampled compile by step:', [s['compile'] for s in steps], 'flat share:', [s['flat'] for s in steps])
    print(f'{over} wall {wall:.0f} s')
    with open(a.json, 'a') as f: f.write(json.dumps(row) + '\n')


if __name__ == '__main__': main()
