#!/usr/bin/env bash
# The README's main command (`cudarl-wb train --preset tiny`) for several seeds side by side, each in its own
# folder, and then each run's test report (start, final and best on validation, paired against the start).
#   bash runs/readme_seeds.sh 0 1                      # seeds 0 and 1, default settings
#   ARM=small_warm SFT='{"procedural": {"elementwise": 4000, "rowreduce": 1000, "broadcast": 1000},
#       "steps": {"generator": 1500, "optimizer": 142}}' bash runs/readme_seeds.sh 0   # another warm start
#   TRAIN="--num-episodes 64" bash runs/readme_seeds.sh 0    # more flags for every run
# Runs go to ${RUNS:-runs/out}/${ARM:-readme}_seed<S>/ (report.json, training_curves.png, train.log); a run's
# folder gets DONE when it ends. Side by side on one card they share it: their times are not a lone run's.
set -uo pipefail
export PYTHONUNBUFFERED=1
out=${RUNS:-runs/out}; arm=${ARM:-readme}
mkdir -p "$out"
for s in "$@"; do
  d="$out/${arm}_seed$s"; rm -rf "$d"; mkdir -p "$d"
  ( start=$(date +%s)
    python3 -m cudarl_wb.cli train --preset tiny --seed "$s" --output-dir "$d/run" ${SFT:+--sft-settings "$SFT"} ${TRAIN:-} \
      > "$d/train.log" 2>&1
    echo "rc=$? seconds=$(( $(date +%s) - start ))" > "$d/DONE" ) &
done
wait
python3 - "$out" "$arm" "$@" <<'PY'
import json, sys
from pathlib import Path
from cudarl_wb.stats import report_table
out, arm, seeds = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
for s in seeds:
    d = out/f'{arm}_seed{s}'
    print(f"== {arm}, seed {s}: {(d/'DONE').read_text().strip()}")
    rep = d/'run'/'report.json'
    if rep.exists():
        r = json.loads(rep.read_text())
        print(f"{r['test_tasks']} test tasks, {r['verdict']}; best chosen on {r['val_tasks']} validation tasks")
        print(report_table(r['rows']).to_string())
    else: print((d/'train.log').read_text()[-3000:])
PY
