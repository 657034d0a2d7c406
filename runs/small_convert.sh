#!/usr/bin/env bash
# Does GRPO turn into greedy answers what `small`'s group samples, on the tasks it trains on, and on held-out ones?
# A warm start's greedy and pass@8 on 16 training tasks and on the 64 held-out ones, then GRPO on those 16 tasks
# alone (each drawn every other step), then the same measures again. A step that does not move its own tasks'
# greedy answers is too weak; one that moves them but not the held-out ones does not carry the skill over.
#   bash runs/small_convert.sh                                   # one H100/H200, about 21 minutes
#   EXTRA="--epochs 4" bash runs/small_convert.sh                # the same with other `cudarl-wb train` flags
#   PRESET=tiny TASKS=4 HELD=8 SAMPLES=2 BUDGET=60 bash runs/small_convert.sh   # the machinery on a CPU
# Writes runs/small_convert/ (the warm start, the run, the measures as JSON) and prints the four tables.
set -euo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
PRESET=${PRESET:-small} TASKS=${TASKS:-16} HELD=${HELD:-64} SAMPLES=${SAMPLES:-8} BUDGET=${BUDGET:-480}
OUTDIR=${OUTDIR:-runs/small_convert}; mkdir -p "$OUTDIR"
[ -f "$OUTDIR/sft/agents.json" ] || python3 -m cudarl_wb.cli sft --preset "$PRESET" --out "$OUTDIR/sft" --eval-after-only --no-progress
measure() {  # checkpoint, label: greedy and pass@SAMPLES at T 1.0, on the training tasks, then on the held-out ones
  for split_n in "train $TASKS" "heldout $HELD"; do
    read -r split n <<<"$split_n"
    echo "== $2 GRPO, $split tasks"
    python3 runs/sample_temperature.py "$1" --split "$split" --tasks "$n" --samples "$SAMPLES" --temperatures 1.0 \
      --max-turns 2 --workers 3 --json "$OUTDIR/$2_$split.json" | tail -n 4 | head -n 3
  done
}
measure "$OUTDIR/sft" before
# shellcheck disable=SC2086  # EXTRA is words
python3 -m cudarl_wb.cli train --preset "$PRESET" --generator-checkpoint "$OUTDIR/sft" --output-dir "$OUTDIR/rl" \
  --tasks "procedural:$TASKS" --no-suite --test-tasks "$HELD" --eval-every 4 --temperature 1.0 --reward-preset correctness \
  --run-budget "$BUDGET" ${EXTRA:-} 2>&1 | grep -E "^(training on|eval at|held-out|per step|the budget|cudarl-wb train:)"
measure "$OUTDIR/rl/final_model" after
