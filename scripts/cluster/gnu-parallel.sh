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
# Environment:
#   NQUEENS_BIN  the program                    (default: nqueens-count on PATH)
#   JOBS         shards run at once             (default: the number of CPUs)
#   THREADS      threads per shard              (default: 1)
#   USE_XARGS=1  use xargs -P even when GNU parallel is there
#
# Exit status: 0 when every shard ran and the merge checked out (its summary is the last
# line; the merge's JSON is in DIR/merged.json), 1 otherwise: the merge names any missing or
# damaged shard, and running the same command again counts only what is missing (a shard
# stopped part way resumes from its checkpoint).

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

# The command for one shard, run by bash -c with the arguments: program N M I threads DIR.
# shellcheck disable=SC2016 # expanded by that bash, not this one
one_shard='exec "$0" "$1" --shard "$3/$2" --threads "$4" --checkpoint "$5/ckpt-$3.json" --out "$5/shard-$3.json"'

status=0
if ((${#todo[@]} > 0)); then
  if [[ "${USE_XARGS:-}" != 1 ]] && command -v parallel >/dev/null 2>&1 &&
    parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
    echo "runner: GNU parallel"
    parallel --will-cite -q --halt never --jobs "$JOBS" --line-buffer \
      bash -c "$one_shard" "$NQUEENS_BIN" "$N" "$M" {} "$THREADS" "$DIR" ::: "${todo[@]}" || status=$?
  else
    echo "runner: xargs -P $JOBS"
    printf '%s\n' "${todo[@]}" |
      xargs -P "$JOBS" -I{} bash -c "$one_shard" "$NQUEENS_BIN" "$N" "$M" {} "$THREADS" "$DIR" || status=$?
  fi
  ((status == 0)) || echo "some shards failed (runner exit $status); the merge names them" >&2
fi

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
