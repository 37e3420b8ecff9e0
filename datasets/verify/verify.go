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
package verify

import (
	"errors"
	"fmt"
	"io"
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
	Rows       int64 // rows checked
	Mismatches int64 // rows with at least one difference
	Games      int64 // distinct game_ids, each replayed as one chain (see the package doc)
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
	v := &verifier{rep: &Report{}, keep: opts.Keep, seen: map[int64]gameSeen{}}
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
	return v.rep, nil
}

// verifier holds the chain being replayed.
type verifier struct {
	rep    *Report
	keep   int
	file   string
	inFile int64

	inGame     bool               // the previous row was of game, in this file
	game       int64              // the previous row's game
	seen       map[int64]gameSeen // the games whose rows ended before
	pos        *board.Position    // the chain's position before the current row; nil: cannot be followed
	ply        int32              // the previous row's ply
	next       board.Move         // the previous row's move, to play before the next row
	chainStart int32              // ply of the chain's first row

	derived  encoder.Planes
	problems []string
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

// endGame records the game of the previous row as ended.
func (v *verifier) endGame() {
	if v.inGame {
		v.seen[v.game] = gameSeen{file: v.file, lastPly: v.ply}
	}
	v.inGame, v.pos = false, nil
}

// row checks row i of b.
func (v *verifier) row(b *datasets.Batch, i int) {
	v.rep.Rows++
	v.problems = v.problems[:0]
	game, ply, fen := b.GameID[i], b.Ply[i], b.FEN[i]

	continues := false
	switch {
	case v.inGame && game == v.game && ply != v.ply+1:
		v.problem("game %d: ply %d follows ply %d (a game's rows must be contiguous, in ply order)", game, ply, v.ply)
	case v.inGame && game == v.game:
		if continues = v.pos != nil; continues {
			v.pos.MakeMove(v.next)
			if got := v.pos.FEN(); got != fen {
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
	v.inGame, v.game, v.ply = true, game, ply
	if !continues {
		pos, err := board.ParseFEN(fen)
		if err != nil {
			v.problem("fen does not parse: %v", err)
			v.pos = nil
			v.finish(b, i)
			return
		}
		v.pos, v.chainStart = pos, ply
	}
	pos := v.pos

	encoder.EncodeTo(&v.derived, pos)
	stored := b.Planes[i*encoder.InputSize : (i+1)*encoder.InputSize]
	exact := v.chainStart == 0 || int(ply)-pos.HalfmoveClock() >= int(v.chainStart)
	if !exact {
		v.rep.PartialHistory++
	}
	v.comparePlanes(stored, exact)

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
		v.pos = nil // the game cannot be followed past an illegal move
	} else {
		v.next = move
	}
	v.finish(b, i)
}

// finish records the row's problems, if any.
func (v *verifier) finish(b *datasets.Batch, i int) {
	if len(v.problems) == 0 {
		return
	}
	v.rep.Mismatches++
	if len(v.rep.First) < v.keep {
		v.rep.First = append(v.rep.First, Mismatch{
			File: b.File, Row: v.inFile, GameID: b.GameID[i], Ply: b.Ply[i], FEN: b.FEN[i],
			Problems: append([]string(nil), v.problems...),
		})
	}
}

// planeNames names SPEC §1's planes for the reports.
var planeNames = [encoder.NumPlanes]string{
	"white pawns", "white knights", "white bishops", "white rooks", "white queens", "white king",
	"black pawns", "black knights", "black bishops", "black rooks", "black queens", "black king",
	"repetitions", "side to move", "white castling", "black castling", "en passant", "halfmove clock",
}

// comparePlanes compares stored with v.derived; with exact false the
// repetition plane is checked as a lower bound.
func (v *verifier) comparePlanes(stored []float32, exact bool) {
	diffs, first := 0, -1
	for j, x := range stored {
		y := v.derived[j]
		if x == y {
			continue
		}
		if !exact && j/encoder.PlaneSize == encoder.PlaneRepetition {
			continue // checked below
		}
		if first < 0 {
			first = j
		}
		diffs++
	}
	if !exact {
		rep := stored[encoder.PlaneRepetition*encoder.PlaneSize : (encoder.PlaneRepetition+1)*encoder.PlaneSize]
		x := rep[0]
		ok := (x == 0 || x == 0.5 || x == 1) && x >= v.derived[encoder.PlaneRepetition*encoder.PlaneSize]
		for _, y := range rep {
			ok = ok && y == x
		}
		if !ok {
			v.problem("planes: repetition plane holds %v, below the %v its partial history gives or not a valid value",
				x, v.derived[encoder.PlaneRepetition*encoder.PlaneSize])
		}
	}
	if diffs > 0 {
		p, sq := first/encoder.PlaneSize, first%encoder.PlaneSize
		v.problem("planes: %d values differ, first plane %d (%s) square %s: stored %v, derived %v",
			diffs, p, planeNames[p], board.Square(sq), stored[first], v.derived[first])
	}
}
