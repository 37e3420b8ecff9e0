package nnue

import (
	"crypto/sha256"
	"encoding/binary"

	"chessforge/engine/board"
)

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// rehash sets the hash of data, a version 4 file, to the one its other
// bytes give: a file edited so that only its field checks can refuse it.
func rehash(data []byte) {
	h := sha256.New()
	h.Write(data[:40])
	h.Write(data[72:])
	copy(data[40:72], h.Sum(nil))
}

// version returns the format version of a file of version 2 or later.
func version(data []byte) uint32 { return binary.LittleEndian.Uint32(data[4:]) }

func legalMoves(p *board.Position) []board.Move {
	var l board.MoveList
	p.GenerateLegal(&l)
	return append([]board.Move(nil), l.Slice()...)
}
