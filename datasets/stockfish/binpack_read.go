package stockfish

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"

	"chessforge/engine/board"
)

// BinpackReader reads the entries of a .binpack stream. Every error names
// the stream and the byte offset where the fault lies.
type BinpackReader struct {
	r    *bufio.Reader
	name string

	chunk    []byte
	chunkOff int64 // offset in the stream of chunk[0]
	end      int64 // offset in the stream after the chunk
	pos      int   // next unread byte of chunk

	entry Entry
	plies int // plies of the open chain not yet read
	text  bitReader
	last  int16
}

// NewBinpackReader returns a reader of the binpack stream r; name (the
// file's path) goes into its errors.
func NewBinpackReader(r io.Reader, name string) *BinpackReader {
	return &BinpackReader{r: bufio.NewReaderSize(r, 1<<16), name: name}
}

func (b *BinpackReader) errorf(off int64, format string, args ...any) error {
	return fmt.Errorf("stockfish: %s: offset %d: %s", b.name, off, fmt.Sprintf(format, args...))
}

// Next returns the next entry, or io.EOF after the last. The entry and its
// position are the reader's, valid until the next call.
func (b *BinpackReader) Next() (*Entry, error) {
	if b.plies > 0 {
		if err := b.nextPly(); err != nil {
			return nil, err
		}
		return &b.entry, nil
	}
	if b.pos == len(b.chunk) {
		if err := b.readChunk(); err != nil {
			return nil, err
		}
	}
	if err := b.readStem(); err != nil {
		return nil, err
	}
	return &b.entry, nil
}

// readChunk reads the next chunk's header and body.
func (b *BinpackReader) readChunk() error {
	off := b.end
	var h [chunkHeader]byte
	n, err := io.ReadFull(b.r, h[:])
	switch {
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return b.errorf(off, "truncated chunk header: %d of %d bytes", n, chunkHeader)
	case err != nil:
		return b.errorf(off, "%v", err)
	}
	if string(h[:4]) != chunkMagic {
		return b.errorf(off, "not a binpack chunk: starts with %q, want %q", h[:4], chunkMagic)
	}
	size := binary.LittleEndian.Uint32(h[4:])
	if size > maxChunkSize {
		return b.errorf(off, "chunk size %d is above the limit %d", size, maxChunkSize)
	}
	if size < stemAndCount {
		return b.errorf(off, "chunk size %d is too small for one chain (%d bytes)", size, stemAndCount)
	}
	if cap(b.chunk) < int(size) {
		b.chunk = make([]byte, size)
	}
	b.chunk = b.chunk[:size]
	n, err = io.ReadFull(b.r, b.chunk)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return b.errorf(off, "truncated chunk: header says %d bytes, the file holds %d", size, n)
		}
		return b.errorf(off+chunkHeader, "%v", err)
	}
	b.chunkOff, b.pos = off+chunkHeader, 0
	b.end = b.chunkOff + int64(size)
	return nil
}

// readStem decodes a chain's stem and ply count at b.pos.
func (b *BinpackReader) readStem() error {
	off := b.chunkOff + int64(b.pos)
	if len(b.chunk)-b.pos < stemAndCount {
		return b.errorf(off, "truncated chain: %d bytes left in the chunk, a stem takes %d", len(b.chunk)-b.pos, stemAndCount)
	}
	s := b.chunk[b.pos : b.pos+stemAndCount]
	score := unzigzag(binary.BigEndian.Uint16(s[26:]))
	pr := binary.BigEndian.Uint16(s[28:])
	ply, result := pr&MaxPly, unzigzag(pr>>14)
	if result < -1 || result > 1 {
		return b.errorf(off+28, "result %d is not 1, 0 or -1", result)
	}
	rule50 := binary.BigEndian.Uint16(s[30:])
	if rule50 > 255 {
		return b.errorf(off+30, "halfmove clock %d is above 255", rule50)
	}
	pos, err := unpackPosition(s[:24], int(rule50), int(ply))
	if err != nil {
		return b.errorf(off, "%v", err)
	}
	m, err := unpackMove(pos, binary.BigEndian.Uint16(s[24:]))
	if err != nil {
		return b.errorf(off+24, "%v", err)
	}
	b.entry = Entry{Pos: pos, Move: m, Score: score, Ply: ply, Result: int8(result)}
	b.plies = int(binary.BigEndian.Uint16(s[32:]))
	b.pos += stemAndCount
	b.last = -score
	b.text = bitReader{buf: b.chunk[b.pos:]}
	return nil
}

// nextPly decodes the next ply of the open chain's movetext.
func (b *BinpackReader) nextPly() error {
	e := &b.entry
	if e.Ply >= MaxPly {
		return b.errorf(b.chunkOff+int64(b.pos), "chain runs past ply %d", MaxPly)
	}
	e.Pos.MakeMove(e.Move)
	start := b.chunkOff + int64(b.pos) + int64(b.text.n/8)
	m, err := b.decodeMove(e.Pos)
	if err == nil {
		var u uint16
		u, err = b.text.score()
		e.Score = b.last + unzigzag(u)
	}
	if err != nil {
		return b.errorf(start, "ply %d of the chain: %v", e.Ply+1, err)
	}
	b.last = -e.Score
	e.Move, e.Ply, e.Result = m, e.Ply+1, -e.Result
	b.plies--
	if b.plies == 0 {
		b.pos += (b.text.n + 7) / 8
	}
	return nil
}

// decodeMove reads one move of the movetext for pos.
func (b *BinpackReader) decodeMove(pos *board.Position) (board.Move, error) {
	us := pos.SideToMove()
	ours, theirs := pos.Occupancy(us), pos.Occupancy(us.Other())
	id, err := b.text.read(bitsFor(ours.Count()))
	if err != nil {
		return 0, err
	}
	from := nthSquare(ours, int(id))
	if from == board.NoSquare {
		return 0, fmt.Errorf("piece index %d, the side has %d pieces", id, ours.Count())
	}
	var m board.Move
	switch t := pos.PieceAt(from).Type(); t {
	case board.Pawn:
		dest := pawnDestinations(pos, from, ours, theirs)
		promo := from.Rank() == 6 && us == board.White || from.Rank() == 1 && us == board.Black
		count := dest.Count()
		if promo {
			count *= 4
		}
		idx, err := b.text.read(bitsFor(count))
		if err != nil {
			return 0, err
		}
		if int(idx) >= count {
			return 0, fmt.Errorf("move index %d of %d for the pawn on %v", idx, count, from)
		}
		if promo {
			m = board.NewPromotion(from, nthSquare(dest, int(idx/4)), board.Knight+board.PieceType(idx%4))
		} else {
			m = findMove(pos, from, nthSquare(dest, int(idx)))
		}
	case board.King:
		attacks := board.KingAttacks(from) &^ ours
		rights := pos.Castling() & castlingOf(us)
		count := attacks.Count() + bits.OnesCount8(uint8(rights))
		idx, err := b.text.read(bitsFor(count))
		if err != nil {
			return 0, err
		}
		switch {
		case int(idx) >= count:
			return 0, fmt.Errorf("move index %d of %d for the king on %v", idx, count, from)
		case int(idx) < attacks.Count():
			m = findMove(pos, from, nthSquare(attacks, int(idx)))
		case int(idx) == attacks.Count() && rights&queensideOf(us) != 0:
			m = findMove(pos, from, board.MakeSquare(2, from.Rank()))
		default:
			m = findMove(pos, from, board.MakeSquare(6, from.Rank()))
		}
	default:
		dest := pieceAttacks(t, from, ours|theirs) &^ ours
		idx, err := b.text.read(bitsFor(dest.Count()))
		if err != nil {
			return 0, err
		}
		if int(idx) >= dest.Count() {
			return 0, fmt.Errorf("move index %d of %d for the piece on %v", idx, dest.Count(), from)
		}
		m = findMove(pos, from, nthSquare(dest, int(idx)))
	}
	if !pos.IsLegal(m) {
		return 0, fmt.Errorf("move %v is not legal in %s", m, pos.FEN())
	}
	return m, nil
}

// findMove returns the legal move from one square to another that is not
// an under-promotion (castling as the king's two-square move), or a plain
// move that IsLegal refuses when there is none.
func findMove(pos *board.Position, from, to board.Square) board.Move {
	var list board.MoveList
	pos.GenerateLegal(&list)
	for _, m := range list.Slice() {
		if m.From() == from && m.To() == to && (!m.IsPromotion() || m.Promotion() == board.Queen) {
			return m
		}
	}
	return board.NewMove(from, to)
}

// bitReader reads a movetext's bits, most significant first.
type bitReader struct {
	buf []byte
	n   int // bits read
}

var errMovetextEnd = errors.New("movetext runs past the end of the chunk")

func (r *bitReader) read(count int) (uint, error) {
	if r.n+count > 8*len(r.buf) {
		return 0, errMovetextEnd
	}
	var v uint
	for i := 0; i < count; i++ {
		bit := r.buf[(r.n+i)/8] >> (7 - (r.n+i)%8) & 1
		v = v<<1 | uint(bit)
	}
	r.n += count
	return v, nil
}

// score reads a score written by movetext.addScore.
func (r *bitReader) score() (uint16, error) {
	var v uint
	for shift := 0; ; shift += scoreBlock {
		if shift >= 16 {
			return 0, errors.New("score runs past 16 bits")
		}
		block, err := r.read(scoreBlock + 1)
		if err != nil {
			return 0, err
		}
		v |= (block & (1<<scoreBlock - 1)) << shift
		if block>>scoreBlock == 0 {
			return uint16(v), nil
		}
	}
}

// unpackPosition decodes a 24-byte packed position. Stockfish's binpack
// position has no fullmove number; it is ply/2 + 1, as Stockfish sets it.
func unpackPosition(p []byte, halfmove, ply int) (*board.Position, error) {
	occ := board.Bitboard(binary.BigEndian.Uint64(p))
	if occ.Count() > 32 {
		return nil, fmt.Errorf("packed position has %d pieces, at most 32 fit", occ.Count())
	}
	var grid [64]byte
	stm := "w"
	ep := "-"
	var rights board.CastleRights
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		n := p[8+i/2] >> (4 * (i & 1)) & 15
		switch {
		case n < 12:
			grid[s] = board.MakePiece(board.Color(n&1), board.PieceType(n/2)).Letter()
		case n == nibblePawnEP && s.Rank() == 3:
			grid[s], ep = 'P', board.MakeSquare(s.File(), 2).String()
		case n == nibblePawnEP && s.Rank() == 4:
			grid[s], ep = 'p', board.MakeSquare(s.File(), 5).String()
		case n == nibbleWhiteCastle && (s == board.A1 || s == board.H1):
			grid[s] = 'R'
			if s == board.A1 {
				rights |= board.WhiteQueenside
			} else {
				rights |= board.WhiteKingside
			}
		case n == nibbleBlackCastle && (s == board.A8 || s == board.H8):
			grid[s] = 'r'
			if s == board.A8 {
				rights |= board.BlackQueenside
			} else {
				rights |= board.BlackKingside
			}
		case n == nibbleBlackToMove:
			grid[s], stm = 'k', "b"
		default:
			return nil, fmt.Errorf("packed position: nibble %d on %v", n, s)
		}
	}
	fen := board.Placement(&grid) + " " + stm + " " + rights.String() + " " + ep + " " + strconv.Itoa(halfmove) + " " + strconv.Itoa(ply/2+1)
	pos, err := board.ParseFEN(fen)
	if err != nil {
		return nil, fmt.Errorf("packed position %s: %w", fen, err)
	}
	return pos, nil
}

// unpackMove decodes a stem's 16-bit move and checks that it is legal.
func unpackMove(pos *board.Position, v uint16) (board.Move, error) {
	kind := v >> 14
	from, to := board.Square(v>>8&63), board.Square(v>>2&63)
	var m board.Move
	switch kind {
	case movePromotion:
		m = board.NewPromotion(from, to, board.Knight+board.PieceType(v&3))
	case moveCastle:
		if to.File() == 7 {
			to = board.MakeSquare(6, to.Rank())
		} else {
			to = board.MakeSquare(2, to.Rank())
		}
		m = findMove(pos, from, to)
		if !m.IsCastling() {
			return 0, fmt.Errorf("castling move %04x is not legal in %s", v, pos.FEN())
		}
	default:
		m = findMove(pos, from, to)
		if m.IsCastling() || m.IsPromotion() || (kind == moveEnPassant) != m.IsEnPassant() {
			return 0, fmt.Errorf("move %04x (type %d) is not legal in %s", v, kind, pos.FEN())
		}
	}
	if !pos.IsLegal(m) {
		return 0, fmt.Errorf("move %v is not legal in %s", m, pos.FEN())
	}
	return m, nil
}
