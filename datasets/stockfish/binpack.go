package stockfish

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"chessforge/engine/board"
)

// Binpack layout constants.
const (
	chunkMagic    = "BINP"
	chunkHeader   = 8       // magic and the little-endian chunk size
	chunkTarget   = 1 << 20 // a chunk is closed at the first chain boundary at or past this size
	maxChunkSize  = 100 << 20
	stemSize      = 32 // packed position 24, move 2, score 2, ply and result 2, halfmove clock 2
	stemAndCount  = stemSize + 2
	scoreBlock    = 4 // bits per group of a movetext score
	maxChainPlies = 1<<16 - 1
)

// Nibbles of a packed position beyond the twelve pieces (piece type × 2 +
// colour).
const (
	nibblePawnEP      = 12 // a pawn that has just made the double push an en-passant capture may take
	nibbleWhiteCastle = 13 // a white rook on a1 or h1 whose castling right remains
	nibbleBlackCastle = 14 // the same for Black on a8 or h8
	nibbleBlackToMove = 15 // the black king, Black to move
)

// Stockfish's move types, the top two bits of a packed move.
const (
	moveNormal = iota
	movePromotion
	moveCastle
	moveEnPassant
)

// zigzag maps a signed 16-bit value to an unsigned one with the sign in the
// lowest bit and the magnitude's bits above it (Stockfish's
// signedToUnsigned): 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
func zigzag(v int16) uint16 {
	u := uint16(v)
	if u&0x8000 != 0 {
		u ^= 0x7FFF
	}
	return u<<1 | u>>15
}

// unzigzag inverts zigzag.
func unzigzag(u uint16) int16 {
	u = u<<15 | u>>1
	if u&0x8000 != 0 {
		u ^= 0x7FFF
	}
	return int16(u)
}

// bitsFor returns the bits needed to store an index below n.
func bitsFor(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// below returns the squares below s in square order.
func below(s board.Square) board.Bitboard { return board.SquareBB(s) - 1 }

// nthSquare returns the square of the n-th (from 0) member of b in square
// order, or board.NoSquare when b has no more than n members.
func nthSquare(b board.Bitboard, n int) board.Square {
	for ; b != 0; n-- {
		s := b.PopLSB()
		if n == 0 {
			return s
		}
	}
	return board.NoSquare
}

// pieceNibble returns the packed-position nibble of the piece on s.
func pieceNibble(pos *board.Position, s board.Square, ep board.Square) byte {
	pc := pos.PieceAt(s)
	c, t := pc.Color(), pc.Type()
	switch {
	case t == board.Pawn && ep != board.NoSquare && s.File() == ep.File() &&
		((pos.SideToMove() == board.Black && s.Rank() == 3) || (pos.SideToMove() == board.White && s.Rank() == 4)):
		return nibblePawnEP
	case t == board.Rook && c == board.White &&
		((s == board.A1 && pos.Castling()&board.WhiteQueenside != 0) || (s == board.H1 && pos.Castling()&board.WhiteKingside != 0)):
		return nibbleWhiteCastle
	case t == board.Rook && c == board.Black &&
		((s == board.A8 && pos.Castling()&board.BlackQueenside != 0) || (s == board.H8 && pos.Castling()&board.BlackKingside != 0)):
		return nibbleBlackCastle
	case t == board.King && c == board.Black && pos.SideToMove() == board.Black:
		return nibbleBlackToMove
	}
	return byte(t)*2 + byte(c)
}

// packPosition writes the 24-byte packed position: the occupied squares as
// a big-endian 64-bit set, then a nibble per occupied square in square
// order, two to a byte, the first in the low half.
func packPosition(dst []byte, pos *board.Position) {
	occ := pos.Occupied()
	binary.BigEndian.PutUint64(dst, uint64(occ))
	clear(dst[8:24])
	ep := epSquare(pos)
	for i := 0; occ != 0; i++ {
		n := pieceNibble(pos, occ.PopLSB(), ep)
		dst[8+i/2] |= n << (4 * (i & 1))
	}
}

// packMove returns Stockfish's 16-bit move: type, from, to (the rook's
// square for castling) and the promotion piece.
func packMove(m board.Move) uint16 {
	from, to := m.From(), m.To()
	kind := uint16(moveNormal)
	var promo uint16
	switch {
	case m.IsCastling():
		kind = moveCastle
		if to.File() == 6 {
			to = board.MakeSquare(7, to.Rank())
		} else {
			to = board.MakeSquare(0, to.Rank())
		}
	case m.IsEnPassant():
		kind = moveEnPassant
	case m.IsPromotion():
		kind = movePromotion
		promo = uint16(m.Promotion() - board.Knight)
	}
	return kind<<14 | uint16(from)<<8 | uint16(to)<<2 | promo
}

// movetext accumulates a chain's plies, bits filled from the top of each
// byte.
type movetext struct {
	buf  []byte
	free int // unused low bits of the last byte
}

func (t *movetext) reset() { t.buf, t.free = t.buf[:0], 0 }

// add appends the n lowest bits of v, most significant first.
func (t *movetext) add(v uint, n int) {
	for n > 0 {
		if t.free == 0 {
			t.buf = append(t.buf, 0)
			t.free = 8
		}
		k := min(n, t.free)
		chunk := (v >> (n - k)) & (1<<k - 1)
		t.buf[len(t.buf)-1] |= byte(chunk << (t.free - k))
		t.free -= k
		n -= k
	}
}

// addScore appends v in groups of scoreBlock bits, lowest first, each
// preceded by a bit that says whether another group follows.
func (t *movetext) addScore(v uint16) {
	const mask = 1<<scoreBlock - 1
	for {
		block := uint(v & mask)
		if v > mask {
			block |= 1 << scoreBlock
		}
		t.add(block, scoreBlock+1)
		v >>= scoreBlock
		if v == 0 {
			return
		}
	}
}

// moveIndex returns the index of the legal move m among the destinations
// Stockfish's movetext counts for the moving piece, and how many there are.
func moveIndex(pos *board.Position, m board.Move) (index, count int) {
	us := pos.SideToMove()
	ours, theirs := pos.Occupancy(us), pos.Occupancy(us.Other())
	occ := ours | theirs
	from, to := m.From(), m.To()
	switch pos.PieceAt(from).Type() {
	case board.Pawn:
		dest := pawnDestinations(pos, from, ours, theirs)
		index, count = (dest & below(to)).Count(), dest.Count()
		if m.IsPromotion() {
			index = index*4 + int(m.Promotion()-board.Knight)
			count *= 4
		}
	case board.King:
		attacks := board.KingAttacks(from) &^ ours
		count = attacks.Count() + bits.OnesCount8(uint8(pos.Castling()&castlingOf(us)))
		if !m.IsCastling() {
			index = (attacks & below(to)).Count()
			break
		}
		index = attacks.Count() - 1
		if pos.Castling()&queensideOf(us) != 0 {
			index++
		}
		if to.File() == 6 {
			index++
		}
	default:
		dest := pieceAttacks(pos.PieceAt(from).Type(), from, occ) &^ ours
		index, count = (dest & below(to)).Count(), dest.Count()
	}
	return index, count
}

// pawnDestinations returns the squares Stockfish's movetext counts for the
// pawn on from: captures (en passant included), the push and the double push
// where the squares are free. On the seventh rank each counts four times,
// once per promotion piece.
func pawnDestinations(pos *board.Position, from board.Square, ours, theirs board.Bitboard) board.Bitboard {
	us := pos.SideToMove()
	targets := theirs
	if ep := epSquare(pos); ep != board.NoSquare {
		targets |= board.SquareBB(ep)
	}
	dest := board.PawnAttacks(us, from) & targets
	occ := ours | theirs
	step, start := board.Square(8), 1
	if us == board.Black {
		step, start = -8, 6
	}
	if push := from + step; !occ.Has(push) {
		dest |= board.SquareBB(push)
		if from.Rank() == start && !occ.Has(push+step) {
			dest |= board.SquareBB(push + step)
		}
	}
	return dest
}

// pieceAttacks returns the squares a knight, bishop, rook or queen on s
// attacks given occupancy occ.
func pieceAttacks(t board.PieceType, s board.Square, occ board.Bitboard) board.Bitboard {
	switch t {
	case board.Knight:
		return board.KnightAttacks(s)
	case board.Bishop:
		return board.BishopAttacks(s, occ)
	case board.Rook:
		return board.RookAttacks(s, occ)
	}
	return board.QueenAttacks(s, occ)
}

func castlingOf(c board.Color) board.CastleRights {
	if c == board.White {
		return board.WhiteKingside | board.WhiteQueenside
	}
	return board.BlackKingside | board.BlackQueenside
}

func queensideOf(c board.Color) board.CastleRights {
	if c == board.White {
		return board.WhiteQueenside
	}
	return board.BlackQueenside
}

// BinpackWriter writes entries as Stockfish's .binpack: chains of entries,
// each continuing the one before, cut into chunks of about 1 MiB.
// Close writes the last chunk.
type BinpackWriter struct {
	w      io.Writer
	target int    // chunk size to close at: chunkTarget, smaller in tests
	chunk  []byte // the open chunk's chains, without the header
	text   movetext
	plies  int   // plies in the open chain's movetext
	last   int16 // the score the next movetext score is stored against
	open   bool  // a chain is open

	// What the next entry must be to continue the open chain.
	next    snapshot
	nextPly uint16
	nextRes int8

	entries, chains int64
	header          [chunkHeader]byte
}

// NewBinpackWriter returns a writer of binpack chunks to w.
func NewBinpackWriter(w io.Writer) *BinpackWriter {
	return &BinpackWriter{w: w, target: chunkTarget, chunk: make([]byte, 0, chunkTarget+64<<10)}
}

// Write adds one entry: to the open chain when it continues it, else as
// the stem of a new chain.
func (b *BinpackWriter) Write(e *Entry) error {
	if err := e.check(); err != nil {
		return err
	}
	if e.Ply > MaxPly {
		return fmt.Errorf("ply %d is above binpack's limit %d", e.Ply, MaxPly)
	}
	if b.open && b.plies < maxChainPlies && e.Ply == b.nextPly && e.Result == b.nextRes && snap(e.Pos) == b.next {
		b.addPly(e)
	} else if err := b.addStem(e); err != nil {
		return err
	}
	b.entries++
	b.next, b.nextPly, b.nextRes = snapAfter(e.Pos, e.Move), e.Ply+1, -e.Result
	return nil
}

func (b *BinpackWriter) addPly(e *Entry) {
	us := e.Pos.SideToMove()
	ours := e.Pos.Occupancy(us)
	from := e.Move.From()
	b.text.add(uint((ours & below(from)).Count()), bitsFor(ours.Count()))
	index, count := moveIndex(e.Pos, e.Move)
	b.text.add(uint(index), bitsFor(count))
	b.text.addScore(zigzag(e.Score - b.last))
	b.last = -e.Score
	b.plies++
}

// closeChain appends the open chain's ply count and movetext to the chunk.
func (b *BinpackWriter) closeChain() {
	if !b.open {
		return
	}
	b.chunk = binary.BigEndian.AppendUint16(b.chunk, uint16(b.plies))
	b.chunk = append(b.chunk, b.text.buf...)
	b.open = false
}

func (b *BinpackWriter) addStem(e *Entry) error {
	b.closeChain()
	if len(b.chunk) >= b.target {
		if err := b.flush(); err != nil {
			return err
		}
	}
	var stem [stemSize]byte
	packPosition(stem[:24], e.Pos)
	binary.BigEndian.PutUint16(stem[24:], packMove(e.Move))
	binary.BigEndian.PutUint16(stem[26:], zigzag(e.Score))
	binary.BigEndian.PutUint16(stem[28:], e.Ply|zigzag(int16(e.Result))<<14)
	binary.BigEndian.PutUint16(stem[30:], uint16(e.Pos.HalfmoveClock()))
	b.chunk = append(b.chunk, stem[:]...)
	b.text.reset()
	b.plies, b.last, b.open = 0, -e.Score, true
	b.chains++
	return nil
}

// flush writes the chunk built so far.
func (b *BinpackWriter) flush() error {
	if len(b.chunk) == 0 {
		return nil
	}
	copy(b.header[:], chunkMagic)
	binary.LittleEndian.PutUint32(b.header[4:], uint32(len(b.chunk)))
	if _, err := b.w.Write(b.header[:]); err != nil {
		return err
	}
	if _, err := b.w.Write(b.chunk); err != nil {
		return err
	}
	b.chunk = b.chunk[:0]
	return nil
}

// Close ends the open chain and writes the last chunk. It does not close
// the underlying writer.
func (b *BinpackWriter) Close() error {
	b.closeChain()
	return b.flush()
}

// Entries returns the entries written so far.
func (b *BinpackWriter) Entries() int64 { return b.entries }

// Chains returns the chains (stems) written so far.
func (b *BinpackWriter) Chains() int64 { return b.chains }
