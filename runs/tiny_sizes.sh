#!/usr/bin/env bash
# How much warm-start work does `tiny` need before it writes the formula it is asked for, and does GRPO raise correct
# from there? Warm starts of `tiny` at several sizes side by side on one GPU, then the README's GRPO run from each.
#   bash runs/tiny_sizes.sh                     # one H100/H200, about 10 minutes
#   SIZES="1200:400:2 12000:3000:16" bash runs/tiny_sizes.sh
#   SIZES="240:20:2 480:20:4" OPT=4 TRAIN="--num-episodes 32 --test-tasks 4" bash runs/tiny_sizes.sh   # the machinery on a CPU
#   SEEDS="0 1" bash runs/tiny_sizes.sh          # GRPO from each warm start with each seed (the warm start is the same)
# A size is EXAMPLES:STEPS:BATCH: Generator examples (elementwise, rowreduce and broadcast compositions 4:1:1), its
# optimizer steps, and examples a step; the Optimizer takes the preset's 142 steps (or OPT). "1200:300:2" is the
# preset's warm start on a CPU, "6000:1500:16" its warm start on a GPU. No time cap: each runs its steps. On a CPU
# rewards are compile-only (correct reads 0).
# Writes runs/tiny_sizes/<size>/ (the warm start `sft`, a run `rl<seed>` for each seed, logs) and prints one table.
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
SIZES=${SIZES:-"3000:750:16 6000:1500:16 9000:2250:16 12000:3000:16"}   # test correct at the start on an H100: 0.10, 0.65, -, 0.76
OUTDIR=${OUTDIR:-runs/tiny_sizes}; mkdir -p "$OUTDIR"
SEEDS=${SEEDS:-0}
source "$(dirname "$0")/tiny_warm.sh"
one() {  # size: warm start, then GRPO from it for each seed
  d="$OUTDIR/$1"; d=${d//:/_}; mkdir -p "$d"
  tiny_warm "$d/sft" "$1" || return
  for seed in $SEEDS; do   # shellcheck disable=SC2086  # TRAIN is words
    python3 -m cudarl_wb.cli train --preset tiny --seed "$seed" --generator-checkpoint "$d/sft" --output-dir "$d/rl$seed" \
      --eval-every 2 ${TRAIN:-} > "$d/rl$seed.log" 2>&1 &
  done; wait
}
for size in $SIZES; do one "$size" & done; wait
SEEDS="$SEEDS" python3 - "$OUTDIR" $SIZES <<'PY'
import json, os, sys
from pathlib import Path
sys.path.insert(0, 'bench'); from _table import table
read = lambda f: json.loads(f.read_text()) if f.exists() else None
fmt = lambda x: '-' if x is None else f'{x:.2f}'
rows = []
for size in sys.argv[2:]:
  d = Path(sys.argv[1])/size.replace(':', '_')
  m = read(d/'sft'/'metrics.json')
  if m is None: rows.append(dict(size=size, steps=f'no warm start (see {d}/sft.log)')); continue
  g, t = m['eval']['after']['generator'], m['train']['generator']
  for seed in os.environ['SEEDS'].split():
    rl, rep = read(d/f'rl{seed}'/'final_model'/'training_metrics.json'), read(d/f'rl{seed}'/'report.json')
    evals = '  '.join(f"{e['compile_rate']:.2f}/{e['fast_0']:.2f}" for e in (rl or {}).get('evals', []))
    row = dict(size=size, seed=seed, steps=t['steps'], sft_s=round(t['seconds']), compile=fmt(g['compile']), correct=fmt(g['correct']),
               grpo_evals=evals or f'- (see {d}/rl{seed}.log)')
    if rep:   # the room the warm start leaves on test (greedy against pass@8), and what GRPO made of it
        start, final = (r for name, r in rep['rows'].items() if name.startswith(('start', 'final')))
        row.update(test_start=fmt(start['summary']['rate']), pass8=fmt(start['summary'].get('pass@8')),
                   test_final=fmt(final['summary']['rate']), p=f"{final['change']['p']:.2g}")
    rows.append(row)
print("warm starts; validation compile/correct at each of GRPO's evaluations; test greedy at the start (pass@8 beside it) and the end:")
table(rows, ['size', 'seed', 'steps', 'sft_s', 'compile', 'correct', 'grpo_evals', 'test_start', 'pass8', 'test_final', 'p'])
PY
