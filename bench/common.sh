# Sourced by the bench scripts: the newest JDK >= 21, the jar (rebuilt when the sources are newer), a
# scratch directory removed on exit with every process started through start_node, and the helpers
# every comparison prints with (medians and ranges: this VM drifts ±10% over minutes).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
JAVA_HOME="$(bin/jdk-home)"; export JAVA_HOME
java="$JAVA_HOME/bin/java"
major="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null || true)"
unsafe=()
if [[ -n "$major" && "$major" -ge 24 ]]; then unsafe=(--sun-misc-unsafe-memory-access=allow); export MAVEN_OPTS="${MAVEN_OPTS:-} ${unsafe[*]}"; fi
work="$(mktemp -d)"
pids=()
# A server started as `pkibench serve … &` is a subshell running the pkibench function, the JVM its child: stop the
# children first, or killing the subshell would leave the JVM running.
cleanup() { for p in "${pids[@]}"; do pkill -TERM -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
if [[ ! -f target/pkibench.jar ]] || [[ -n "$(find src/main pom.xml -newer target/pkibench.jar -print -quit)" ]]; then
  echo "building..." >&2
  ./mvnw -q -B -DskipTests package >&2
fi
pkibench() { "$java" --enable-native-access=ALL-UNNAMED "${unsafe[@]}" -jar "$root/target/pkibench.jar" "$@"; }
machine() { echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $("$java" -version 2>&1 | head -1)"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_node PKI_DIR: a key-server node on a free loopback port; prints HOST:PORT once it is ready.
start_node() {
  local port out
  port="$(free_port)"; out="$work/node-$port.out"
  pkibench serve keyserver --port "$port" --pki "$1" > "$out" 2>&1 &
  pids+=("$!")
  for _ in $(seq 1 60); do grep -q '^pkibench.ready/1' "$out" && break; sleep 0.5; done
  grep -q '^pkibench.ready/1' "$out" || { echo "serve keyserver did not start:" >&2; cat "$out" >&2; exit 1; }
  echo "127.0.0.1:$port"
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
