// Package verify checks a dataset as a record of whole games: it replays
// every game from its rows, re-derives each row (planes, policy, the move
// columns) and reports the rows that differ from what the file stores.
//
// Each game is one chain. Its rows must be contiguous (no other game's rows
// in between, all in one file: one shard) and count up one ply at a time;
// the chain starts from its first row's FEN, which may be at a later ply
// (a write window), and each later row's position is the previous one with
// the previous row's move played, which must equal the row's FEN. A break
// is a mismatch naming the game and the plies ("game 123: ply 89 follows
// ply 86"); the check goes on from the row's own FEN.
//
// The repetition plane needs the game's earlier positions. A chain that
// starts at ply 0 has all of them, and so has any row whose halfmove clock
// reaches no further back than its chain's first row (positions before the
// last capture or pawn move cannot repeat). For the other rows, those of a
// game written from a later ply or after a break, the positions before the
// chain are unknown: the derived count is then a lower bound, and the
// stored plane passes when it is a valid value (0, 0.5 or 1) at least as
// large. Such rows are counted in Report.PartialHistory.
//
// A draughts dataset (encoder.Dama) is replayed with the rules of package
// dama: each row's moves must be legal, its planes and policy re-derive,
// and the game's end must be what the rules give. The PDN FEN holds no
// quiet-ply counter, so a chain that starts after ply 0 knows its quiet
// plies (and its earlier positions) only from its first capture on:
// before it, the quiet plane and the repetition plane are checked as
// lower bounds (the stored value a valid one at least the derived), and
// the rows count in PartialHistory. After a chain's last row its move is
// played: a game the rules ended (no moves, threefold, forty-move) must
// end there by that rule with the result the rules give (the side to move
// with no move lost); a game adjudicated or capped must not be over by
// the rules there, and a draw or a ply cap is 0.5.
package verify

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/board"
)

// Mismatch is a row whose stored columns differ from the derived ones.
type Mismatch struct {
	File   string // the file holding the row
	Row    int64  // the row's index in its file, from 0
	GameID int64
	Ply    int32
	FEN    string
	// Problems says what differs, one entry per column.
	Problems []string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s: row %d (game %d, ply %d, %s): %s", m.File, m.Row, m.GameID, m.Ply, m.FEN, strings.Join(m.Problems, "; "))
}

// Report is the result of verifying a dataset.
type Report struct {
	Layout     *encoder.Layout // the dataset's game and layout
	Rows       int64           // rows checked
	Mismatches int64           // rows with at least one difference
	Games      int64           // distinct game_ids, each replayed as one chain (see the package doc)
	// PartialHistory counts the rows whose repetition plane could only be
	// checked as a lower bound.
	PartialHistory int64
	First          []Mismatch // the first Options.Keep mismatches
}

// DefaultKeep is the number of mismatches a Report lists by default.
const DefaultKeep = 20

// Options configures Dataset.
type Options struct {
	Keep     int            // mismatches to list (default DefaultKeep)
	Progress func(rows int) // told of the rows checked; may be nil
}

// Dataset verifies every row of the dataset at path (a file, a directory
// or a glob). An error means the dataset could not be read; differences are
// in the Report.
func Dataset(path string, opts Options) (*Report, error) {
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	r, err := datasets.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	v := &verifier{rep: &Report{Layout: r.Layout()}, keep: opts.Keep, seen: map[int64]gameSeen{}, layout: r.Layout()}
	if v.layout == encoder.Dama {
		v.game = &damaReplay{}
	} else {
		v.game = &chessReplay{}
	}
	var b datasets.Batch
	for {
		err := r.ReadBatch(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return v.rep, err
		}
		if b.File != v.file {
			v.endGame()
			v.file, v.inFile = b.File, 0
		}
		for i := 0; i < b.Len; i++ {
			v.row(&b, i)
			v.inFile++
		}
		if opts.Progress != nil {
			opts.Progress(b.Len)
		}
	}
	v.endGame()
	return v.rep, nil
}

// verifier holds the chain being replayed.
type verifier struct {
	rep    *Report
	keep   int
	file   string
	inFile int64
	layout *encoder.Layout
	game   replay // the game's rules: the chain's position

	inGame     bool               // the previous row was of gameID, in this file
	gameID     int64              // the previous row's game
	seen       map[int64]gameSeen // the games whose rows ended before
	following  bool               // the chain can be followed: game holds the position before the current row
	ply        int32              // the previous row's ply
	chainStart int32              // ply of the chain's first row
	last       lastRow            // the previous row, for the check of its game's end

	derived  encoder.Planes
	problems []string
}

// lastRow is what the check of a game's end needs of its last row.
type lastRow struct {
	file        string
	row         int64
	fen         string
	termination datasets.Termination
	result      float32
	hasEnd      bool // the file has the termination and result columns
	mismatch    int  // its index in Report.First, -1 if not listed
	counted     bool
}

// replay is a game's rules for the verifier: the position of the chain
// being replayed, and the columns a row re-derives from it.
type replay interface {
	// start sets up the chain from a row's FEN.
	start(fen string) error
	// advance plays the previous row's move and returns the FEN reached.
	advance() string
	// check compares row i of b with the position (v.problem for each
	// difference), remembers its move for advance, and reports whether
	// the move is legal, so that the chain can go on.
	check(v *verifier, b *datasets.Batch, i int) bool
	// end checks, after a chain's last row, that playing its move ends
	// the game as its termination and result say, with v.problem.
	end(v *verifier, last *lastRow)
}

func (v *verifier) problem(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

// gameSeen is where a game's rows were: the file and the ply of the last
// row of its latest run.
type gameSeen struct {
	file    string
	lastPly int32
}

// endGame records the game of the previous row as ended, and checks its
// end when its chain could be followed to its last row.
func (v *verifier) endGame() {
	if v.inGame {
		v.seen[v.gameID] = gameSeen{file: v.file, lastPly: v.ply}
		if v.following {
			v.problems = v.problems[:0]
			v.game.end(v, &v.last)
			v.finishLast()
			v.problems = v.problems[:0]
		}
	}
	v.inGame, v.following = false, false
}

// finishLast records the problems of a game's end against its last row.
func (v *verifier) finishLast() {
	if len(v.problems) == 0 {
		return
	}
	l := &v.last
	if l.mismatch >= 0 {
		m := &v.rep.First[l.mismatch]
		m.Problems = append(m.Problems, v.problems...)
		return
	}
	if !l.counted {
		v.rep.Mismatches++
		l.counted = true
	}
	if len(v.rep.First) < v.keep {
		l.mismatch = len(v.rep.First)
		v.rep.First = append(v.rep.First, Mismatch{
			File: l.file, Row: l.row, GameID: v.gameID, Ply: v.ply, FEN: l.fen,
			Problems: append([]string(nil), v.problems...),
		})
	}
}

// row checks row i of b.
func (v *verifier) row(b *datasets.Batch, i int) {
	v.rep.Rows++
	v.problems = v.problems[:0]
	game, ply, fen := b.GameID[i], b.Ply[i], b.FEN[i]

	continues := false
	switch {
	case v.inGame && game == v.gameID && ply != v.ply+1:
		v.problem("game %d: ply %d follows ply %d (a game's rows must be contiguous, in ply order)", game, ply, v.ply)
	case v.inGame && game == v.gameID:
		if continues = v.following; continues {
			if got := v.game.advance(); got != fen {
				v.problem("fen differs from the game replayed from its earlier rows, which gives %s", got)
				continues = false
			}
		}
	default:
		v.endGame()
		if s, ok := v.seen[game]; !ok {
			v.rep.Games++
		} else if s.file != v.file {
			v.problem("game %d: rows in %s and in %s (a game's rows must be in one shard)", game, s.file, v.file)
		} else {
			v.problem("game %d: ply %d comes after other games' rows, its rows before ending at ply %d (a game's rows must be contiguous)", game, ply, s.lastPly)
		}
	}
	v.inGame, v.gameID, v.ply = true, game, ply
	v.last = lastRow{file: v.file, row: v.inFile, fen: fen, mismatch: -1}
	if v.last.hasEnd = len(b.Termination) > 0 && len(b.Result) > 0; v.last.hasEnd {
		v.last.termination, v.last.result = b.Termination[i], b.Result[i]
	}
	if !continues {
		if err := v.game.start(fen); err != nil {
			v.problem("fen does not parse: %v", err)
			v.following = false
			v.finish(b, i)
			return
		}
		v.chainStart = ply
	}
	v.following = v.game.check(v, b, i)
	v.finish(b, i)
}

// chessReplay replays chess games.
type chessReplay struct {
	pos  *board.Position
	next board.Move // the previous row's move
}

func (c *chessReplay) start(fen string) error {
	pos, err := board.ParseFEN(fen)
	c.pos = pos
	return err
}

func (c *chessReplay) advance() string {
	c.pos.MakeMove(c.next)
	return c.pos.FEN()
}

// end checks nothing for chess: its datasets predate the check.
func (c *chessReplay) end(*verifier, *lastRow) {}

func (c *chessReplay) check(v *verifier, b *datasets.Batch, i int) bool {
	pos, ply := c.pos, b.Ply[i]
	encoder.EncodeTo(&v.derived, pos)
	stored := b.Planes[i*encoder.InputSize : (i+1)*encoder.InputSize]
	exact := v.chainStart == 0 || int(ply)-pos.HalfmoveClock() >= int(v.chainStart)
	if !exact {
		v.rep.PartialHistory++
	}
	v.comparePlanes(stored, exact, encoder.PlaneRepetition)

	move, err := pos.ParseUCIMove(b.Move[i])
	if err != nil {
		v.problem("move: %v", err)
	}
	best, berr := pos.ParseUCIMove(b.BestMove[i])
	if berr != nil {
		v.problem("best_move: %v", berr)
	} else {
		if p, err := encoder.PolicyIndex(best); err != nil || int32(p) != b.Policy[i] {
			v.problem("policy is %d, best_move %s has index %d", b.Policy[i], b.BestMove[i], p)
		}
		if len(b.BestIsCapture) > 0 && b.BestIsCapture[i] != pos.IsCapture(best) {
			v.problem("best_is_capture is %v, best_move %s gives %v", b.BestIsCapture[i], b.BestMove[i], pos.IsCapture(best))
		}
		if len(b.BestIsPromotion) > 0 && b.BestIsPromotion[i] != best.IsPromotion() {
			v.problem("best_is_promotion is %v, best_move %s gives %v", b.BestIsPromotion[i], b.BestMove[i], best.IsPromotion())
		}
	}
	if len(b.InCheck) > 0 && b.InCheck[i] != pos.InCheck() {
		v.problem("in_check is %v, the position gives %v", b.InCheck[i], pos.InCheck())
	}
	if err != nil {
		return false // the game cannot be followed past an illegal move
	}
	c.next = move
	return true
}

// finish records the row's problems, if any.
func (v *verifier) finish(b *datasets.Batch, i int) {
	if len(v.problems) == 0 {
		return
	}
	v.rep.Mismatches++
	v.last.counted = true
	if len(v.rep.First) < v.keep {
		v.last.mismatch = len(v.rep.First)
		v.rep.First = append(v.rep.First, Mismatch{
			File: b.File, Row: v.inFile, GameID: b.GameID[i], Ply: b.Ply[i], FEN: b.FEN[i],
			Problems: append([]string(nil), v.problems...),
		})
	}
}

// comparePlanes compares stored with v.derived (the layout's values); with
// exact false the planes in bounds (the repetition plane; for draughts
// also the quiet plane) are checked as lower bounds: one valid value
// across the plane, at least the derived one.
func (v *verifier) comparePlanes(stored []float32, exact bool, bounds ...int) {
	l := v.layout
	diffs, first := 0, -1
	for j, x := range stored {
		y := v.derived[j]
		if x == y {
			continue
		}
		if !exact && slices.Contains(bounds, j/encoder.PlaneSize) {
			continue // checked below
		}
		if first < 0 {
			first = j
		}
		diffs++
	}
	if !exact {
		for _, p := range bounds {
			plane := stored[p*encoder.PlaneSize : (p+1)*encoder.PlaneSize]
			x, d := plane[0], v.derived[p*encoder.PlaneSize]
			ok := x >= d
			if p == l.RepetitionPlane {
				ok = ok && (x == 0 || x == 0.5 || x == 1)
			} else {
				ok = ok && x >= 0 && x <= 1 && l.ClockValue(int(x*float32(l.ClockDivisor)+0.5)) == x
			}
			for _, y := range plane {
				ok = ok && y == x
			}
			if !ok {
				name := l.PlaneNames[p]
				if p == l.RepetitionPlane {
					name = "repetition"
				}
				v.problem("planes: %s plane holds %v, below the %v its partial history gives or not a valid value", name, x, d)
			}
		}
	}
	if diffs > 0 {
		p, sq := first/encoder.PlaneSize, first%encoder.PlaneSize
		v.problem("planes: %d values differ, first plane %d (%s) square %s: stored %v, derived %v",
			diffs, p, l.PlaneNames[p], board.Square(sq), stored[first], v.derived[first])
	}
}
