# Sourced by .ci/test: run every step even when an earlier one failed (one red step must not
# hide the others, e.g. a pytest failure skipping the browser tests), record each step's result,
# print a summary, and fail at the end if any step failed.
#   step NAME COMMAND...   runs one step (in a lane: its output goes to a log file)
#   lane NAME FUNCTION ARGS  runs FUNCTION ARGS's steps in the background, one after another
#   finish_steps           waits for the lanes, prints their logs (failed steps last) and the
#                          summary; returns 1 if any step failed
# Lanes exist because most of a run is waiting (a browser, a kernel, a Codex process), not
# computing: lanes side by side use the second core while the first waits (the run's wall
# times: docs/benchmarks.md, "The CI run"). A step's output is kept whole in build/test-logs/.
_steps_logs="build/test-logs"
_lane_pids=()
rm -rf "$_steps_logs" && mkdir -p "$_steps_logs"

step() {
  local name="$1"; shift
  local started=$SECONDS rc=0
  _lane_n=$((${_lane_n:-0} + 1))
  local id
  id="${_lane:-main}-$(printf %02d "$_lane_n")"
  echo "[test] $name: started"
  "$@" >"$_steps_logs/$id.log" 2>&1 </dev/null || rc=$?
  local took=$((SECONDS - started))
  printf '%s\t%s\t%s\n' "$name" "$rc" "$took" >"$_steps_logs/$id.result"
  if [ "$rc" -eq 0 ]; then
    echo "[test] $name: passed in ${took}s"
  else
    echo "[test] $name: FAILED (exit $rc) after ${took}s"
  fi
  return 0
}

lane() {
  local name="$1" fn="$2"
  shift 2
  # Each lane gets a HOME of its own inside the run's HOME (Jupyter and pip write there), and a
  # process group of its own (set -m), so that stopping the run stops every process of it.
  set -m
  (
    _lane="$name"
    _lane_n=0
    export HOME="$HOME/lane-$name"
    mkdir -p "$HOME"
    "$fn" "$@"
  ) &
  _lane_pids+=("$!")
  set +m
  trap _stop_lanes INT TERM
}

_stop_lanes() {
  local pid
  for pid in "${_lane_pids[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  exit 130
}

finish_steps() {
  local pid failed=0 result name rc took log
  for pid in "${_lane_pids[@]}"; do
    wait "$pid" || failed=1  # a lane itself never fails: its steps' results are in the files
  done
  # the output of each step, the failed ones last (nearest to the summary)
  for pass in ok failed; do
    for result in "$_steps_logs"/*.result; do
      [ -e "$result" ] || continue
      IFS=$'\t' read -r name rc took <"$result"
      if { [ "$pass" = ok ] && [ "$rc" -eq 0 ]; } || { [ "$pass" = failed ] && [ "$rc" -ne 0 ]; }; then
        log="${result%.result}.log"
        echo
        echo "[test] ===== output of: $name ($log)"
        cat "$log"
      fi
    done
  done
  echo
  echo "[test] summary"
  for result in "$_steps_logs"/*.result; do
    [ -e "$result" ] || continue
    IFS=$'\t' read -r name rc took <"$result"
    if [ "$rc" -eq 0 ]; then
      printf '[test]   %-72s %s\n' "$name" "passed in ${took}s"
    else
      printf '[test]   %-72s %s\n' "$name" "FAILED (exit $rc) after ${took}s"
      failed=1
    fi
  done
  if [ "$failed" -ne 0 ]; then
    echo "[test] FAILED: at least one step failed (see the summary above)"
    return 1
  fi
  echo "[test] every step passed"
}
