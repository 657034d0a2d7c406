#!/usr/bin/env bash
# `cudarl-wb train --preset small` (its recipe, warm start included, 20 minutes) for several seeds or variants, each
# alone on a card of its own and all at once; then their held-out curves on one figure.
#   bash runs/small_seeds.sh [SEED...]                 # default: seeds 0 and 1, on cards 0 and 1
#   bash runs/small_seeds.sh 0 1 "joint=--seed 0 --joint-sft" "one turn=--seed 0 --max-turns 1 --group-size 16"
# A plain number S is the run "seed S" (--seed S); LABEL=FLAGS is a run with those `cudarl-wb train` flags.
# One `small` run a card: two on one 80 GB card run out of memory with their sandbox workers (LOG.md).
# Runs go to runs/small_<label>/, logs, the figure and its table to $LOGDIR (default runs/small_seeds_logs). It writes
# $LOGDIR/DONE at the end, so a caller can start it in the background and read the logs while it goes.
# More `cudarl-wb train` flags for every run: EXTRA.
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUDARL_CACHE=${CUDARL_CACHE:-$HOME/.cache/cudarl_wb}
LOGDIR=${LOGDIR:-runs/small_seeds_logs}; mkdir -p "$LOGDIR"; rm -f "$LOGDIR/DONE"
specs=("$@"); [ ${#specs[@]} -gt 0 ] || specs=(0 1)
cards=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "${#specs[@]}" -le "$cards" ] || { echo "one card a run: ${#specs[@]} runs, $cards cards"; exit 2; }
t0=$(date +%s); pids=(); names=(); labels=(); i=0
for spec in "${specs[@]}"; do
  if [[ $spec == *=* ]]; then label=${spec%%=*} flags=${spec#*=}; else label="seed $spec" flags="--seed $spec"; fi
  name=$(echo "$label" | tr -c 'A-Za-z0-9\n' '_')
  # shellcheck disable=SC2086  # flags are words
  CUDA_VISIBLE_DEVICES=$i python3 -m cudarl_wb.cli train --preset small $flags --output-dir "runs/small_$name" ${EXTRA:-} \
    > "$LOGDIR/$name.log" 2>&1 &
  pids+=($!); names+=("$name"); labels+=("$label"); i=$((i + 1))
done
wait "${pids[@]}"
runs=()
for k in "${!names[@]}"; do
  echo "== ${labels[$k]}"; grep -E "^(data:|generator:|after:|eval at|the budget|held-out|per step|cudarl-wb train:)" "$LOGDIR/${names[$k]}.log"
  runs+=("${labels[$k]}=runs/small_${names[$k]}")
done
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
python3 tools/compare_runs.py --metric fast_0 --title "cudarl-wb train --preset small, a run a card ($card)" \
  --out "$LOGDIR/small_seeds.png" --json "$LOGDIR/small_seeds.json" "${runs[@]}"
echo "all done in $(( $(date +%s) - t0 )) s" | tee "$LOGDIR/DONE"
