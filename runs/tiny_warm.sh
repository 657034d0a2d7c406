# tiny_warm DIR SIZE [SEED]: a warm start of `tiny` of SIZE = EXAMPLES:STEPS:BATCH into DIR (kept where DIR already
# holds one), its log in DIR.log. Generator examples are elementwise, rowreduce and broadcast compositions 4:1:1; the
# Optimizer takes OPT steps (the preset's 142). No time cap: it runs its steps. Sourced by tiny_sizes.sh and
# tiny_variants.sh.
tiny_warm() {
  local dir=$1 n steps batch
  IFS=: read -r n steps batch <<<"$2"
  [ -f "$dir/agents.json" ] && return 0
  python3 -m cudarl_wb.cli sft --preset tiny --out "$dir" --eval-after-only --no-progress \
    --set time_budget_s=null --set "procedural={\"elementwise\": $((n * 4 / 6)), \"rowreduce\": $((n / 6)), \"broadcast\": $((n / 6))}" \
    --set "steps={\"generator\": $steps, \"optimizer\": ${OPT:-142}}" --set "batch_size=$batch" --set "seed=${3:-0}" \
    > "$dir.log" 2>&1 || { echo "warm start failed: see $dir.log" >&2; return 1; }
}
