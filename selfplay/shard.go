package selfplay

import (
	"fmt"
	"strconv"
	"strings"

	"chessforge/datasets/jobs"
)

// Shard is one process's share of a job (jobs.Shard, the dataset format's):
// shard K of N plays the games whose number g (0-based) has g mod N = K-1.
type Shard = jobs.Shard

// Unsharded is the whole job in one process.
var Unsharded = Shard{K: 1, N: 1}

// ShardFromEnv finds the shard from a batch system's environment, read
// through getenv (os.Getenv in the program):
//
//   - Slurm job arrays: SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and
//     SLURM_ARRAY_TASK_COUNT (K = ID − MIN + 1, N = COUNT); the array must
//     be contiguous (--array=0-99 or 1-100, no step).
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX (K = index + 1), with
//     N from SELFPLAY_SHARDS (set it to the Job's completions).
//
// ok is false when neither is present.
func ShardFromEnv(getenv func(string) string) (s Shard, ok bool, err error) {
	num := func(name string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
		if err != nil {
			return 0, fmt.Errorf("%s=%q is not a whole number", name, getenv(name))
		}
		return v, nil
	}
	if getenv("SLURM_ARRAY_TASK_ID") != "" {
		id, err := num("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return Shard{}, true, err
		}
		lo, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return Shard{}, true, err
		}
		n, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, true, err
		}
		s := Shard{K: id - lo + 1, N: n}
		if s.K < 1 || s.K > s.N {
			return Shard{}, true, fmt.Errorf("slurm array task %d (min %d, count %d) gives shard %v: use a contiguous array without a step", id, lo, n, s)
		}
		return s, true, nil
	}
	if getenv("JOB_COMPLETION_INDEX") != "" {
		idx, err := num("JOB_COMPLETION_INDEX")
		if err != nil {
			return Shard{}, true, err
		}
		if getenv("SELFPLAY_SHARDS") == "" {
			return Shard{}, true, fmt.Errorf("JOB_COMPLETION_INDEX=%d is set but SELFPLAY_SHARDS (the Job's completions) is not", idx)
		}
		n, err := num("SELFPLAY_SHARDS")
		if err != nil {
			return Shard{}, true, err
		}
		s := Shard{K: idx + 1, N: n}
		if s.K < 1 || s.K > s.N {
			return Shard{}, true, fmt.Errorf("JOB_COMPLETION_INDEX=%d is outside SELFPLAY_SHARDS=%d", idx, n)
		}
		return s, true, nil
	}
	return Unsharded, false, nil
}

// ResolveShard turns the config's shard setting into a Shard: "K/N"
// explicitly, or "" / "auto" for the environment's (Unsharded without one).
func ResolveShard(setting string, getenv func(string) string) (Shard, error) {
	switch strings.TrimSpace(setting) {
	case "", "auto":
		s, _, err := ShardFromEnv(getenv)
		if err != nil {
			return Shard{}, fmt.Errorf("selfplay: shard from environment: %w", err)
		}
		return s, nil
	}
	s, err := jobs.ParseShard(setting)
	if err != nil {
		return Shard{}, fmt.Errorf("selfplay: -shard: %w", err)
	}
	return s, nil
}
