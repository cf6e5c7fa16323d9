#!/usr/bin/env bash
# Whole-process performance ratios of docs/performance.md, each against its baseline in the
# same hyperfine invocation (paired runs). Needs hyperfine; jq for the replay comparison.
#   make perf            # start-up, routes on the example, 5 x 20k GVRs, replay of 1 M events
#   PERF_QUICK=1 make perf   # fewer runs, no 1 M replay
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v hyperfine >/dev/null || { echo "perf.sh: needs hyperfine (https://github.com/sharkdp/hyperfine)" >&2; exit 1; }
out=${PERF_DIR:-/tmp/mvpctl-perf}
mkdir -p "$out"
runs=${PERF_RUNS:-40}
[ -n "${PERF_QUICK:-}" ] && runs=10
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/mvpctl" ./cmd/mvpctl
go build -o "$out/hello" ./test/tools/hello
echo "binary: $(stat -c %s "$out/mvpctl") bytes stripped; $(go list -deps ./cmd/mvpctl | wc -l) packages" >&2

hyperfine -N -w 5 -r "$runs" --export-markdown "$out/startup.md" \
  -n hello "$out/hello" \
  -n version "$out/mvpctl version" \
  -n routes-example "$out/mvpctl routes --snapshot examples/skew.yaml"
cat "$out/startup.md"

[ -f "$out/snap-20000.json" ] || go run ./test/tools/gensnap -servers 5 -gvrs 20000 -o "$out/snap-20000.json"
hyperfine -N -w 1 -r "$(( runs / 8 + 2 ))" --export-markdown "$out/scale.md" \
  -n version "$out/mvpctl version" \
  -n routes-5x20k "$out/mvpctl routes --snapshot $out/snap-20000.json"
cat "$out/scale.md"
/usr/bin/time -f "routes 5x20k: %e s, %M KB peak RSS" "$out/mvpctl" routes --snapshot "$out/snap-20000.json" >/dev/null

[ -n "${PERF_QUICK:-}" ] && exit 0
[ -f "$out/audit-1m.log" ] || go run ./test/tools/auditgen -n 1000000 -o "$out/audit-1m.log"
cat "$out/audit-1m.log" >/dev/null # page cache warm for every contender
hyperfine -w 1 -r 5 -i --export-markdown "$out/replay.md" \
  -n mvpctl-replay "$out/mvpctl preflight --servers a=1.36,b=1.36 --proxy configured --to 1.37 --audit-log $out/audit-1m.log -o json" \
  -n jq "jq -r '[.verb,.requestURI]|@tsv' $out/audit-1m.log" \
  -n wc-l "wc -l $out/audit-1m.log"
cat "$out/replay.md"
/usr/bin/time -f "replay 1M: %e s, %M KB peak RSS" "$out/mvpctl" preflight --servers a=1.36,b=1.36 --proxy configured --to 1.37 --audit-log "$out/audit-1m.log" -o json >/dev/null || true
