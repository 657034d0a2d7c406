#!/usr/bin/env bash
# The joint stage of `small` on one GPU, and RL from it against RL from the plain warm start (same seed, same budget).
#   bash runs/joint_small.sh warm    # the warm start of small into runs/sft_small (about 6 min on an H100; skipped when there)
#   bash runs/joint_small.sh joint   # the joint stage into runs/joint_small; prints the held-out rates before and after:
#                                    # tier-0/1 correct per group, the Optimizer's repair correctness, entropies, wall time
#   bash runs/joint_small.sh rl      # GRPO from each, side by side on the card, RL_SECONDS each (default 360), then the figure
#   bash runs/joint_small.sh all     # the three in turn
# Each stage fits in ten minutes on an H100: measured 261-332 s (warm), 266-328 s (joint), 453-511 s (rl, RL_SECONDS 270-300). Logs, metrics and the figure go to $LOGDIR (default runs/joint_logs);
# checkpoints to runs/. More `cudarl-wb train` flags: GRPO_EXTRA; more joint-stage settings: JOINT_SET (e.g. "--set group_size=4").
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUDARL_CACHE=${CUDARL_CACHE:-$HOME/.cache/cudarl_wb}
LOGDIR=${LOGDIR:-runs/joint_logs}; mkdir -p "$LOGDIR"
stage=${1:-all} rl_s=${RL_SECONDS:-360}
# small's own recipe (RECIPES in 14_trainer: LoRA r16 at 1e-3 falling, 8 tasks x 8 episodes), evaluated every 3 steps
GRPO=(--preset small --eval-every 3 --seed 0 --run-budget "$rl_s")

warm() {
  [ -f runs/sft_small/agents.json ] && { echo "== warm start: runs/sft_small is there"; return; }
  python3 runs/sft_gpu.py --out runs/sft_small --evaluate none --copy-to "$LOGDIR" > "$LOGDIR/sft_small.log" 2>&1 \
    || { echo "warm start failed"; tail -n 20 "$LOGDIR/sft_small.log"; exit 1; }
  grep -E "^(generator|optimizer) " "$LOGDIR/sft_small.log"
}
joint() {
  local t0=$(date +%s)
  python3 -m cudarl_wb.cli sft --stage joint --preset small --model runs/sft_small --out runs/joint_small --no-progress ${JOINT_SET:-} \
    > "$LOGDIR/joint_small.log" 2>&1 || { echo "joint stage failed"; tail -n 30 "$LOGDIR/joint_small.log"; exit 1; }
  sed -n '/episodes of up to/,$p' "$LOGDIR/joint_small.log"
  cp -f runs/joint_small/metrics.json "$LOGDIR/joint_small_metrics.json"; cp -f runs/joint_small/sft_eval.png "$LOGDIR/joint_small_eval.png"
  echo "== joint stage: $(( $(date +%s) - t0 )) s of wall time"
}
rl() {
  local pids=() name
  for name in warm joint; do
    local src=runs/sft_small; [ $name = joint ] && src=runs/joint_small
    rm -rf "runs/rl_from_$name"
    python3 -m cudarl_wb.cli train "${GRPO[@]}" --generator-checkpoint "$src" --output-dir "runs/rl_from_$name" ${GRPO_EXTRA:-} \
      > "$LOGDIR/rl_from_$name.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  for name in warm joint; do echo "== RL from the $name start"; grep -E "^(eval at|held-out|per step)" "$LOGDIR/rl_from_$name.log"; done
  python3 tools/compare_runs.py --metric fast_0 --also first_compile_rate --title "GRPO of small from the warm start and from the joint stage" \
    --out "$LOGDIR/rl_joint_vs_warm.png" --json "$LOGDIR/rl_joint_vs_warm.json" \
    "warm start=runs/rl_from_warm" "joint stage=runs/rl_from_joint"
}
case $stage in
  warm) warm ;; joint) joint ;; rl) rl ;;
  all) warm; joint; rl ;;
  *) echo "usage: bash runs/joint_small.sh warm|joint|rl|all"; exit 2 ;;
esac
