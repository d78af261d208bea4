# Sourced by .ci/test: run every step even when an earlier one failed (one red step must not
# hide the others, e.g. a pytest failure skipping the browser tests), record each step's result,
# print a summary, and fail at the end if any step failed.
#   step NAME COMMAND...   runs one step
#   finish_steps           prints the summary; returns 1 if any step failed
_step_names=()
_step_results=()
_steps_failed=0

step() {
  local name="$1"; shift
  local started=$SECONDS rc=0
  echo "[test] $name"
  "$@" || rc=$?
  local took=$((SECONDS - started))
  _step_names+=("$name")
  if [ "$rc" -eq 0 ]; then
    _step_results+=("passed in ${took}s")
  else
    _step_results+=("FAILED (exit $rc) after ${took}s")
    _steps_failed=1
  fi
  return 0
}

finish_steps() {
  local i
  echo
  echo "[test] summary"
  for i in "${!_step_names[@]}"; do
    printf '[test]   %-72s %s\n' "${_step_names[$i]}" "${_step_results[$i]}"
  done
  if [ "$_steps_failed" -ne 0 ]; then
    echo "[test] FAILED: at least one step failed (see the summary above)"
    return 1
  fi
  echo "[test] every step passed"
}
