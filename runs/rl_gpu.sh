#!/usr/bin/env bash
# The GPU experiment of GRPO on `small`: a warm start of `small` (runs/sft_gpu.py), then GRPO from that checkpoint, one run
# per RUN given (a learning rate, and optionally a reward preset), side by side on the one card (each run is far from filling an H200).
#   bash runs/rl_gpu.sh SFT_SECONDS GRPO_SECONDS RUN [RUN...]     where RUN is LR or LR:REWARD_PRESET (e.g. 1e-3:correctness)
# More `cudarl-wb train` flags: GRPO_EXTRA; SFT_EVAL=none skips the warm start's own held-out measurement (GRPO's
# step-0 evaluation measures the same checkpoint on its held-out set). Logs, metrics and curves: $LOGDIR (default /tmp/gpu_logs);
# checkpoints: runs/. It writes $LOGDIR/DONE at the end, so a caller can start it in the background and poll.
# The card's peaks are measured before the runs start, alone: a busy card measures low (see 06_benchmarker).
# Runs that share the card also share its timings: their seconds per step are upper bounds, and speedups
# are noisier than alone; correctness depends on them only through the memory floor, which uses credible peaks. To read a run's held-out evaluations while it
# goes (from its last/trainer_state.pt): python3 tools/compare_runs.py "3e-5=runs/rl_small_3e-5" --out /tmp/c.png
# Which held-out tasks each evaluation gained and lost, and how the training turns were timed: python3 tools/read_runs.py "3e-5=runs/rl_small_3e-5"
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUDARL_CACHE=${CUDARL_CACHE:-/tmp/cudarl_cache}
LOGDIR=${LOGDIR:-/tmp/gpu_logs}; mkdir -p "$LOGDIR"; rm -f "$LOGDIR/DONE"
[ $# -ge 3 ] || { echo "usage: bash runs/rl_gpu.sh SFT_SECONDS GRPO_SECONDS LR[:REWARD_PRESET] [...]"; exit 2; }
sft_s=$1 grpo_s=$2; shift 2
t0=$(date +%s)
python3 runs/sft_gpu.py --out runs/sft_small --time-budget "$sft_s" --evaluate "${SFT_EVAL:-after}" --copy-to "$LOGDIR" \
    > "$LOGDIR/sft_small.log" 2>&1 \
  || { echo "SFT failed"; tail -n 20 "$LOGDIR/sft_small.log"; echo failed > "$LOGDIR/DONE"; exit 1; }
echo "== SFT done in $(( $(date +%s) - t0 )) s"; grep -E "^(after|tier-0)" "$LOGDIR/sft_small.log"
# measure the card's peaks now, alone, before the runs share it (they read the cached figures)
python3 -c "from cudarl_wb.benchmarker import Evaluator; ev = Evaluator(); print('== peaks', ev.peaks()); ev.close()" 2>&1 | tail -n 1
pids=()
for run in "$@"; do
  lr=${run%%:*} reward=${run#*:}; [ "$reward" = "$run" ] && reward=""
  python3 -m cudarl_wb.cli train --preset small --generator-checkpoint runs/sft_small --output-dir "runs/rl_small_${run/:/_}" \
      --num-episodes 1000000 --learning-rate "$lr" --run-budget "$grpo_s" ${GRPO_EXTRA:-} ${reward:+--reward-preset $reward} \
      > "$LOGDIR/grpo_${run/:/_}.log" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
for run in "$@"; do
  name=${run/:/_}
  cp -f "runs/rl_small_$name/final_model/training_metrics.json" "$LOGDIR/grpo_${name}_metrics.json" 2>/dev/null
  cp -f "runs/rl_small_$name/training_curves.png" "$LOGDIR/grpo_${name}_curves.png" 2>/dev/null
  echo "== GRPO $run"; grep -E "^(eval at|held-out|per step)" "$LOGDIR/grpo_$name.log"
done
echo "all done in $(( $(date +%s) - t0 )) s" | tee "$LOGDIR/DONE"
