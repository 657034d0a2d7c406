#!/usr/bin/env bash
# Several variants of `tiny`'s RL step side by side from ONE warm start, so that they can be compared with each other
# as well as with the start: every run draws the same tasks (one seed) and is tested on the same tasks.
#   SIZE=5000:1250:16 VARIANTS="rft: ; rft_gen: --trained-agents generator" bash runs/tiny_variants.sh
#   WARM=runs/out/warm_5000 VARIANTS="..." TRAIN="--run-budget 500" bash runs/tiny_variants.sh   # an existing warm start
# SIZE is EXAMPLES:STEPS:BATCH as in runs/tiny_sizes.sh (Generator examples 4:1:1 elementwise, rowreduce, broadcast;
# the Optimizer's 142 steps). VARIANTS is `name: flags` items separated by `;`, each a `cudarl-wb train --preset tiny`
# with those flags and TRAIN's. Writes ${RUNS:-runs/out}/variants/<name>/ and prints each run's change against the
# start and each variant's paired change against the first (McNemar's exact test on the final test verdicts).
# Side by side on one card the runs share it: their step times are not a lone run's.
set -uo pipefail
export PYTHONUNBUFFERED=1
out=${RUNS:-runs/out}/variants; mkdir -p "$out"
warm=${WARM:-}
source "$(dirname "$0")/tiny_warm.sh"
[ -n "$warm" ] || { warm="$out/warm"; tiny_warm "$warm" "${SIZE:-5000:1250:16}" "${SEED:-0}" || exit 1; }
names=()
IFS=';' read -ra items <<<"$VARIANTS"
for item in "${items[@]}"; do
  name=$(echo "${item%%:*}" | xargs); flags=${item#*:}; [ -n "$name" ] || continue
  names+=("$name"); d="$out/$name"; rm -rf "$d"; mkdir -p "$d"
  ( start=$(date +%s)   # shellcheck disable=SC2086  # flags and TRAIN are words
    python3 -m cudarl_wb.cli train --preset tiny --seed "${SEED:-0}" --generator-checkpoint "$warm" --output-dir "$d/run" \
      $flags ${TRAIN:-} > "$d/train.log" 2>&1
    echo "rc=$? seconds=$(( $(date +%s) - start ))" > "$d/DONE" ) &
done
wait
python3 - "$out" "${names[@]}" <<'PY'
import json, sys
from pathlib import Path
sys.path.insert(0, 'bench'); from _table import table
from cudarl_wb.stats import mcnemar
out, names = Path(sys.argv[1]), sys.argv[2:]
def tests(name):
    f = out/name/'run'/'report.json'
    return json.loads(f.read_text())['tests'] if f.exists() else None
rows, first = [], None
for name in names:
    t = tests(name)
    if t is None: rows.append(dict(variant=name, start=f"- (see {out/name}/train.log)")); continue
    s, f = ({r['task']: r for r in t[k]['records']} for k in ('start', 'final'))
    tasks = sorted(s)
    rate = lambda recs, key='correct': sum(bool(recs[k].get(key)) for k in tasks) / len(tasks)
    m = mcnemar([s[k]['correct'] for k in tasks], [f[k]['correct'] for k in tasks])
    row = dict(variant=name, steps=t['final']['step'], tasks=len(tasks), start=f"{rate(s):.3f}", final=f"{rate(f):.3f}",
               first_turn=f"{rate(s, 'first_correct'):.3f} -> {rate(f, 'first_correct'):.3f}",
               lost_gained=f"-{m['lost']} +{m['gained']}", p=f"{m['p']:.2g}")
    if first is None: first = f
    elif set(first) == set(f):
        v = mcnemar([first[k]['correct'] for k in tasks], [f[k]['correct'] for k in tasks])
        row['vs_first'] = f"-{v['lost']} +{v['gained']}, p {v['p']:.2g}"
    rows.append(row)
print(f"test correct (greedy), each run against its start and against the first variant ({names[0]}):")
table(rows, ['variant', 'steps', 'tasks', 'start', 'final', 'first_turn', 'lost_gained', 'p', 'vs_first'])
PY
