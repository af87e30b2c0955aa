#!/usr/bin/env bash
# Runs all M shards of one count on this machine, several at a time, then merges them.
# Uses GNU parallel when it is installed, else xargs -P.
#
#   scripts/cluster/gnu-parallel.sh N M [DIR]
#   scripts/cluster/gnu-parallel.sh 16 8 q16        # 8 shards of n = 16, results in q16/
#
# Each shard I writes DIR/shard-I.json and keeps a checkpoint in DIR/ckpt-I.json, so a run
# that was stopped (Ctrl-C) picks up where it was when started again with the same N, M and
# DIR; shards that already have a result file are not counted again. The same commands work
# on several machines that share DIR: hand each machine some of the indices. While it runs,
# `nqueens-count status DIR` says which shards are done, under way or missing.
#
# Each shard runs without its progress bar (--no-progress) and prints one line when it ends
# (GNU parallel tags each line with its shard, --line-buffer). Ctrl-C (SIGINT) or a SIGTERM
# sent to this script is passed on once to each running shard, which saves its checkpoint and
# stops; no new shard starts, and the script says which shards finished and which are left,
# then exits 130 (SIGINT) or 143 (SIGTERM) without merging. A second Ctrl-C is passed on too:
# the shards then leave at once, their last periodic checkpoint standing.
#
# Environment:
#   NQUEENS_BIN  the program                    (default: nqueens-count on PATH)
#   JOBS         shards run at once             (default: the number of CPUs)
#   THREADS      threads per shard              (default: 1)
#   USE_XARGS=1  use xargs -P even when GNU parallel is there
#
# Exit status: 0 when every shard ran and the merge checked out (its summary is the last
# line; the merge's JSON is in DIR/merged.json), 1 otherwise: the merge names any missing or
# damaged shard, and running the same command again counts only what is missing (a shard
# stopped part way resumes from its checkpoint); 130 or 143 when stopped by SIGINT or SIGTERM.

set -euo pipefail

if (($# < 2 || $# > 3)); then
  echo "usage: $0 N M [DIR]" >&2
  exit 2
fi
N="$1"
M="$2"
DIR="${3:-nqueens-n$N-m$M}"
NQUEENS_BIN="${NQUEENS_BIN:-nqueens-count}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
THREADS="${THREADS:-1}"

[[ "$M" =~ ^[1-9][0-9]*$ ]] || { echo "M must be a whole number of shards, not '$M'" >&2; exit 2; }
command -v "$NQUEENS_BIN" >/dev/null 2>&1 ||
  { echo "no program '$NQUEENS_BIN' (set NQUEENS_BIN=path/to/nqueens-count)" >&2; exit 2; }
NQUEENS_BIN="$(command -v "$NQUEENS_BIN")"
mkdir -p "$DIR"

# The shards still to count.
todo=()
for ((i = 0; i < M; i++)); do
  [[ -s "$DIR/shard-$i.json" ]] || todo+=("$i")
done
echo "n = $N in $M shards, $JOBS at a time, $THREADS threads each, into $DIR: ${#todo[@]} to count"

# Shard indices as ranges: 0-3,5,7-9 (the arguments in increasing order).
ranges() {
  local out="" start="" prev="" i
  for i in "$@" ""; do
    if [[ -n "$prev" && "$i" == "$((prev + 1))" ]]; then
      prev="$i"
      continue
    fi
    if [[ -n "$start" ]]; then
      if ((start == prev)); then out+=",$start"; else out+=",$start-$prev"; fi
    fi
    start="$i"
    prev="$i"
  done
  echo "${out#,}"
}

# The files of this run's bookkeeping: a stop mark, and each running shard's process id.
RUN="$DIR/.run"
rm -rf "$RUN"
mkdir -p "$RUN"

# The command for one shard, run by bash -c with the arguments: program N M I threads DIR.
# It records its process id (kept by exec), and does not start once the run is stopped.
# shellcheck disable=SC2016 # expanded by that bash, not this one
one_shard='echo $$ > "$5/.run/pid-$3"; [ -e "$5/.run/stop" ] && exit 0
exec "$0" "$1" --shard "$3/$2" --threads "$4" --no-progress --checkpoint "$5/ckpt-$3.json" --out "$5/shard-$3.json"'

# Ctrl-C or SIGTERM: no new shard starts, and each running shard gets the signal once. The
# runner is in a process group of its own (set -m), so that a Ctrl-C at the terminal reaches
# only this script, which passes it on, and never a shard twice.
stopped=""
# Whether process $1 is the count of shard $2 (a process id can be used again).
counting() {
  [[ -r "/proc/$1/cmdline" ]] && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q -- "--shard $2/$M "
}
stop() {
  stopped="$1"
  : >"$RUN/stop"
  local f i pid pass signalled=" "
  # Twice: a shard that had just looked for the stop mark when it was made starts its count
  # a moment later.
  for pass in 1 2; do
    for f in "$RUN"/pid-*; do
      [[ -e "$f" ]] || continue
      i="${f##*-}"
      pid="$(cat "$f" 2>/dev/null)" || continue
      [[ "$signalled" != *" $pid "* ]] && counting "$pid" "$i" || continue
      kill -"$1" "$pid" 2>/dev/null || true
      signalled+="$pid "
    done
    ((pass == 2)) || sleep 0.3
  done
  echo "$1: passed on to the running shards, which save their checkpoints; no new shard starts" >&2
}
trap 'stop INT' INT
trap 'stop TERM' TERM

status=0
if ((${#todo[@]} > 0)); then
  set -m
  if [[ "${USE_XARGS:-}" != 1 ]] && command -v parallel >/dev/null 2>&1 &&
    parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
    echo "runner: GNU parallel"
    # --termseq: were parallel itself ended, each running shard gets one SIGINT and a minute
    # to save its checkpoint before SIGKILL (the default sends a second TERM within 200 ms,
    # on which the program leaves without saving).
    parallel --will-cite -q --halt never --jobs "$JOBS" --line-buffer \
      --tagstring "shard {}/$M:" --termseq INT,60000,KILL,25 \
      bash -c "$one_shard" "$NQUEENS_BIN" "$N" "$M" {} "$THREADS" "$DIR" ::: "${todo[@]}" &
  else
    echo "runner: xargs -P $JOBS"
    printf '%s\n' "${todo[@]}" |
      xargs -P "$JOBS" -I{} bash -c "$one_shard" "$NQUEENS_BIN" "$N" "$M" {} "$THREADS" "$DIR" &
  fi
  runner=$!
  set +m
  # wait returns early when a signal comes in; the runner is waited for until it ends.
  while :; do
    status=0
    wait "$runner" || status=$?
    kill -0 "$runner" 2>/dev/null || break
  done
  # Shards the runner left running (xargs does not wait for them once signalled).
  for f in "$RUN"/pid-*; do
    [[ -e "$f" ]] || continue
    pid="$(cat "$f" 2>/dev/null)" || continue
    while counting "$pid" "${f##*-}"; do sleep 0.2; done
  done
  if [[ -n "$stopped" ]]; then
    done_now=()
    left=()
    for i in "${todo[@]}"; do
      if [[ -s "$DIR/shard-$i.json" ]]; then done_now+=("$i"); else left+=("$i"); fi
    done
    rm -rf "$RUN"
    finished="none"
    ((${#done_now[@]} == 0)) || finished="$(ranges "${done_now[@]}")"
    unfinished="none"
    ((${#left[@]} == 0)) || unfinished="$(ranges "${left[@]}")"
    echo "stopped by SIG$stopped: ${#done_now[@]} of the ${#todo[@]} shards to count finished" \
      "($finished), ${#left[@]} left ($unfinished); those that had started saved their" \
      "checkpoints in $DIR: run the same command again ($0 $N $M $DIR) to go on" >&2
    [[ "$stopped" == INT ]] && exit 130
    exit 143
  fi
  ((status == 0)) || echo "some shards failed (runner exit $status); the merge names them" >&2
fi
rm -rf "$RUN"

shopt -s nullglob
files=("$DIR"/shard-*.json)
if ((${#files[@]} == 0)); then
  echo "no result files in $DIR" >&2
  exit 1
fi
# One merge (it counts a sample of the subproblems again): its JSON is kept, and a summary printed.
if "$NQUEENS_BIN" merge "${files[@]}" --json >"$DIR/merged.json.tmp"; then
  mv "$DIR/merged.json.tmp" "$DIR/merged.json"
  field() { sed -n "s/.*\"$1\":\"\{0,1\}\([0-9a-z]*\).*/\1/p" "$DIR/merged.json"; }
  echo "n = $(field n): $(field solutions_str) solutions, $(field unique_str) unique" \
    "($M shards merged; the JSON is in $DIR/merged.json)"
else
  rm -f "$DIR/merged.json.tmp"
  echo "not merged: delete any damaged file the merge names, then run the same command" \
    "again ($0 $N $M $DIR): it counts only the missing shards, and a shard stopped part" \
    "way resumes from its checkpoint" >&2
  exit 1
fi
((status == 0)) || exit 1
