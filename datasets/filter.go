package datasets

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/dama"
)

// Filter holds the read-time filters: the rules that drop rows when a
// dataset is read, never when it is written, so that a dataset stays a
// record of whole games. The same names and meanings hold in every reader
// of the project: the Reader here (ReaderOptions.Filter), bin/tune,
// bin/dataset export and stats, and the Python loader (min_ply, max_score,
// skip_in_check, skip_captures, disagree_score). Its fields are declared
// once for every command's flags and config files (see package
// chessforge/configs): a settings struct embeds Filter. The zero Filter
// keeps every row.
type Filter struct {
	MinPly        int  `json:"min-ply" usage:"read-time filter: keep rows with ply >= N (0: off)"`
	MaxScore      int  `json:"max-score" usage:"read-time filter: keep rows with |score_cp| <= N (0: off)"`
	SkipInCheck   bool `json:"skip-in-check" usage:"read-time filter: drop rows whose side to move is in check"`
	SkipCaptures  bool `json:"skip-captures" usage:"read-time filter: drop rows whose best move is a capture or a promotion"`
	DisagreeScore int  `json:"disagree-score" usage:"read-time filter: drop rows whose score_cp (White's view) is >= N while White lost, or <= -N while White won (0: off)"`
}

// Active reports whether the filter drops anything.
func (f Filter) Active() bool { return f != Filter{} }

// Validate reports a negative threshold, naming its setting.
func (f Filter) Validate() error {
	for _, s := range []struct {
		name string
		v    int
	}{{"min-ply", f.MinPly}, {"max-score", f.MaxScore}, {"disagree-score", f.DisagreeScore}} {
		if s.v < 0 {
			return fmt.Errorf("datasets: -%s %d: must not be negative (0: off)", s.name, s.v)
		}
	}
	return nil
}

// String lists the filters that are on, by their setting names ("min-ply
// 8, max-score 3000, skip-in-check"), or says "none".
func (f Filter) String() string {
	var parts []string
	if f.MinPly > 0 {
		parts = append(parts, fmt.Sprintf("min-ply %d", f.MinPly))
	}
	if f.MaxScore > 0 {
		parts = append(parts, fmt.Sprintf("max-score %d", f.MaxScore))
	}
	if f.SkipInCheck {
		parts = append(parts, "skip-in-check")
	}
	if f.SkipCaptures {
		parts = append(parts, "skip-captures")
	}
	if f.DisagreeScore > 0 {
		parts = append(parts, fmt.Sprintf("disagree-score %d", f.DisagreeScore))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Needs returns, for each filter that is on, its setting name and the
// columns it reads (for the messages of readers that lack them).
func (f Filter) Needs() []FilterNeed {
	var n []FilterNeed
	if f.MinPly > 0 {
		n = append(n, FilterNeed{"min-ply", []string{ColPly}})
	}
	if f.MaxScore > 0 {
		n = append(n, FilterNeed{"max-score", []string{ColScoreCP}})
	}
	if f.SkipInCheck {
		n = append(n, FilterNeed{"skip-in-check", []string{ColInCheck}})
	}
	if f.SkipCaptures {
		n = append(n, FilterNeed{"skip-captures", []string{ColBestIsCapture, ColBestIsPromotion}})
	}
	if f.DisagreeScore > 0 {
		n = append(n, FilterNeed{"disagree-score", []string{ColScoreCP, ColResult}})
	}
	return n
}

// FilterNeed is a filter that is on and the columns it reads.
type FilterNeed struct {
	Setting string
	Columns []string
}

// derivable reports whether a filter column a file lacks can be derived
// from the fen and best_move columns (files written before the column was).
func derivable(col string) bool {
	return col == ColInCheck || col == ColBestIsCapture || col == ColBestIsPromotion
}

// KeepScore reports whether a row with this ply, score and result passes
// the filters that read no position: min-ply, max-score, disagree-score.
func (f *Filter) KeepScore(ply, score int32, result float32) bool {
	switch {
	case f.MinPly > 0 && ply < int32(f.MinPly):
		return false
	case f.MaxScore > 0 && (score > int32(f.MaxScore) || score < -int32(f.MaxScore)):
		return false
	case f.DisagreeScore > 0 && (score >= int32(f.DisagreeScore) && result == 0 ||
		score <= -int32(f.DisagreeScore) && result == 1):
		return false
	}
	return true
}

// KeepPosition reports whether a row passes skip-in-check and
// skip-captures, given whether its side to move is in check and whether its
// best move captures or promotes.
func (f *Filter) KeepPosition(inCheck, bestIsCapture, bestIsPromotion bool) bool {
	return !(f.SkipInCheck && inCheck) && !(f.SkipCaptures && (bestIsCapture || bestIsPromotion))
}

// Keep reports whether the row passes every filter.
func (f *Filter) Keep(r *Row) bool {
	return f.KeepScore(r.Ply, r.ScoreCP, r.Result) && f.KeepPosition(r.InCheck, r.BestIsCapture, r.BestIsPromotion)
}

// PositionFlags derives a row's in_check, best_is_capture and
// best_is_promotion from its fen and best_move, as SetPosition and
// SetDamaPosition set them, for a row of layout l (nil: chess): what the
// filters use for files written without those columns.
func PositionFlags(l *encoder.Layout, fen, bestMove string) (inCheck, bestIsCapture, bestIsPromotion bool, err error) {
	if l == encoder.Dama {
		pos, err := dama.ParseFEN(fen)
		if err != nil {
			return false, false, false, fmt.Errorf("fen %q: %w", fen, err)
		}
		best, err := pos.ParseMove(bestMove)
		if err != nil {
			return false, false, false, fmt.Errorf("best_move %q: %w", bestMove, err)
		}
		return false, best.IsCapture(), best.Crowns(), nil
	}
	pos, err := board.ParseFEN(fen)
	if err != nil {
		return false, false, false, fmt.Errorf("fen %q: %w", fen, err)
	}
	best, err := pos.ParseUCIMove(bestMove)
	if err != nil {
		return false, false, false, fmt.Errorf("best_move %q in %s: %w", bestMove, fen, err)
	}
	return pos.InCheck(), pos.IsCapture(best), best.IsPromotion(), nil
}

// keepRow reports whether row i of b passes f; the in-check and capture
// columns are derived from fen and best_move when b lacks them.
func (f *Filter) keepRow(b *Batch, i int) (bool, error) {
	if f.MinPly > 0 || f.MaxScore > 0 || f.DisagreeScore > 0 {
		var ply, score int32
		var result float32
		if len(b.Ply) > 0 {
			ply = b.Ply[i]
		}
		if len(b.ScoreCP) > 0 {
			score = b.ScoreCP[i]
		}
		if len(b.Result) > 0 {
			result = b.Result[i]
		}
		if !f.KeepScore(ply, score, result) {
			return false, nil
		}
	}
	if !f.SkipInCheck && !f.SkipCaptures {
		return true, nil
	}
	var inCheck, capture, promo bool
	if (f.SkipInCheck && len(b.InCheck) == 0) || (f.SkipCaptures && (len(b.BestIsCapture) == 0 || len(b.BestIsPromotion) == 0)) {
		var err error
		if inCheck, capture, promo, err = PositionFlags(b.Layout, b.FEN[i], b.BestMove[i]); err != nil {
			return false, err
		}
	}
	if len(b.InCheck) > 0 {
		inCheck = b.InCheck[i]
	}
	if len(b.BestIsCapture) > 0 && len(b.BestIsPromotion) > 0 {
		capture, promo = b.BestIsCapture[i], b.BestIsPromotion[i]
	}
	return f.KeepPosition(inCheck, capture, promo), nil
}

// errFilterColumn is wrapped by the error for a filter column a file lacks
// and that cannot be derived.
var errFilterColumn = errors.New("the filter needs a column the file lacks")

// filterColumns returns the columns to read from a file with the given
// columns for the filter f: its own, and fen and best_move in place of
// in_check and the best-move flags when the file lacks them. A column that
// is missing and cannot be derived is an error naming the file, the
// column and the filter.
func (f *Filter) filterColumns(path string, has func(col string) bool) ([]string, error) {
	var cols []string
	add := func(c string) {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	for _, n := range f.Needs() {
		for _, c := range n.Columns {
			switch {
			case has(c):
				add(c)
			case derivable(c):
				add(ColFEN)
				add(ColBestMove)
			default:
				return nil, fmt.Errorf("datasets: %s: %w: filter %s reads column %q", path, errFilterColumn, n.Setting, c)
			}
		}
	}
	return cols, nil
}

// filter drops the rows of b that f rejects, keeping the others in order,
// and returns how many it dropped.
func (f *Filter) filter(b *Batch) (int, error) {
	n := 0
	for i := 0; i < b.Len; i++ {
		keep, err := f.keepRow(b, i)
		if err != nil {
			return 0, fmt.Errorf("datasets: %s: filter %s: %w", b.File, f, err)
		}
		if keep {
			if n != i {
				b.moveRow(n, i)
			}
			n++
		}
	}
	dropped := b.Len - n
	b.truncate(n)
	return dropped, nil
}

// moveRow copies row src of b over row dst, in every column read.
func (b *Batch) moveRow(dst, src int) {
	moveIn(b.GameID, dst, src)
	moveIn(b.Ply, dst, src)
	moveIn(b.FEN, dst, src)
	moveIn(b.Move, dst, src)
	moveIn(b.BestMove, dst, src)
	moveIn(b.Policy, dst, src)
	moveIn(b.ScoreCP, dst, src)
	moveIn(b.Result, dst, src)
	moveIn(b.InCheck, dst, src)
	moveIn(b.BestIsCapture, dst, src)
	moveIn(b.BestIsPromotion, dst, src)
	moveIn(b.Depth, dst, src)
	moveIn(b.Nodes, dst, src)
	moveIn(b.Termination, dst, src)
	if len(b.Planes) > 0 {
		n := b.rowSize()
		copy(b.Planes[dst*n:(dst+1)*n], b.Planes[src*n:(src+1)*n])
	}
}

// moveIn copies s[src] over s[dst] in a column that was read.
func moveIn[T any](s []T, dst, src int) {
	if len(s) > 0 {
		s[dst] = s[src]
	}
}

// truncate keeps the first n rows of b.
func (b *Batch) truncate(n int) {
	b.Len = n
	b.GameID = cut(b.GameID, n)
	b.Ply = cut(b.Ply, n)
	b.FEN = cut(b.FEN, n)
	b.Move = cut(b.Move, n)
	b.BestMove = cut(b.BestMove, n)
	b.Policy = cut(b.Policy, n)
	b.ScoreCP = cut(b.ScoreCP, n)
	b.Result = cut(b.Result, n)
	b.InCheck = cut(b.InCheck, n)
	b.BestIsCapture = cut(b.BestIsCapture, n)
	b.BestIsPromotion = cut(b.BestIsPromotion, n)
	b.Depth = cut(b.Depth, n)
	b.Nodes = cut(b.Nodes, n)
	b.Termination = cut(b.Termination, n)
	b.Planes = cut(b.Planes, n*b.rowSize())
}

// cut keeps the first n values of a column that was read.
func cut[T any](s []T, n int) []T { return s[:min(len(s), n)] }
