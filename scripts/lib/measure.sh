# Whole-process timing for the benchmark scripts (sourced, not run): each command a fresh process,
# alternated run by run with the others of its measurement, medians of wall and CPU time.
# The sourcing script sets $work (a scratch folder) and may set MEASURE_LABEL (its name, for
# errors) and MEASURE_NAME_WIDTH (the width of the name column). Needs python3.

# measure RUNS NAME COMMAND [NAME COMMAND]...: runs each COMMAND (one string, evaluated) RUNS times
# plus one warm-up, alternating between them run by run, so that a machine getting busier or
# quieter during the measurement affects each side alike; prints "NAME wall_median cpu_median"
# per command and keeps both in WALL[NAME], CPU[NAME]. BETWEEN_RUNS_NAME (NAME with - as _) is
# evaluated after each run of NAME. Output of the last run goes to $work/NAME.out.
declare -A WALL CPU
# timed FILE COMMAND: runs COMMAND (a string for sh) and appends "wall user system" in seconds to
# FILE; the status is the command's.
timed() {
  python3 -c '
import resource, subprocess, sys, time
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
status = subprocess.call(["sh", "-c", "exec " + sys.argv[2]])
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "a") as out:
    out.write("%.6f %.6f %.6f\n" % (wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime))
sys.exit(status)' "$1" "$2"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
measure() {
  local count=$1 i pair name
  shift
  local -a names=() commands=()
  while [ $# -gt 0 ]; do names+=("$1"); commands+=("$2"); shift 2; done
  for name in "${names[@]}"; do : >"$work/$name.times" && : >"$work/$name.times.raw"; done
  for ((i = 0; i <= count; i++)); do
    for pair in "${!names[@]}"; do
      name=${names[$pair]}
      if ! timed "$work/$name.times.raw" "${commands[$pair]}" >"$work/$name.out" 2>"$work/$name.err"; then
        echo "${MEASURE_LABEL:-bench}: '${commands[$pair]}' failed:" >&2
        cat "$work/$name.err" >&2
        exit 1
      fi
      # The first run warms the page cache and the JIT's disk caches; it is not counted.
      if [ "$i" -gt 0 ]; then tail -n 1 "$work/$name.times.raw" >>"$work/$name.times"; fi
      local between="BETWEEN_RUNS_${name//-/_}"
      if [ -n "${!between:-}" ]; then eval "${!between}"; fi
    done
  done
  for name in "${names[@]}"; do
    WALL[$name]=$(awk '{print $1}' "$work/$name.times" | median)
    CPU[$name]=$(awk '{print $2+$3}' "$work/$name.times" | median)
    printf '  %-*s wall %7.3f s   cpu %7.3f s   (median of %d)\n' "${MEASURE_NAME_WIDTH:-34}" "$name" "${WALL[$name]}" "${CPU[$name]}" "$count"
  done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }'; }

