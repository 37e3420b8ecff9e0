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
#   sbatch configs/selfplay-slurm-array.sh      # from the repository root, after `make build`
#   bin/dataset info data/selfplay-100k
#
#SBATCH --job-name=chessforge-selfplay
#SBATCH --array=0-49
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=04:00:00
#SBATCH --signal=B:TERM@120
#SBATCH --output=logs/selfplay-%A_%a.out
set -euo pipefail
mkdir -p logs data
exec bin/selfplay -config configs/selfplay-100k.json \
  -workers "${SLURM_CPUS_PER_TASK:-2}" -quiet -resume
