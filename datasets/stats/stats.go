// Package stats describes a dataset: its files, size and columns (Describe)
// and what its games hold (Compute): results, game lengths, scores and how
// the games ended.
package stats

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"chessforge/datasets"
	"chessforge/datasets/jobs"
	"chessforge/encoder"
)

// Progress is told how many more rows have been handled; nil shows nothing.
type Progress func(rows int)

// Info describes a dataset's files.
type Info struct {
	Files       []datasets.FileInfo
	Rows        int64
	Games       int64 // distinct game ids
	Size        int64 // bytes on disk, all files
	ColumnBytes map[string]int64
	// Jobs is what the files hold of each self-play job that wrote them:
	// its shards and games, present and missing (none for files self-play
	// did not write); JobsErr is why that could not be read.
	Jobs    []*jobs.Coverage
	JobsErr error
}

// BytesPerRow returns the bytes on disk per position.
func (in *Info) BytesPerRow() float64 {
	if in.Rows == 0 {
		return 0
	}
	return float64(in.Size) / float64(in.Rows)
}

// Describe reads the footers of the dataset at path and its game_id
// column, to count the games.
func Describe(path string, progress Progress) (*Info, error) {
	files, err := datasets.Stat(path)
	if err != nil {
		return nil, err
	}
	in := &Info{Files: files, ColumnBytes: map[string]int64{}}
	in.Jobs, in.JobsErr = jobs.Cover(files)
	for _, f := range files {
		in.Rows += f.Rows
		in.Size += f.Size
		for c, n := range f.ColumnBytes {
			in.ColumnBytes[c] += n
		}
	}
	games := map[int64]struct{}{}
	_, err = eachBatch(path, []string{datasets.ColGameID}, datasets.Filter{}, progress, func(b *datasets.Batch) {
		for _, g := range b.GameID[:b.Len] {
			games[g] = struct{}{}
		}
	})
	in.Games = int64(len(games))
	return in, err
}

// Print writes the description as text.
func (in *Info) Print(w io.Writer) {
	fmt.Fprintf(w, "files:     %d\n", len(in.Files))
	for _, f := range in.Files {
		fmt.Fprintf(w, "  %s: %d rows, %d row groups, %s\n", f.Path, f.Rows, f.RowGroups, bytesText(f.Size))
	}
	fmt.Fprintf(w, "rows:      %d\n", in.Rows)
	fmt.Fprintf(w, "games:     %d\n", in.Games)
	for _, j := range in.Jobs {
		j.Print(w)
	}
	if in.JobsErr != nil {
		fmt.Fprintf(w, "job:       the self-play metadata cannot be read: %v\n", in.JobsErr)
	}
	fmt.Fprintf(w, "size:      %s on disk, %.1f bytes per position\n", bytesText(in.Size), in.BytesPerRow())
	if len(in.Files) == 0 {
		return
	}
	first := in.Files[0]
	fmt.Fprintf(w, "schema (%s):\n", first.CreatedBy)
	for _, f := range first.Schema.Fields() {
		per := 0.0
		if in.Rows > 0 {
			per = float64(in.ColumnBytes[f.Name]) / float64(in.Rows)
		}
		fmt.Fprintf(w, "  %-18s %-36s %10s %7.2f B/row\n", f.Name, f.Type, bytesText(in.ColumnBytes[f.Name]), per)
	}
	fmt.Fprintf(w, "metadata (%s):\n", first.Path)
	keys := make([]string, 0, len(first.Metadata))
	for k := range first.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s: %s\n", k, first.Metadata[k])
	}
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// eachBatch reads the columns of the dataset at path batch by batch, the
// rows filter keeps, and returns how many rows the filter dropped.
func eachBatch(path string, cols []string, filter datasets.Filter, progress Progress, fn func(b *datasets.Batch)) (int64, error) {
	r, err := datasets.Open(path, &datasets.ReaderOptions{Columns: cols, BatchRows: 16384, Filter: filter})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var b datasets.Batch
	for {
		err := r.ReadBatch(&b)
		if errors.Is(err, io.EOF) {
			return r.Dropped(), nil
		}
		if err != nil {
			return 0, err
		}
		fn(&b)
		if progress != nil {
			progress(b.Scanned)
		}
	}
}

// MateThreshold separates mate scores (±(32000 − plies)) from centipawns.
const MateThreshold = 30000

// ScoreEdges are the score histogram's bucket bounds in centipawns, from
// White's point of view; mates have buckets of their own.
var ScoreEdges = []int32{-1000, -500, -300, -200, -100, -50, -20, 20, 50, 100, 200, 300, 500, 1000}

// LengthBucket is the width, in plies, of the game length histogram's
// buckets.
const LengthBucket = 20

// Stats describes what a dataset's games hold.
type Stats struct {
	Rows  int64
	Games int64
	// Games and rows by result for White: index 0 White won, 1 drawn,
	// 2 Black won.
	GameResults [3]int64
	RowResults  [3]int64
	// InconsistentGames counts games whose rows disagree on the result.
	InconsistentGames int64
	// Lengths: plies per game, the last row's ply plus one.
	MinLength, MaxLength int
	MeanLength           float64
	MedianLength         int
	LengthCounts         []int64 // by LengthBucket-wide buckets of plies
	// ScoreCounts has len(ScoreEdges)+1 buckets of centipawn scores, the
	// first below ScoreEdges[0]; BlackMates and WhiteMates count mate
	// scores for each side.
	ScoreCounts            []int64
	WhiteMates, BlackMates int64
	// Game is the dataset's game (encoder.GameChess or GameDama): a
	// draughts score is in centi-men, and its "mates" are wins found.
	Game string
	// Terminations counts games by how they ended; nil when the dataset
	// has no termination column.
	Terminations map[datasets.Termination]int64
	// Filter is the read-time filters the counts are of; Dropped is the
	// rows they dropped (not in Rows).
	Filter  datasets.Filter
	Dropped int64
}

type game struct {
	lastPly      int32
	result       float32
	inconsistent bool
	termination  datasets.Termination
}

func resultIndex(r float32) int {
	switch r {
	case 1:
		return 0
	case 0:
		return 2
	}
	return 1
}

// Options configures Compute.
type Options struct {
	// Filter selects the rows counted, as a trainer reading with the same
	// read-time filters sees them (a game's length is then its last kept
	// row's ply plus one).
	Filter   datasets.Filter
	Progress Progress // told of the rows read
}

// Compute reads the dataset at path (without its planes) and counts the
// rows opts.Filter keeps.
func Compute(path string, opts Options) (*Stats, error) {
	files, err := datasets.Stat(path)
	if err != nil {
		return nil, err
	}
	cols := []string{datasets.ColGameID, datasets.ColPly, datasets.ColScoreCP, datasets.ColResult}
	withTerm := true
	for _, f := range files {
		withTerm = withTerm && len(f.Schema.FieldIndices(datasets.ColTermination)) > 0
	}
	if withTerm {
		cols = append(cols, datasets.ColTermination)
	}
	s := &Stats{ScoreCounts: make([]int64, len(ScoreEdges)+1), Filter: opts.Filter, Game: files[0].Layout.Game}
	games := map[int64]*game{}
	s.Dropped, err = eachBatch(path, cols, opts.Filter, opts.Progress, func(b *datasets.Batch) {
		for i := 0; i < b.Len; i++ {
			s.Rows++
			s.RowResults[resultIndex(b.Result[i])]++
			switch sc := b.ScoreCP[i]; {
			case sc >= MateThreshold:
				s.WhiteMates++
			case sc <= -MateThreshold:
				s.BlackMates++
			default:
				k, _ := slices.BinarySearch(ScoreEdges, sc+1)
				s.ScoreCounts[k]++
			}
			g := games[b.GameID[i]]
			if g == nil {
				g = &game{lastPly: b.Ply[i], result: b.Result[i]}
				if withTerm {
					g.termination = b.Termination[i]
				}
				games[b.GameID[i]] = g
			}
			g.lastPly = max(g.lastPly, b.Ply[i])
			if g.result != b.Result[i] || (withTerm && g.termination != b.Termination[i]) {
				g.inconsistent = true
			}
		}
	})
	if err != nil {
		return nil, err
	}
	s.Games = int64(len(games))
	if withTerm {
		s.Terminations = map[datasets.Termination]int64{}
	}
	lengths := make([]int, 0, len(games))
	total := 0
	for _, g := range games {
		s.GameResults[resultIndex(g.result)]++
		if g.inconsistent {
			s.InconsistentGames++
		}
		if withTerm {
			s.Terminations[g.termination]++
		}
		n := int(g.lastPly) + 1
		lengths = append(lengths, n)
		total += n
		k := n / LengthBucket
		for len(s.LengthCounts) <= k {
			s.LengthCounts = append(s.LengthCounts, 0)
		}
		s.LengthCounts[k]++
	}
	if len(lengths) > 0 {
		sort.Ints(lengths)
		s.MinLength, s.MaxLength = lengths[0], lengths[len(lengths)-1]
		s.MedianLength = lengths[len(lengths)/2]
		s.MeanLength = float64(total) / float64(len(lengths))
	}
	return s, nil
}

func share(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// bar draws n of max as up to width '#' characters.
func bar(n, maxN int64, width int) string {
	if maxN == 0 {
		return ""
	}
	return strings.Repeat("#", int(math.Round(float64(width)*float64(n)/float64(maxN))))
}

// Print writes the statistics as text tables.
func (s *Stats) Print(w io.Writer) {
	fmt.Fprintf(w, "rows %d, games %d\n", s.Rows, s.Games)
	if s.Filter.Active() {
		fmt.Fprintf(w, "read-time filters %s: kept %d of %d rows (%.1f%%), dropped %d\n",
			s.Filter, s.Rows, s.Rows+s.Dropped, share(s.Rows, s.Rows+s.Dropped), s.Dropped)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "results (White's point of view)      games          positions\n")
	for i, name := range []string{"White wins (1.0)", "draws (0.5)", "Black wins (0.0)"} {
		fmt.Fprintf(w, "  %-32s %8d %5.1f%% %10d %5.1f%%\n", name,
			s.GameResults[i], share(s.GameResults[i], s.Games), s.RowResults[i], share(s.RowResults[i], s.Rows))
	}
	if s.InconsistentGames > 0 {
		fmt.Fprintf(w, "  warning: %d games have rows that disagree on the result or termination\n", s.InconsistentGames)
	}

	fmt.Fprintf(w, "\ngame length (plies): min %d, median %d, mean %.1f, max %d\n", s.MinLength, s.MedianLength, s.MeanLength, s.MaxLength)
	maxN := slices.Max(append([]int64{0}, s.LengthCounts...))
	for k, n := range s.LengthCounts {
		fmt.Fprintf(w, "  %4d-%-4d %8d %5.1f%% %s\n", k*LengthBucket, (k+1)*LengthBucket-1, n, share(n, s.Games), bar(n, maxN, 40))
	}

	unit, mates := "", "mates"
	if s.Game == encoder.GameDama {
		unit, mates = ", centi-men", "wins found"
	}
	fmt.Fprintf(w, "\nscore_cp (White's point of view%s)\n", unit)
	maxN = slices.Max(append([]int64{s.WhiteMates, s.BlackMates}, s.ScoreCounts...))
	line := func(label string, n int64) {
		fmt.Fprintf(w, "  %-14s %10d %5.1f%% %s\n", label, n, share(n, s.Rows), bar(n, maxN, 40))
	}
	line("Black "+mates, s.BlackMates)
	for k, n := range s.ScoreCounts {
		var label string
		switch {
		case k == 0:
			label = fmt.Sprintf("< %d", ScoreEdges[0])
		case k == len(ScoreEdges):
			label = fmt.Sprintf(">= %d", ScoreEdges[k-1])
		default:
			label = fmt.Sprintf("%d..%d", ScoreEdges[k-1], ScoreEdges[k]-1)
		}
		line(label, n)
	}
	line("White "+mates, s.WhiteMates)

	fmt.Fprintf(w, "\nterminations (games)\n")
	if s.Terminations == nil {
		fmt.Fprintf(w, "  not recorded (no %s column)\n", datasets.ColTermination)
		return
	}
	for _, t := range append(datasets.Terminations(), datasets.TerminationUnknown) {
		if n := s.Terminations[t]; n > 0 {
			fmt.Fprintf(w, "  %-24s %8d %5.1f%%\n", t, n, share(n, s.Games))
		}
	}
}
