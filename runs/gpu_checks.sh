#!/usr/bin/env bash
# Every GPU check of the project, in stages, for a GPU machine (torch with CUDA, nvcc, pytest there;
# nbdev & co. carried as wheels in .whl/). Usage from the repo root:  bash runs/gpu_checks.sh STAGE...
# Stages: setup info notebooks pytest hostile compile suite rollout timing eval models planner data reward
#         grpo_smoke sft_small grpo_small (grpo_small needs the sft_small checkpoint of the same warm machine)
# Logs and JSON figures are collected in one folder and packed into $OUT/gpu_logs.tgz at the end (the
# device returns at most 8 files); a summary line and the log's tail per stage go to stdout.
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUDARL_CACHE=${CUDARL_CACHE:-/tmp/cudarl_cache}
OUTDIR=/tmp/gpu_logs; mkdir -p "$OUTDIR" bench/results
run() {  # name, command...
  local name=$1; shift
  local t0=$(date +%s)
  "$@" > "$OUTDIR/$name.log" 2>&1; local rc=$?
  echo "== $name: rc=$rc in $(( $(date +%s) - t0 )) s"; tail -n ${TAILN:-6} "$OUTDIR/$name.log"
}
for stage in "$@"; do case $stage in
  setup)  # carried wheels (nbdev, execnb, fastcore, ipywidgets, datasets) into a side folder
    if ls .whl/*.whl >/dev/null 2>&1; then
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=$PYTHONPATH:/tmp/site PATH=/tmp/site/bin:$PATH && echo "== setup: wheels installed"
    fi ;;
  info)      run info bash -c 'python3 -m cudarl_wb.cli info && python3 -m cudarl_wb.cli plan && python3 -m cudarl_wb.sandbox --probe cuda:0' ;;
  notebooks) for nb in ${NBS:-$(grep -l '"#| cuda' nbs/[0-9]*.ipynb)}; do run "nb_$(basename $nb .ipynb)" python3 -c "from nbdev.test import test_nb; import sys; ok,t=test_nb('$nb', skip_flags=['slow'], force_flags=['cuda'], basepath='.'); print('OK' if ok else 'FAILED', round(t,1)); sys.exit(0 if ok else 1)"; done ;;
  pytest)    run pytest python3 -m pytest -m cuda tests -q -rfEs --ignore=tests/test_hostile.py -p no:cacheprovider ;;
  hostile)   run hostile python3 -m pytest -m cuda tests/test_hostile.py -q -rA -s -p no:cacheprovider ;;
  compile)   run compile_gpu_check python3 bench/compile_gpu_check.py --out "$OUTDIR/compile_gpu_check.json"
             run compile_bench python3 bench/compile_bench.py --load-inline 3 --workers 1 4 16 --out "$OUTDIR/compile_bench.json" ;;
  suite)     run suite_gpu python3 bench/suite_gpu.py --procedural 36 --json "$OUTDIR/suite_gpu.json" ;;
  rollout)   run rollout_gpu_tests python3 -m pytest -m cuda tests/test_rollout.py -q -rfEs -p no:cacheprovider
             run rollout_bench python3 bench/rollout_bench.py --budget-s 240 ;;
  timing)    run timing_fidelity python3 bench/timing_fidelity.py ;;
  eval)      run eval_bench python3 bench/eval_bench.py --n 24 --kernelbench 2 ;;
  models)    run bench_models python3 bench/bench_models.py --presets tiny,small ;;
  planner)   run planner_memory python3 bench/planner_memory.py ;;
  data)      run data_convert python3 bench/data_convert.py ;;
  reward)    run reward_gpu python3 bench/reward_gpu.py --out "$OUTDIR/reward_gpu.json" ;;
  grpo_smoke) run grpo_smoke python3 -m cudarl_wb.cli train --preset tiny --sft-budget 0 --num-episodes 16 --batch-size 1 --group-size 8 \
                 --max-new-tokens 128 --test-tasks 4 --output-dir runs/grpo_smoke ;;
  sft_small) run sft_small python3 runs/sft_gpu.py --out runs/sft_small --copy-to "$OUTDIR" ;;
  grpo_small)  # GRPO on the small preset from the SFT checkpoint the sft_small stage left (same warm machine)
             run grpo_small python3 -m cudarl_wb.cli train --preset small --generator-checkpoint runs/sft_small --output-dir runs/rl_small \
                 --num-episodes 4000 --batch-size ${GRPO_BATCH:-4} --group-size 8 --test-tasks ${GRPO_EVAL:-32} --eval-every ${GRPO_EVAL_EVERY:-6} \
                 --learning-rate ${GRPO_LR:-2e-5} --time-budget ${GRPO_BUDGET:-400} ${GRPO_EXTRA:-}
             cp -f runs/rl_small/final_model/training_metrics.json "$OUTDIR/grpo_small_metrics.json" 2>/dev/null
             cp -f runs/rl_small/training_curves.png "$OUTDIR/grpo_small_curves.png" 2>/dev/null ;;
  *) echo "unknown stage $stage" ;;
esac; done
cp -f bench/results/*.json "$OUTDIR/" 2>/dev/null || true
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu_logs_$(date +%H%M%S).tgz" -C "$OUTDIR" . && echo "logs packed into \$OUT"
