package nnue

import (
	"crypto/sha256"

	"chessforge/engine/board"
)

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

func legalMoves(p *board.Position) []board.Move {
	var l board.MoveList
	p.GenerateLegal(&l)
	return append([]board.Move(nil), l.Slice()...)
}
