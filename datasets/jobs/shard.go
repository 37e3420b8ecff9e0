// Package jobs is a self-play job's part of the dataset format
// (docs/format.md): how a job's games are split into shards (Shard), the
// metadata keys with which each file names its shard and its games
// (KeyShard, KeyGames), and what a dataset's files hold of each job
// (Cover). Self-play writes these keys; readers such as bin/dataset info
// read them here, without linking the engine that played the games.
package jobs

import (
	"fmt"
	"strconv"
	"strings"
)

// Metadata keys a self-play job adds to each file, beside the ones
// datasets.Writer writes (the job record is datasets.KeyConfig).
const (
	// KeyShard is the shard that wrote the file, "K/N".
	KeyShard = "chessforge.selfplay.shard"
	// KeyGames is the range of the shard's games in the file, "from-to":
	// the shard's i-th game for from <= i < to (see Shard.Game), including
	// games that contributed no row.
	KeyGames = "chessforge.selfplay.games"
)

// Shard is one process's share of a job: shard K of N plays the games whose
// number g (0-based) has g mod N = K-1. Game numbers are therefore disjoint
// across shards, and together the shards play every game of the job.
type Shard struct {
	K, N int // 1 <= K <= N
}

// String returns "K/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Games returns how many of a job's games the shard plays.
func (s Shard) Games(total int) int {
	if total < s.K {
		return 0
	}
	return (total-s.K)/s.N + 1
}

// Game returns the job's game number of the shard's i-th game (0-based).
func (s Shard) Game(i int) int { return s.K - 1 + i*s.N }

// ParseShard reads "K/N" with 1 <= K <= N.
func ParseShard(text string) (Shard, error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(text), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want K/N, e.g. 3/8", text)
	}
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: K and N must be whole numbers", text)
	}
	if n < 1 || k < 1 || k > n {
		return Shard{}, fmt.Errorf("shard %q: need 1 <= K <= N", text)
	}
	return Shard{k, n}, nil
}

// ParseGames reads KeyGames's "from-to", with 0 <= from <= to.
func ParseGames(text string) (from, to int, err error) {
	fs, ts, ok := strings.Cut(text, "-")
	from, err1 := strconv.Atoi(fs)
	to, err2 := strconv.Atoi(ts)
	if !ok || err1 != nil || err2 != nil || from < 0 || to < from {
		return 0, 0, fmt.Errorf("%q is not a game range from-to", text)
	}
	return from, to, nil
}
