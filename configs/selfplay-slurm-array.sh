#!/bin/bash
# A Slurm job array that plays `selfplay -games 100000` (configs/selfplay-100k.json)
# over 50 tasks into one dataset directory on a shared file system.
#
# Each task is shard K/N with K = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1 and
# N = SLURM_ARRAY_TASK_COUNT, which selfplay reads itself (the array must be a
# contiguous range such as 0-49, without a step). Shards play disjoint game numbers
# and write part-sKKKofNNN-*.parquet into the same directory; together they are
# exactly the unsharded job. Resubmitting the same array after a failure or a
# time-out continues each shard with -resume.
#
# Submit it from the repository root (on the shared file system), after `make build`:
#
#   sbatch configs/selfplay-slurm-array.sh
#   squeue --me                                 # the 50 tasks
#   bin/dataset info data/selfplay-100k         # once they are done
#
# Each task's log is chessforge-selfplay-JOBID_TASK.out in the directory sbatch ran
# in: Slurm opens it before the script starts, so it cannot go into a directory
# the script would make.
#
# Memory: a process peaks at about 135 MiB + 48 MiB per worker at -hash 16 and -nodes
# 5000 (measured: the README's cluster section); allow 200 MiB + 50 MiB per worker, 300 MiB for 2; --mem leaves room above that, and
# GOMEMLIMIT at 80% of it makes Go collect garbage harder before reaching it.
#
#SBATCH --job-name=chessforge-selfplay
#SBATCH --array=0-49
#SBATCH --cpus-per-task=2
#SBATCH --mem=512M
#SBATCH --time=04:00:00
#SBATCH --signal=B:TERM@120
#SBATCH --output=%x-%A_%a.out
set -euo pipefail
if [ ! -x bin/selfplay ]; then
  echo "selfplay-slurm-array.sh: no bin/selfplay in $PWD: submit from the repository root after make build" >&2
  exit 1
fi
mkdir -p data
export GOMEMLIMIT="${GOMEMLIMIT:-$(( ${SLURM_MEM_PER_NODE:-512} * 4 / 5 ))MiB}"
# exec: selfplay itself gets the TERM that --signal sends before the time
# limit, and closes its files validly; -resume continues from them.
exec bin/selfplay -config configs/selfplay-100k.json \
  -workers "${SLURM_CPUS_PER_TASK:-2}" -quiet -resume
