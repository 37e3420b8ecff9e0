package jobs

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"chessforge/datasets"
)

// Coverage is what the files of a self-play job hold of it: which shards
// are present and which of each shard's games, read from the metadata each
// file carries (KeyShard, KeyGames and the job record, datasets.KeyConfig).
// Shard K of N plays the job's games K-1, K-1+N, K-1+2N, ... (Shard.Game),
// so a missing shard is a missing stride of the job's games, not a block.
type Coverage struct {
	Games  int // games in the whole job (the job record's "games")
	Shards []ShardCoverage
	Files  int // the job's files
}

// ShardCoverage is one shard of a job: the ranges of its games ([from, to)
// in the shard's own numbering, see Shard.Game) its files hold.
type ShardCoverage struct {
	Shard  Shard
	Games  int      // games the shard plays (Shard.Games)
	Ranges [][2]int // sorted, merged; nil for a missing shard
	Files  int
}

// Done returns how many of the shard's games its files hold.
func (s *ShardCoverage) Done() int {
	n := 0
	for _, r := range s.Ranges {
		n += r[1] - r[0]
	}
	return n
}

// Missing returns the ranges of the shard's games ([from, to), shard
// numbering) that no file holds.
func (s *ShardCoverage) Missing() [][2]int {
	var out [][2]int
	next := 0
	for _, r := range s.Ranges {
		if r[0] > next {
			out = append(out, [2]int{next, r[0]})
		}
		next = max(next, r[1])
	}
	if next < s.Games {
		out = append(out, [2]int{next, s.Games})
	}
	return out
}

// Cover reads the self-play jobs whose files are among files: one
// Coverage per job (files with the same job record), in the order of their
// first files. Files that are not a self-play job's (no KeyShard, or a job
// record without its games and shards, as a merge or a split writes) are
// left out; an error names a file whose shard or game range cannot be read.
func Cover(files []datasets.FileInfo) ([]*Coverage, error) {
	type job struct {
		c      *Coverage
		shards map[int]*ShardCoverage
	}
	var order []string
	jobs := map[string]*job{}
	for _, f := range files {
		sh, ok := f.Metadata[KeyShard]
		rec := f.Metadata[datasets.KeyConfig]
		var head struct {
			Games  int `json:"games"`
			Shards int `json:"shards"`
		}
		if !ok || json.Unmarshal([]byte(rec), &head) != nil || head.Games < 1 || head.Shards < 1 {
			// Not a file of a self-play job: another writer's, or the
			// output of a merge or a split (whose record is the reshard's,
			// though it may keep the shard key of its sources).
			continue
		}
		shard, err := ParseShard(sh)
		if err != nil {
			return nil, fmt.Errorf("%s: metadata %s: %w", f.Path, KeyShard, err)
		}
		from, to, err := ParseGames(f.Metadata[KeyGames])
		if err != nil {
			return nil, fmt.Errorf("%s: metadata %s: %w", f.Path, KeyGames, err)
		}
		j := jobs[rec]
		if j == nil {
			if head.Shards != shard.N {
				return nil, fmt.Errorf("%s: shard %v of a job of %d shards", f.Path, shard, head.Shards)
			}
			j = &job{c: &Coverage{Games: head.Games}, shards: map[int]*ShardCoverage{}}
			for k := 1; k <= shard.N; k++ {
				s := Shard{k, shard.N}
				j.shards[k] = &ShardCoverage{Shard: s, Games: s.Games(head.Games)}
			}
			jobs[rec] = j
			order = append(order, rec)
		}
		s := j.shards[shard.K]
		if s == nil || s.Shard != shard {
			return nil, fmt.Errorf("%s: shard %v of a job of %d shards", f.Path, shard, len(j.shards))
		}
		if to > from {
			s.Ranges = append(s.Ranges, [2]int{from, to})
		}
		s.Files++
		j.c.Files++
	}
	out := make([]*Coverage, 0, len(order))
	for _, rec := range order {
		j := jobs[rec]
		for k := 1; k <= len(j.shards); k++ {
			s := j.shards[k]
			s.Ranges = mergeRanges(s.Ranges)
			j.c.Shards = append(j.c.Shards, *s)
		}
		out = append(out, j.c)
	}
	return out, nil
}

// mergeRanges sorts [from, to) ranges and joins those that touch or overlap.
func mergeRanges(rs [][2]int) [][2]int {
	slices.SortFunc(rs, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// Print writes the coverage as text: the job, how many shards are present,
// each missing shard with the job's games it would play, and each shard
// with its games present and missing (an unsharded job: one line), e.g.
//
//	job:       400 games in 4 shards, 3 of 4 shards present, 300 of 400 games
//	  missing shard 2/4: its 100 games, job games 1, 5, 9, ..., 397
//	  shard 1/4: 100 of 100 games, complete (4 files)
func (c *Coverage) Print(w io.Writer) {
	present, done := 0, 0
	for i := range c.Shards {
		if c.Shards[i].Files > 0 {
			present++
		}
		done += c.Shards[i].Done()
	}
	n := len(c.Shards)
	if n == 1 { // unsharded: one line
		s := &c.Shards[0]
		fmt.Fprintf(w, "job:       %d of %d games", done, c.Games)
		if len(s.Missing()) == 0 {
			fmt.Fprintln(w, ", complete")
			return
		}
		for _, r := range s.Missing() {
			fmt.Fprintf(w, "; missing %s", jobGames(s.Shard, r[0], r[1]))
		}
		fmt.Fprintln(w, "; continue with -resume")
		return
	}
	fmt.Fprintf(w, "job:       %d games in %d %s, %d of %d %s present, %d of %d games\n",
		c.Games, n, plural(n, "shard"), present, n, plural(n, "shard"), done, c.Games)
	for i := range c.Shards {
		s := &c.Shards[i]
		if s.Files == 0 {
			fmt.Fprintf(w, "  missing shard %v: its %d games, %s\n", s.Shard, s.Games, jobGames(s.Shard, 0, s.Games))
			continue
		}
		fmt.Fprintf(w, "  shard %v: %d of %d games", s.Shard, s.Done(), s.Games)
		missing := s.Missing()
		if len(missing) == 0 {
			fmt.Fprintf(w, ", complete (%d %s)\n", s.Files, plural(s.Files, "file"))
			continue
		}
		fmt.Fprintf(w, " (%d %s); missing:", s.Files, plural(s.Files, "file"))
		for _, r := range missing {
			if r[1]-r[0] == 1 {
				fmt.Fprintf(w, " shard game %d (%s);", r[0], jobGames(s.Shard, r[0], r[1]))
			} else {
				fmt.Fprintf(w, " shard games %d-%d (%s);", r[0], r[1]-1, jobGames(s.Shard, r[0], r[1]))
			}
		}
		fmt.Fprintf(w, " continue with -shard %v -resume\n", s.Shard)
	}
}

// jobGames names the job's games of the shard's games [from, to).
func jobGames(s Shard, from, to int) string {
	switch to - from {
	case 1:
		return fmt.Sprintf("job game %d", s.Game(from))
	case 2:
		return fmt.Sprintf("job games %d, %d", s.Game(from), s.Game(from+1))
	case 3:
		return fmt.Sprintf("job games %d, %d, %d", s.Game(from), s.Game(from+1), s.Game(from+2))
	}
	if s.N == 1 {
		return fmt.Sprintf("job games %d-%d", s.Game(from), s.Game(to-1))
	}
	return fmt.Sprintf("job games %d, %d, ..., %d", s.Game(from), s.Game(from+1), s.Game(to-1))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
