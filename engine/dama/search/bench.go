package search

import (
	"fmt"
	"io"

	"chessforge/engine/dama"
	chess "chessforge/engine/search"
)

// DefaultBenchDepth is the depth of the draughts bench without an argument.
const DefaultBenchDepth = 13

// BenchResult is the outcome of a bench run (the chess bench's type).
type BenchResult = chess.BenchResult

// benchFENs is a fixed set of positions from the start to the endgame:
// positions reached by play from the start (men only, then kings), and
// endgames with kings.
var benchFENs = []string{
	"W:W21-32:B1-12",
	"W:W18,21,23-25,27-32:B1-6,8-12,22",
	"W:W17,20,24,25,28-32:B1-7,9,18",
	"W:W22,24,25,28,29,32:B1,3,4,6-9,16",
	"W:W19,20,23,24,29,31,32:B1,3,5,7-10,16,25",
	"W:W19-21,25,29,32:B1,2,6,12,13,24",
	"W:WK1,19,23-25,32:B2,3,15,18",
	"W:WK2,8,24,27,28:B4,9,11,K19",
	"W:WK14,24:B9,K30",
	"W:WK2,9:BK28",
	"B:W21,22,25,26,29,30:B5,6,9,10,13,14",
	"W:WK18,K23,27:BK9,K10,3",
}

// Bench searches the fixed positions to depth with a fresh 16 MiB Searcher
// and the default evaluation, printing one line per position to w. Its
// node total is a signature of the search and evaluation: it changes only
// when they do.
func Bench(depth int, w io.Writer) (BenchResult, error) {
	s := New(16)
	var r BenchResult
	for i, fen := range benchFENs {
		p, err := dama.ParseFEN(fen)
		if err != nil {
			return r, fmt.Errorf("bench position %d: %w", i+1, err)
		}
		res := s.Search(p, Limits{Depth: depth})
		r.Nodes += res.Nodes
		r.Time += res.Time
		fmt.Fprintf(w, "position %2d/%d  %-12s %9d nodes  %s\n", i+1, len(benchFENs), res.Best, res.Nodes, fen)
	}
	return r, nil
}
