#!/usr/bin/env bash
# `cudarl-wb train --preset small` (its recipe, warm start included, 20 minutes) for several seeds, each alone on a
# card of its own and all at once; then their held-out curves on one figure.
#   bash runs/small_seeds.sh [SEED...]     # default: seeds 0 and 1, on cards 0 and 1
# One `small` run a card: two on one 80 GB card run out of memory with their sandbox workers (LOG.md).
# Runs go to runs/small_seed_S/, logs, the figure and its table to $LOGDIR (default runs/small_seeds_logs). It writes
# $LOGDIR/DONE at the end, so a caller can start it in the background and read the logs while it goes.
# More `cudarl-wb train` flags for every run: EXTRA (e.g. EXTRA="--joint-sft").
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUDARL_CACHE=${CUDARL_CACHE:-$HOME/.cache/cudarl_wb}
LOGDIR=${LOGDIR:-runs/small_seeds_logs}; mkdir -p "$LOGDIR"; rm -f "$LOGDIR/DONE"
seeds=("$@"); [ ${#seeds[@]} -gt 0 ] || seeds=(0 1)
cards=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "${#seeds[@]}" -le "$cards" ] || { echo "one card a seed: ${#seeds[@]} seeds, $cards cards"; exit 2; }
t0=$(date +%s); pids=(); i=0
for s in "${seeds[@]}"; do
  CUDA_VISIBLE_DEVICES=$i python3 -m cudarl_wb.cli train --preset small --seed "$s" --output-dir "runs/small_seed_$s" ${EXTRA:-} \
    > "$LOGDIR/seed_$s.log" 2>&1 &
  pids+=($!); i=$((i + 1))
done
wait "${pids[@]}"
runs=()
for s in "${seeds[@]}"; do
  echo "== seed $s"; grep -E "^(data:|generator:|after:|eval at|the budget|held-out|per step|cudarl-wb train:)" "$LOGDIR/seed_$s.log"
  runs+=("seed $s=runs/small_seed_$s")
done
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
python3 tools/compare_runs.py --metric fast_0 --title "cudarl-wb train --preset small, a seed a card ($card)" \
  --out "$LOGDIR/small_seeds.png" --json "$LOGDIR/small_seeds.json" "${runs[@]}"
echo "all done in $(( $(date +%s) - t0 )) s" | tee "$LOGDIR/DONE"
