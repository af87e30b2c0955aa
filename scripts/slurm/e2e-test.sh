#!/usr/bin/env bash
# End-to-end test of nqueens-array.sbatch on a real, single-node Slurm cluster.
#
#   scripts/slurm/e2e-test.sh target/release/nqueens-count
#
# Needs: root, a Debian-like system (apt-get) when Slurm or munge is not installed yet,
# no systemd (the daemons are started by hand), and nothing else listening on the two
# ports below. It installs slurmctld, slurmd, slurm-client and munge when missing, starts a
# private munged, slurmctld and slurmd whose files all live in a temporary folder, and
# then:
#   1. submits the array of M = 4 shards of n = 14 with task 2 made to stall, and kills
#      task 2 with scancel while it runs; a merge job with --dependency=afterok waits for
#      the array and must be left pending for good;
#   2. checks tasks 0, 1, 3 completed and task 2 was cancelled, that shard-2.json is missing,
#      and that `nqueens-count merge` refuses the incomplete set (exit 1, naming shard 2);
#   3. resubmits only index 2 (sbatch --array=2) with a merge job that depends on it
#      (afterok), and checks both the merge job's JSON and a merge run here give exactly
#      365596 solutions and 45752 unique ones;
#   4. counts the same shards again as two arrays of 2 tasks, the second with SHARD_OFFSET=2,
#      checks that its tasks counted shards 2 and 3, and that the merge is exact.
# Whatever happens, the daemons it started are stopped (by pid) and its folder removed.
# The last line is `slurm e2e: 1 passed, 0 failed`, or `slurm e2e: 0 passed, 1 failed` and
# a non-zero exit status.
#
# Environment: NQ_SLURM_CTLD_PORT and NQ_SLURM_D_PORT (default 16817 and 16818),
# NQ_SLURM_KEEP=1 to keep the temporary folder for a look after the run.

set -uo pipefail

N=14
M=4
# The jobs get this shell's environment (--export=ALL): none of the script's own settings.
unset SHARD_OFFSET SHARDS_PER_TASK
KILLED=2
WANT_SOLUTIONS=365596
WANT_UNIQUE=45752
CTLD_PORT="${NQ_SLURM_CTLD_PORT:-16817}"
SLURMD_PORT="${NQ_SLURM_D_PORT:-16818}"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SBATCH_SCRIPT="$HERE/nqueens-array.sbatch"
START=$SECONDS

say() { printf '[slurm e2e %3ds] %s\n' "$((SECONDS - START))" "$*"; }

WORK=""
HOST=""
MUNGED_PID=""
CTLD_PID=""
SLURMD_PID=""
JOBS=()
POLICY_RC_ADDED=""
APT_LOG=""

show_logs() {
  [[ -n "$WORK" && -d "$WORK" ]] || return 0
  local f
  if [[ -n "$CTLD_PID" ]] && kill -0 "$CTLD_PID" 2>/dev/null; then
    echo "----- squeue -----"
    squeue 2>&1
    echo "----- scontrol show node / job -----"
    scontrol -o show node 2>&1
    scontrol -o show job 2>&1
  fi
  for f in "$WORK"/log/*.log "$WORK"/out/*.out; do
    [[ -s "$f" ]] || continue
    echo "----- ${f#"$WORK"/} (last 25 lines) -----"
    tail -n 25 "$f"
  done
}

fail() {
  echo "FAIL: $*" >&2
  show_logs >&2
  echo "slurm e2e: 0 passed, 1 failed"
  exit 1
}

stop_pid() { # stop_pid NAME PID: TERM, up to 10 s, then KILL
  local name="$1" pid="$2" i
  [[ -n "$pid" ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "[slurm e2e] $name (pid $pid) ignored SIGTERM; killing it"
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  return 0
}

own_processes() { # pids of processes, other than this script, with a file open under $WORK
  local d f pid
  for d in /proc/[0-9]*; do
    pid="${d#/proc/}"
    [[ "$pid" == "$$" || "$pid" == "$BASHPID" ]] && continue
    for f in "$d"/fd/*; do
      if [[ "$(readlink "$f" 2>/dev/null)" == "$WORK/"* ]]; then
        echo "$pid"
        break
      fi
    done
  done
}

cleanup() {
  local rc=$? i pid
  trap - EXIT INT TERM
  if [[ -n "$POLICY_RC_ADDED" ]]; then rm -f /usr/sbin/policy-rc.d; fi
  if [[ -n "$APT_LOG" ]]; then rm -f "$APT_LOG"; fi
  if [[ -n "$CTLD_PID" && ${#JOBS[@]} -gt 0 ]] && kill -0 "$CTLD_PID" 2>/dev/null; then
    scancel "${JOBS[@]}" 2>/dev/null
    for ((i = 0; i < 50; i++)); do
      [[ -z "$(squeue -h -j "$(IFS=,; echo "${JOBS[*]}")" 2>/dev/null)" ]] && break
      sleep 0.2
    done
  fi
  # Let the job steps' slurmstepd processes finish (each holds a socket in the spool
  # folder while it lives) before slurmd goes.
  if [[ -n "$SLURMD_PID" ]]; then
    for ((i = 0; i < 75; i++)); do
      compgen -G "$WORK/spool/${HOST}_[0-9]*.[0-9]*" >/dev/null || break
      sleep 0.2
    done
  fi
  stop_pid slurmd "$SLURMD_PID"
  stop_pid slurmctld "$CTLD_PID"
  stop_pid munged "$MUNGED_PID"
  # Anything else still holding a file of ours is a job step of ours (slurmstepd or a job
  # script) finishing late: give it a few seconds, then end it by its pid.
  if [[ -n "$SLURMD_PID" ]]; then
    for ((i = 0; i < 50; i++)); do
      [[ -z "$(own_processes)" ]] && break
      sleep 0.2
    done
    for pid in $(own_processes); do
      echo "[slurm e2e] ending leftover process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
      kill -KILL "$pid" 2>/dev/null
    done
  fi
  if [[ -n "$WORK" && -d "$WORK" ]]; then
    if [[ "${NQ_SLURM_KEEP:-}" == 1 ]]; then
      echo "[slurm e2e] kept $WORK"
    else
      rm -rf "$WORK"
    fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "FAIL: interrupted" >&2; echo "slurm e2e: 0 passed, 1 failed"; exit 130' INT TERM

# wait_for DESCRIPTION SECONDS COMMAND...: polls COMMAND every half second.
wait_for() {
  local what="$1" limit="$2" deadline
  shift 2
  deadline=$((SECONDS + limit))
  until "$@"; do
    ((SECONDS < deadline)) || fail "timed out after ${limit}s waiting for $what"
    sleep 0.5
  done
}

# ---------------------------------------------------------------- checks and install
(($# == 1)) || { echo "usage: $0 PATH/TO/nqueens-count" >&2; exit 2; }
BIN="$(cd "$(dirname "$1")" 2>/dev/null && pwd)/$(basename "$1")"
[[ -x "$BIN" && -f "$BIN" ]] || fail "no executable program at $1 (build it first: cargo build --release)"
[[ -r "$SBATCH_SCRIPT" ]] || fail "missing $SBATCH_SCRIPT"
(($(id -u) == 0)) || fail "must run as root (it installs packages and runs slurmctld, slurmd and munged)"

NEEDED=(slurmctld slurmd slurmstepd sbatch squeue scontrol scancel munged munge unmunge)
missing_tools() {
  local t out=()
  for t in "${NEEDED[@]}"; do
    command -v "$t" >/dev/null 2>&1 || [[ -x "/usr/sbin/$t" ]] || out+=("$t")
  done
  echo "${out[*]}"
}
export PATH="$PATH:/usr/sbin:/sbin"
MISSING="$(missing_tools)"
if [[ -n "$MISSING" ]]; then
  command -v apt-get >/dev/null 2>&1 ||
    fail "Slurm is not installed (missing: $MISSING) and there is no apt-get to install it"
  say "installing Slurm and munge from the distribution's packages (missing: $MISSING)"
  INSTALL_START=$SECONDS
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    # Keep the packages' maintainer scripts from starting the system's own daemons.
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    POLICY_RC_ADDED=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  APT_LOG="$(mktemp /tmp/nqueens-slurm-e2e-apt.XXXXXX.log)" || fail "mktemp failed"
  # A registry can fail for a moment: three tries, a pause between them.
  INSTALLED=""
  for try in 1 2 3; do
    if apt-get update -q >>"$APT_LOG" 2>&1 &&
      apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 \
        slurmctld slurmd slurm-client munge >>"$APT_LOG" 2>&1; then
      INSTALLED=1
      break
    fi
    say "installing Slurm failed (try $try of 3)"
    sleep $((try * 10))
  done
  [[ -n "$INSTALLED" ]] ||
    { tail -n 20 "$APT_LOG" >&2; fail "apt-get install of Slurm failed (see above)"; }
  if [[ -n "$POLICY_RC_ADDED" ]]; then rm -f /usr/sbin/policy-rc.d; POLICY_RC_ADDED=""; fi
  MISSING="$(missing_tools)"
  [[ -z "$MISSING" ]] || fail "still missing after the install: $MISSING"
  say "installed in $((SECONDS - INSTALL_START))s"
fi
say "using $(slurmctld -V 2>&1 | head -n 1), $(munged --version 2>&1 | head -n 1)"

# ---------------------------------------------------------------- a private cluster
WORK="$(mktemp -d /tmp/nqueens-slurm-e2e.XXXXXX)" || fail "mktemp failed"
chmod 700 "$WORK"
mkdir -p "$WORK"/{munge,etc,state,spool,log,run,out,results}
chmod 700 "$WORK/munge"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$CTLD_PORT" "$SLURMD_PORT"; do
  port_busy "$p" && fail "port $p on 127.0.0.1 is already in use (a Slurm daemon left over from another run?); set NQ_SLURM_CTLD_PORT / NQ_SLURM_D_PORT"
done

HOST="$(hostname -s)"
[[ -n "$HOST" ]] || fail "hostname -s gave nothing"
CPUS="$(nproc)"
MEM_MB=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024))
# What slurmd itself sees, when it can tell (CPUs and RealMemory it will check against).
if NODE_LINE="$(slurmd -C 2>/dev/null | head -n 1)" && [[ "$NODE_LINE" == NodeName=* ]]; then
  c="$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$NODE_LINE")"
  m="$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$NODE_LINE")"
  [[ -n "$c" ]] && CPUS="$c"
  [[ -n "$m" ]] && MEM_MB="$m"
fi
say "node $HOST: $CPUS CPUs, $MEM_MB MB; files in $WORK"

# munge: a key of our own and a daemon on a socket of our own.
KEY="$WORK/munge/munge.key"
if command -v mungekey >/dev/null 2>&1; then
  mungekey --create --keyfile="$KEY" >/dev/null 2>&1 || fail "mungekey could not create a key"
else
  dd if=/dev/urandom of="$KEY" bs=1024 count=1 status=none || fail "could not create a munge key"
fi
chmod 400 "$KEY"
MUNGE_SOCKET="$WORK/munge/munge.socket"
munged --foreground --force --key-file="$KEY" --socket="$MUNGE_SOCKET" \
  --pid-file="$WORK/run/munged.pid" --log-file="$WORK/log/munged.log" \
  --seed-file="$WORK/munge/munged.seed" >>"$WORK/log/munged.log" 2>&1 &
MUNGED_PID=$!
munge_ok() { kill -0 "$MUNGED_PID" 2>/dev/null || fail "munged exited"; munge -S "$MUNGE_SOCKET" -n </dev/null 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1; }
wait_for "munged to answer" 20 munge_ok
say "munged is up (pid $MUNGED_PID)"

export SLURM_CONF="$WORK/etc/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# Single-node test cluster of scripts/slurm/e2e-test.sh: no accounting, no cgroups.
ClusterName=nqe2e
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
KillWait=5
InactiveLimit=0
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=e2e Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" >>"$WORK/log/slurmctld.stderr" 2>&1 &
CTLD_PID=$!
ctld_up() { kill -0 "$CTLD_PID" 2>/dev/null || fail "slurmctld exited"; scontrol ping 2>/dev/null | grep -q 'is UP'; }
wait_for "slurmctld to answer" 60 ctld_up
say "slurmctld is up (pid $CTLD_PID, port $CTLD_PORT)"

slurmd -D -f "$SLURM_CONF" >>"$WORK/log/slurmd.stderr" 2>&1 &
SLURMD_PID=$!
node_state() { scontrol -o show node "$HOST" 2>/dev/null | sed -n 's/.* State=\([^ ]*\).*/\1/p'; }
node_idle() { kill -0 "$SLURMD_PID" 2>/dev/null || fail "slurmd exited"; [[ "$(node_state)" == IDLE ]]; }
wait_for "node $HOST to be idle" 60 node_idle
say "slurmd is up (pid $SLURMD_PID), node $HOST is idle"

# ---------------------------------------------------------------- helpers on jobs
RESULTS="$WORK/results"
submit() { # submit SBATCH-ARGS...: sets JOB to the new job's id
  local out
  out="$(sbatch --parsable "$@" 2>&1)" || fail "sbatch $* failed: $out"
  out="${out%%;*}"
  [[ "$out" =~ ^[0-9]+$ ]] || fail "sbatch gave no job id: $out"
  JOBS+=("$out")
  JOB="$out"
}
job_field() { # job_field JOBID FIELD: one line per task, "TASKID VALUE" (TASKID - for plain jobs)
  scontrol -o show job "$1" 2>/dev/null | awk -v f="$2" '{
    t = "-"; v = "";
    for (i = 1; i <= NF; i++) {
      if ($i ~ /^ArrayTaskId=/) t = substr($i, 13);
      if (index($i, f "=") == 1) v = substr($i, length(f) + 2);
    }
    print t, v }'
}
task_state() { job_field "$1" JobState | awk -v t="$2" '$1 == t {print $2}'; }
job_gone() { [[ -z "$(squeue -h -j "$1" 2>/dev/null)" ]]; }
task_running() { [[ "$(task_state "$1" "$2")" == RUNNING ]]; }
states() { job_field "$1" JobState | sort -n | tr '\n' ' '; }

export_common="ALL,N=$N,M=$M,DIR=$RESULTS,NQUEENS_BIN=$BIN"
ARRAY_ARGS=(--job-name=nq-e2e --cpus-per-task=1 --chdir="$WORK" --output="$WORK/out/%A_%a.out")

# ---------------------------------------------------------------- 1. a run with a killed task
submit "${ARRAY_ARGS[@]}" --array=0-$((M - 1)) \
  --export="$export_common,NQUEENS_TEST_STALL_TASK=$KILLED" "$SBATCH_SCRIPT"
JOB1="$JOB"
say "submitted array job $JOB1 (n = $N, M = $M shards; task $KILLED will stall)"
submit --job-name=nq-e2e-merge --dependency=afterok:"$JOB1" --chdir="$WORK" \
  --output="$WORK/out/merge1.out" --wrap "$BIN merge $RESULTS/shard-*.json --json"
MERGE1="$JOB"
say "submitted merge job $MERGE1 with --dependency=afterok:$JOB1"

wait_for "array task ${JOB1}_$KILLED to run" 120 task_running "$JOB1" "$KILLED"
sleep 1
say "task ${JOB1}_$KILLED is running; killing it: scancel ${JOB1}_$KILLED"
scancel "${JOB1}_$KILLED" || fail "scancel ${JOB1}_$KILLED failed"
wait_for "array job $JOB1 to finish" 120 job_gone "$JOB1"
say "array job $JOB1 finished; task states: $(states "$JOB1")"

for ((i = 0; i < M; i++)); do
  s="$(task_state "$JOB1" "$i")"
  if ((i == KILLED)); then
    [[ "$s" == CANCELLED* ]] || fail "task ${JOB1}_$i: state $s, expected CANCELLED"
    [[ ! -e "$RESULTS/shard-$i.json" ]] || fail "the killed task $i left a result file"
  else
    [[ "$s" == COMPLETED ]] || fail "task ${JOB1}_$i: state $s, expected COMPLETED"
    [[ -s "$RESULTS/shard-$i.json" ]] || fail "task $i completed but wrote no shard-$i.json"
  fi
done
say "tasks 0, 1, 3 completed with result files; task $KILLED cancelled, no shard-$KILLED.json"

merge1_never() { [[ "$(job_field "$MERGE1" Reason | awk '{print $2}')" == DependencyNeverSatisfied ]]; }
wait_for "merge job $MERGE1 to show DependencyNeverSatisfied" 60 merge1_never
[[ "$(job_field "$MERGE1" JobState | awk '{print $2}')" == PENDING ]] || fail "merge job $MERGE1 is not pending"
scancel "$MERGE1"
say "merge job $MERGE1 stays pending (DependencyNeverSatisfied), as afterok should; cancelled it"

MERGE_ERR="$("$BIN" merge "$RESULTS"/shard-*.json --json 2>&1)"
MERGE_RC=$?
say "merge of the incomplete set: exit $MERGE_RC: $MERGE_ERR"
((MERGE_RC == 1)) || fail "merge of 3 of 4 shards exited $MERGE_RC, expected 1"
grep -q "shard $KILLED" <<<"$MERGE_ERR" || fail "merge did not name shard $KILLED: $MERGE_ERR"

# ---------------------------------------------------------------- 2. resubmit the lost index
submit "${ARRAY_ARGS[@]}" --array="$KILLED" --export="$export_common" "$SBATCH_SCRIPT"
JOB2="$JOB"
say "resubmitted index $KILLED only: sbatch --array=$KILLED -> job $JOB2"
submit --job-name=nq-e2e-merge --dependency=afterok:"$JOB2" --chdir="$WORK" \
  --output="$WORK/out/merge2.out" --wrap "$BIN merge $RESULTS/shard-*.json --json"
MERGE2="$JOB"
say "submitted merge job $MERGE2 with --dependency=afterok:$JOB2"
wait_for "job $JOB2 to finish" 120 job_gone "$JOB2"
[[ "$(task_state "$JOB2" "$KILLED")" == COMPLETED ]] ||
  fail "resubmitted task ${JOB2}_$KILLED: state $(task_state "$JOB2" "$KILLED"), expected COMPLETED"
[[ -s "$RESULTS/shard-$KILLED.json" ]] || fail "the resubmitted task wrote no shard-$KILLED.json"
RESUB_LINE="$(grep -h "^shard" "$WORK/out/${JOB2}_$KILLED.out")"
[[ "$RESUB_LINE" == "shard $KILLED/$M of n = $N:"* ]] ||
  fail "the resubmitted task ${JOB2}_$KILLED did not count shard $KILLED/$M: $RESUB_LINE"
say "resubmitted task ${JOB2}_$KILLED completed: $RESUB_LINE"
wait_for "merge job $MERGE2 to finish" 120 job_gone "$MERGE2"
MERGE2_STATE="$(job_field "$MERGE2" JobState | awk '{print $2}')"
[[ "$MERGE2_STATE" == COMPLETED ]] || fail "merge job $MERGE2: state $MERGE2_STATE, expected COMPLETED"

# ---------------------------------------------------------------- 3. the counts
check_counts() { # check_counts WHERE JSON
  local where="$1" json="$2" sol uni
  sol="$(grep -o '"solutions":[0-9]*' <<<"$json" | cut -d: -f2)"
  uni="$(grep -o '"unique":[0-9]*' <<<"$json" | cut -d: -f2)"
  [[ "$sol" == "$WANT_SOLUTIONS" && "$uni" == "$WANT_UNIQUE" ]] ||
    fail "$where: solutions=$sol unique=$uni, expected $WANT_SOLUTIONS and $WANT_UNIQUE ($json)"
  say "$where: $sol solutions, $uni unique: correct"
}
check_counts "merge job $MERGE2" "$(cat "$WORK/out/merge2.out")"
MERGED="$("$BIN" merge "$RESULTS"/shard-*.json --json 2>&1)" || fail "merge of all shards failed: $MERGED"
check_counts "merge here" "$MERGED"
say "$("$BIN" merge "$RESULTS"/shard-*.json)"

# ---------------------------------------------------------------- 4. two arrays with offsets
# The same count as two arrays of 2 tasks, the second with SHARD_OFFSET=2 (as a count of more
# shards than MaxArraySize is submitted), into a folder of its own.
OFFSET_RESULTS="$WORK/results-offset"
export_offset="ALL,N=$N,M=$M,DIR=$OFFSET_RESULTS,NQUEENS_BIN=$BIN"
submit "${ARRAY_ARGS[@]}" --array=0-1 --export="$export_offset,SHARD_OFFSET=0" "$SBATCH_SCRIPT"
JOB3="$JOB"
submit "${ARRAY_ARGS[@]}" --array=0-1 --export="$export_offset,SHARD_OFFSET=2" "$SBATCH_SCRIPT"
JOB4="$JOB"
say "submitted shards 0-1 as array job $JOB3 and shards 2-3 as array job $JOB4 (SHARD_OFFSET=2)"
wait_for "array job $JOB3 to finish" 120 job_gone "$JOB3"
wait_for "array job $JOB4 to finish" 120 job_gone "$JOB4"
for t in 0 1; do
  line="$(grep -h "^shard" "$WORK/out/${JOB4}_$t.out")"
  [[ "$line" == "shard $((t + 2))/$M of n = $N:"* ]] ||
    fail "task ${JOB4}_$t with SHARD_OFFSET=2 did not count shard $((t + 2))/$M: $line"
done
say "tasks ${JOB4}_0 and ${JOB4}_1 counted shards 2 and 3"
MERGED="$("$BIN" merge "$OFFSET_RESULTS"/shard-*.json --json 2>&1)" ||
  fail "merge of the two arrays' shards failed: $MERGED"
check_counts "merge of the two arrays" "$MERGED"

say "done in $((SECONDS - START))s"
echo "slurm e2e: 1 passed, 0 failed"
