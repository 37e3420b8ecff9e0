package stockfish

import (
	"fmt"
	"strings"

	"chessforge/engine/board"
)

// Entry is one training position as Stockfish's formats hold it.
type Entry struct {
	// Pos is the position. Readers own it: it is valid until their next call.
	Pos *board.Position
	// Move is the entry's move, legal in Pos: the search's best move.
	Move board.Move
	// Score is the search score in centipawns from the side to move.
	Score int16
	// Ply is the entry's ply (binpack holds 14 bits: at most MaxPly).
	Ply uint16
	// Result is the game's result from the side to move: 1, 0 or -1.
	Result int8
}

// MaxPly is the largest ply a binpack entry can hold.
const MaxPly = 1<<14 - 1

// check reports the first field of e that the formats cannot hold.
func (e *Entry) check() error {
	switch {
	case e.Pos == nil:
		return fmt.Errorf("no position")
	case e.Result < -1 || e.Result > 1:
		return fmt.Errorf("result %d is not 1, 0 or -1", e.Result)
	case !e.Pos.IsLegal(e.Move):
		return fmt.Errorf("move %v is not legal in %s", e.Move, e.Pos.FEN())
	}
	return nil
}

// epSquare returns the en-passant square as Stockfish keeps it: the FEN
// square when an en-passant capture is legal, else board.NoSquare.
func epSquare(pos *board.Position) board.Square {
	if pos.EnPassantCapturable() {
		return pos.EnPassant()
	}
	return board.NoSquare
}

// FEN returns the position's FEN as Stockfish writes it: the en-passant
// square only when an en-passant capture is legal.
func FEN(pos *board.Position) string {
	fen := pos.FEN()
	if pos.EnPassant() == board.NoSquare || pos.EnPassantCapturable() {
		return fen
	}
	f := strings.Fields(fen)
	f[3] = "-"
	return strings.Join(f, " ")
}

// snapshot is what two positions must share to continue a chain: the
// placement, the side to move, the castling rights, Stockfish's en-passant
// square and the halfmove clock.
type snapshot struct {
	pieces   [2][6]board.Bitboard
	stm      board.Color
	castling board.CastleRights
	ep       board.Square
	halfmove int
}

func snap(pos *board.Position) snapshot {
	s := snapshot{stm: pos.SideToMove(), castling: pos.Castling(), ep: epSquare(pos), halfmove: pos.HalfmoveClock()}
	for c := board.White; c <= board.Black; c++ {
		for t := board.Pawn; t <= board.King; t++ {
			s.pieces[c][t] = pos.Pieces(c, t)
		}
	}
	return s
}

// snapAfter returns the snapshot of pos after the legal move m, leaving pos
// as it was.
func snapAfter(pos *board.Position, m board.Move) snapshot {
	pos.MakeMove(m)
	s := snap(pos)
	pos.UnmakeMove()
	return s
}
