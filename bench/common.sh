# Sourced by the bench scripts: the newest JDK >= 21, the jar (rebuilt when the sources are newer), a
# scratch directory removed on exit with every process started through spawn, and the helpers
# every comparison prints with (medians and ranges: this VM drifts ±10% over minutes).
# BENCH_CLASSPATH=CLASSES:JARS runs pkibench from those classes instead of the jar, and builds nothing (the suite's
# test of the scripts runs them on the classes it was compiled to).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
JAVA_HOME="$(bin/jdk-home)"; export JAVA_HOME
java="$JAVA_HOME/bin/java"
major="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null || true)"
unsafe=()
if [[ -n "$major" && "$major" -ge 24 ]]; then unsafe=(--sun-misc-unsafe-memory-access=allow); export MAVEN_OPTS="${MAVEN_OPTS:-} ${unsafe[*]}"; fi
work="$(mktemp -d)"
pids=()
# Every process a script leaves running in the background is started by spawn, in this shell (never inside $(…), whose
# subshell's pids would never reach here), as the process itself, not a subshell around it. cleanup stops each with
# SIGTERM, waits up to 10 s for it to go, then SIGKILLs what is left. It runs on every end: normal, a failure under
# set -e, Ctrl-C, SIGTERM or SIGHUP (the traps below turn each into an exit); background processes of a script ignore
# Ctrl-C's SIGINT, so without it a key-server JVM would outlive the script.
alive() { [[ -r "/proc/$1/stat" ]] && [[ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]]; }
cleanup() {
  local p left
  trap - INT TERM HUP
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 1 40); do
    left=0
    for p in "${pids[@]}"; do alive "$p" && left=1; done
    (( left )) || break
    sleep 0.25
  done
  for p in "${pids[@]}"; do alive "$p" && kill -KILL "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
if [[ -n "${BENCH_CLASSPATH:-}" ]]; then
  launch=("$java" --enable-native-access=ALL-UNNAMED "${unsafe[@]}" -cp "$BENCH_CLASSPATH" io.pkibench.cli.Main)
else
  if [[ ! -f target/pkibench.jar ]] || [[ -n "$(find src/main pom.xml -newer target/pkibench.jar -print -quit)" ]]; then
    echo "building..." >&2
    ./mvnw -q -B -DskipTests package >&2
  fi
  launch=("$java" --enable-native-access=ALL-UNNAMED "${unsafe[@]}" -jar "$root/target/pkibench.jar")
fi
pkibench() { "${launch[@]}" "$@"; }
# spawn OUT ARGS...: 'pkibench ARGS' in the background, its output to OUT; its pid in $spawned and in pids. Call it in
# the script's own shell, never inside $(…).
spawn() {
  local out="$1"; shift
  "${launch[@]}" "$@" > "$out" 2>&1 &
  spawned=$!
  pids+=("$spawned")
}
# adopt PID: a process started some other way (stunnel, iperf3), stopped by cleanup like the others
adopt() { pids+=("$1"); }
machine() { echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $("$java" -version 2>&1 | head -1)"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# await_ready OUT WHAT: waits (up to 60 s) for a service's ready line in OUT; exits naming WHAT if it never comes
await_ready() {
  for _ in $(seq 1 120); do grep -qs '^pkibench.ready/1' "$1" && return 0; alive "$spawned" || break; sleep 0.5; done
  grep -q '^pkibench.ready/1' "$1" || { echo "$2 did not start:" >&2; cat "$1" >&2; exit 1; }
}

# start_node PKI_DIR [ARGS...]: a key-server node on a free loopback port; once it is ready, sets node (HOST:PORT) and
# node_pid. Not inside $(…): the node's pid must reach cleanup.
start_node() {
  local port pki="$1"; shift
  port="$(free_port)"
  spawn "$work/node-$port.out" serve keyserver --port "$port" --pki "$pki" "$@"
  await_ready "$work/node-$port.out" "serve keyserver"
  node="127.0.0.1:$port"; node_pid="$spawned"
}

# rates RESULT: "WORKLOAD THROUGHPUT" per level, from the CSV export read as CSV (a remote source's keys hold commas)
rates() {
  pkibench report "$1" --format csv 2>/dev/null | python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin):
    if r.get("format", "").startswith("pkibench.levels"): print(r["workload"], r["throughput_ops_s"] or 0)'
}

# median_range FORMAT VALUES...: "median (min–max)"
median_range() {
  local fmt="$1"; shift
  printf '%s\n' "$@" | sort -g | awk -v f="$fmt" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf f " (" f "–" f ")", m, v[1], v[NR] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
