package board

import "slices"

// state is the part of a position that a move changes irreversibly; a stack of
// them makes unmake exact and serves repetition detection.
type state struct {
	hash     uint64
	checkers Bitboard
	move     Move // the move that led to this state
	captured Piece
	castle   CastleRights
	ep       Square // FEN en-passant target, set after every double push
	epHashed bool   // whether an en-passant capture is legal (and so hashed)
	cached   uint8  // which parts of info[ply] hold this position's values
	halfmove int
}

// Bits of state.cached. They are clear in a new state (MakeMove and
// MakeNullMove clear them), and unmaking restores the earlier state's bits
// along with the values in info, which the moves made since did not touch.
const (
	cachedPinned    uint8 = 1 << iota // info[ply].pinned
	cachedCheckInfo                   // info[ply].discoverers and checkSquares
)

// posInfo holds facts about one position that several calls need and that
// are computed on first use: the move generators and IsLegal need the pins,
// GivesCheck the check squares. info[ply] belongs to the position after ply
// moves; deeper entries are stale once unmade and are overwritten on use.
type posInfo struct {
	pinned      Bitboard // side to move's pieces pinned against its king
	discoverers Bitboard // side to move's pieces whose moving off a line uncovers check
	// checkSquares[pc]: the squares from which piece pc of the side to move
	// would attack the enemy king (none for the king and the other side's
	// pieces); indexed by piece, so that GivesCheck needs no type look-up.
	checkSquares [16]Bitboard
}

// Position is a chess position with the history of the moves made on it since
// it was set up, so that moves can be unmade and repetitions found.
// The zero value is not usable: build one with NewPosition or ParseFEN.
// Copy one with Clone: a plain struct copy shares the history and the
// per-ply cache with the original, and moves made on either corrupt both.
// A Position is not safe for concurrent use, even by methods that leave the
// position as it is: GivesCheck, IsLegal and the move generators fill the
// cache. Give each goroutine its own Clone.
type Position struct {
	board [64]Piece
	// pieces[t] holds both colours' pieces of type t. The two slots past
	// King stay empty: indexes masked to three bits need no bounds check,
	// and taking "nothing" (NoPieceType) off a square is a harmless
	// no-op, which lets MakeMove handle captures without a branch.
	pieces   [8]Bitboard
	colors   [2]Bitboard
	side     Color
	fullmove int
	st       state
	history  []state   // states before each move made, oldest first
	info     []posInfo // lazily computed facts, indexed by ply (see state.cached)
}

// castleMask[s] is the set of castling rights kept when a piece leaves or reaches s.
var castleMask [64]CastleRights

func init() {
	for s := range castleMask {
		castleMask[s] = AllCastling
	}
	castleMask[E1] &^= WhiteKingside | WhiteQueenside
	castleMask[H1] &^= WhiteKingside
	castleMask[A1] &^= WhiteQueenside
	castleMask[E8] &^= BlackKingside | BlackQueenside
	castleMask[H8] &^= BlackKingside
	castleMask[A8] &^= BlackQueenside
}

// StartFEN is the FEN of the initial position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// NewPosition returns the initial position.
func NewPosition() *Position {
	p, err := ParseFEN(StartFEN)
	if err != nil {
		panic(err) // StartFEN is a constant known to be valid
	}
	return p
}

// Clone returns a deep copy of the position, history included.
func (p *Position) Clone() *Position {
	q := *p
	q.history = make([]state, len(p.history), cap(p.history))
	copy(q.history, p.history)
	q.info = make([]posInfo, len(p.info))
	copy(q.info, p.info)
	return &q
}

// SideToMove returns the colour to move.
func (p *Position) SideToMove() Color { return p.side }

// The accessors below mask their square and colour arguments, which are in
// range for any valid call, so that the hot paths that use them carry no
// bounds checks.

// PieceAt returns the piece on s, or NoPiece.
func (p *Position) PieceAt(s Square) Piece { return p.board[s&63] }

// Pieces returns the squares of colour c's pieces of type t.
func (p *Position) Pieces(c Color, t PieceType) Bitboard { return p.pieces[t] & p.colors[c&1] }

// PiecesOfType returns the squares of both colours' pieces of type t.
func (p *Position) PiecesOfType(t PieceType) Bitboard { return p.pieces[t] }

// Occupancy returns the squares of colour c's pieces.
func (p *Position) Occupancy(c Color) Bitboard { return p.colors[c&1] }

// Occupied returns every occupied square.
func (p *Position) Occupied() Bitboard { return p.colors[White] | p.colors[Black] }

// KingSquare returns the square of colour c's king.
func (p *Position) KingSquare(c Color) Square { return (p.pieces[King] & p.colors[c&1]).LSB() }

// Castling returns the castling rights.
func (p *Position) Castling() CastleRights { return p.st.castle }

// EnPassant returns the FEN en-passant target square, or NoSquare.
func (p *Position) EnPassant() Square { return p.st.ep }

// EnPassantCapturable reports whether an en-passant capture is legal now.
func (p *Position) EnPassantCapturable() bool { return p.st.epHashed }

// HalfmoveClock returns the plies since the last capture or pawn move.
func (p *Position) HalfmoveClock() int { return p.st.halfmove }

// FullmoveNumber returns the FEN fullmove counter.
func (p *Position) FullmoveNumber() int { return p.fullmove }

// Hash returns the Zobrist key of the position. Two positions have the same
// key when they are the same position in the FIDE sense (placement, side to
// move, castling rights and a legal en-passant capture).
func (p *Position) Hash() uint64 { return p.st.hash }

// Checkers returns the pieces giving check to the side to move.
func (p *Position) Checkers() Bitboard { return p.st.checkers }

// InCheck reports whether the side to move is in check.
func (p *Position) InCheck() bool { return p.st.checkers != 0 }

// Ply returns the number of moves made since the position was set up.
func (p *Position) Ply() int { return len(p.history) }

// LastMove returns the last move made, or NullMove.
func (p *Position) LastMove() Move { return p.st.move }

// CapturedPiece returns the piece the last move captured, or NoPiece.
func (p *Position) CapturedPiece() Piece { return p.st.captured }

// Moves returns the moves made since the position was set up, oldest first.
func (p *Position) Moves() []Move {
	ms := make([]Move, len(p.history))
	for i := 1; i < len(p.history); i++ {
		ms[i-1] = p.history[i].move
	}
	if len(p.history) > 0 {
		ms[len(ms)-1] = p.st.move
	}
	return ms
}

// put, remove and move change the board and the hash incrementally. They
// are only called with real pieces (of colour c where it is passed).
func (p *Position) put(pc Piece, c Color, s Square) {
	b := SquareBB(s)
	p.board[s&63] = pc
	p.pieces[pieceTypes[pc&15]&7] |= b
	p.colors[c&1] |= b
	p.st.hash ^= zobristPiece[pc&15][s&63]
}

func (p *Position) remove(c Color, s Square) {
	pc := p.board[s&63]
	b := SquareBB(s)
	p.board[s&63] = NoPiece
	p.pieces[pieceTypes[pc&15]&7] &^= b
	p.colors[c&1] &^= b
	p.st.hash ^= zobristPiece[pc&15][s&63]
}

func (p *Position) move(c Color, from, to Square) {
	pc := p.board[from&63]
	b := SquareBB(from) | SquareBB(to)
	p.board[from&63] = NoPiece
	p.board[to&63] = pc
	p.pieces[pieceTypes[pc&15]&7] ^= b
	p.colors[c&1] ^= b
	p.st.hash ^= zobristPiece[pc&15][from&63] ^ zobristPiece[pc&15][to&63]
}

// AttackersTo returns the pieces of both colours that attack s given occupancy occ.
func (p *Position) AttackersTo(s Square, occ Bitboard) Bitboard {
	s &= 63 // in range for any valid call; no bounds check below
	return pawnAttacks[White][s]&p.Pieces(Black, Pawn) |
		pawnAttacks[Black][s]&p.Pieces(White, Pawn) |
		knightAttacks[s]&p.pieces[Knight] |
		kingAttacks[s]&p.pieces[King] |
		BishopAttacks(s, occ)&(p.pieces[Bishop]|p.pieces[Queen]) |
		RookAttacks(s, occ)&(p.pieces[Rook]|p.pieces[Queen])
}

// IsAttacked reports whether colour by attacks square s.
func (p *Position) IsAttacked(s Square, by Color) bool {
	them := p.colors[by]
	occ := p.Occupied()
	return pawnAttacks[by.Other()][s]&p.pieces[Pawn]&them != 0 ||
		knightAttacks[s]&p.pieces[Knight]&them != 0 ||
		kingAttacks[s]&p.pieces[King]&them != 0 ||
		BishopAttacks(s, occ)&(p.pieces[Bishop]|p.pieces[Queen])&them != 0 ||
		RookAttacks(s, occ)&(p.pieces[Rook]|p.pieces[Queen])&them != 0
}

// legalEnPassant reports whether the side to move has a legal en-passant
// capture onto the en-passant square (which must be set).
func (p *Position) legalEnPassant() bool {
	for b := pawnAttacks[p.side.Other()][p.st.ep] & p.Pieces(p.side, Pawn); b != 0; {
		if p.enPassantSafe(b.PopLSB()) {
			return true
		}
	}
	return false
}

// enPassantSafe reports whether the side to move's pawn on from may capture
// en passant without leaving its king attacked. It plays the capture out on
// the bitboards, which also catches the check uncovered along the rank when
// both pawns leave it.
func (p *Position) enPassantSafe(from Square) bool {
	us, them := p.side, p.side.Other()
	ep := p.st.ep
	capSq := ep - 8
	if us == Black {
		capSq = ep + 8
	}
	ksq := p.KingSquare(us)
	occ := p.Occupied()&^SquareBB(from)&^SquareBB(capSq) | SquareBB(ep)
	enemy := p.colors[them] &^ SquareBB(capSq)
	return BishopAttacks(ksq, occ)&(p.pieces[Bishop]|p.pieces[Queen])&enemy == 0 &&
		RookAttacks(ksq, occ)&(p.pieces[Rook]|p.pieces[Queen])&enemy == 0 &&
		knightAttacks[ksq]&p.pieces[Knight]&enemy == 0 &&
		pawnAttacks[us][ksq]&p.pieces[Pawn]&enemy == 0
}

// setEnPassant sets the FEN en-passant square and hashes it when a capture is legal.
func (p *Position) setEnPassant(ep Square) {
	p.st.ep = ep
	p.st.epHashed = false
	if ep != NoSquare && p.legalEnPassant() {
		p.st.epHashed = true
		p.st.hash ^= zobristEPFile[ep.File()]
	}
}

// MakeMove plays a legal move. Playing an illegal move corrupts the position;
// check untrusted moves with IsLegal or ParseUCIMove first.
//
// Normal moves are played here, the rest in makeSpecial. The rare calls
// (growing the history, the en-passant square) come first or last: values
// live across a call are kept on the stack.
func (p *Position) MakeMove(m Move) {
	if m&kindMask != kindNormal {
		p.makeSpecial(m)
		return
	}
	if len(p.history) == cap(p.history) {
		p.growHistory()
	}
	ply := len(p.history)
	p.history = p.history[:ply+1]
	p.history[ply] = p.st
	st := &p.st
	us := p.side & 1
	them := us ^ 1
	from, to := m.From(), m.To()
	pc := p.board[from]

	st.move = m
	if st.epHashed {
		st.hash ^= zobristEPFile[st.ep&7]
	}
	st.ep = NoSquare
	st.epHashed = false

	captured := p.board[to]
	toBB := SquareBB(to)
	st.captured = captured
	// A pawn move or a capture resets the clock.
	st.halfmove = (st.halfmove + 1) & halfmoveKeep[pc&15]
	if captured != NoPiece {
		p.pieces[pieceTypes[captured&15]&7] &^= toBB
		p.colors[them] &^= toBB
		st.hash ^= zobristPiece[captured&15][to]
		st.halfmove = 0
	}
	fromTo := SquareBB(from) | toBB
	p.board[from] = NoPiece
	p.board[to] = pc
	p.pieces[pieceTypes[pc&15]&7] ^= fromTo
	p.colors[us] ^= fromTo
	st.hash ^= zobristPiece[pc&15][from] ^ zobristPiece[pc&15][to] ^ zobristSide
	if cr := st.castle & castleMask[from] & castleMask[to]; cr != st.castle {
		st.hash ^= zobristCastling[st.castle&15] ^ zobristCastling[cr&15]
		st.castle = cr
	}
	p.fullmove += int(us) // one more after Black's move
	p.side = them

	// A double push (the distance test first, as it is rarely passed: d+16
	// is 0 or 32 exactly when d is -16 or 16) sets the en-passant square
	// once the checkers are known, which setEnPassant needs.
	epSq := NoSquare
	if d := int(to) - int(from); (d+16)&^32 == 0 && pc.Type() == Pawn {
		epSq = (from + to) / 2
	}
	// st.cached, still the earlier position's, is cleared last (nothing
	// before reads it), so that it need not be kept on the stack.
	if st.cached&cachedCheckInfo != 0 {
		// The check info of the position before the move (GivesCheck
		// computed it) tells the checks apart without looking at every
		// attacker: the moved piece, or sliders it uncovered.
		ci := &p.info[len(p.history)-1]
		st.checkers = ci.checkSquares[pc&15] & toBB
		if ci.discoverers.Has(from) {
			st.checkers |= p.sliderAttackersBy(us, p.KingSquare(them))
		}
	} else {
		st.checkers = p.attackersBy(us, p.KingSquare(them))
	}
	st.cached = 0
	if epSq != NoSquare {
		p.setEnPassant(epSq)
	}
}

// growHistory makes room in the history for one more state (amortised,
// as by append).
//
//go:noinline
func (p *Position) growHistory() {
	p.history = slices.Grow(p.history, 1)
}

// makeSpecial is MakeMove for a castling, an en-passant capture or a
// promotion: rare moves, played with the general helpers, the checkers found
// from scratch.
func (p *Position) makeSpecial(m Move) {
	p.history = append(p.history, p.st)
	st := &p.st
	us, them := p.side, p.side.Other()
	from, to := m.From(), m.To()
	st.move = m
	st.captured = NoPiece
	st.cached = 0
	st.halfmove++
	if st.epHashed {
		st.hash ^= zobristEPFile[st.ep&7]
	}
	oldEP := st.ep
	st.ep = NoSquare
	st.epHashed = false

	switch m & kindMask {
	case kindCastling:
		rfrom, rto := CastlingRook(us, to)
		p.move(us, from, to)
		p.move(us, rfrom, rto)
	case kindEnPassant:
		capSq := oldEP - 8
		if us == Black {
			capSq = oldEP + 8
		}
		st.captured = p.board[capSq&63]
		p.remove(them, capSq)
		p.move(us, from, to)
		st.halfmove = 0
	default: // a promotion
		if c := p.board[to]; c != NoPiece {
			st.captured = c
			p.remove(them, to)
		}
		p.remove(us, from)
		p.put(MakePiece(us, m.Promotion()), us, to)
		st.halfmove = 0
	}
	if cr := st.castle & castleMask[from] & castleMask[to]; cr != st.castle {
		st.hash ^= zobristCastling[st.castle&15] ^ zobristCastling[cr&15]
		st.castle = cr
	}
	p.fullmove += int(us)
	p.side = them
	st.hash ^= zobristSide
	st.checkers = p.attackersBy(us, p.KingSquare(them))
}

// sliderAttackersBy returns colour c's bishops, rooks and queens that attack s.
func (p *Position) sliderAttackersBy(c Color, s Square) Bitboard {
	c, s = c&1, s&63 // in range for any valid call; no bounds check below
	occ := p.Occupied()
	return (BishopAttacks(s, occ)&(p.pieces[Bishop]|p.pieces[Queen]) |
		RookAttacks(s, occ)&(p.pieces[Rook]|p.pieces[Queen])) & p.colors[c]
}

// attackersBy returns colour c's pieces that attack s (a king cannot give
// check, so kings are left out). It masks its arguments, in range for any
// valid call, so that it checks no bounds and, calling nothing, needs no
// stack frame.
func (p *Position) attackersBy(c Color, s Square) Bitboard {
	c, s = c&1, s&63
	occ := p.Occupied()
	return (pawnAttacks[c^1][s]&p.pieces[Pawn] |
		knightAttacks[s]&p.pieces[Knight] |
		BishopAttacks(s, occ)&(p.pieces[Bishop]|p.pieces[Queen]) |
		RookAttacks(s, occ)&(p.pieces[Rook]|p.pieces[Queen])) & p.colors[c]
}

// UnmakeMove takes back the last move made, restoring the position and its
// hash exactly. The pieces go back without touching the hash, which comes
// back with the earlier state. It calls nothing, so that it needs no stack
// frame.
func (p *Position) UnmakeMove() {
	m := p.st.move
	captured := p.st.captured
	us := (p.side ^ 1) & 1
	p.side = us
	p.fullmove -= int(us)
	from, to := m.From(), m.To()
	if m&kindMask == kindNormal {
		pc := p.board[to]
		toBB := SquareBB(to)
		fromTo := SquareBB(from) | toBB
		p.board[from] = pc
		p.board[to] = captured
		p.pieces[pieceTypes[pc&15]&7] ^= fromTo
		p.colors[us] ^= fromTo
		if captured != NoPiece {
			p.pieces[pieceTypes[captured&15]&7] |= toBB
			p.colors[us^1] |= toBB
		}
	} else {
		switch m & kindMask {
		case kindCastling:
			rfrom, rto := CastlingRook(us, to)
			p.moveNoHash(us, rto, rfrom)
			p.moveNoHash(us, to, from)
		case kindEnPassant:
			p.moveNoHash(us, to, from)
			capSq := to - 8
			if us == Black {
				capSq = to + 8
			}
			p.board[capSq&63] = captured
			p.pieces[Pawn] |= SquareBB(capSq)
			p.colors[us^1] |= SquareBB(capSq)
		default: // a promotion
			p.board[from] = MakePiece(us, Pawn)
			p.pieces[m.Promotion()&7] &^= SquareBB(to)
			p.pieces[Pawn] |= SquareBB(from)
			p.colors[us] ^= SquareBB(from) | SquareBB(to)
			p.board[to] = captured
			if captured != NoPiece {
				p.pieces[pieceTypes[captured&15]&7] |= SquareBB(to)
				p.colors[us^1] |= SquareBB(to)
			}
		}
	}
	n := len(p.history) - 1
	p.st = p.history[n]
	p.history = p.history[:n]
}

// moveNoHash moves colour c's piece on from to the empty square to, leaving the hash alone.
func (p *Position) moveNoHash(c Color, from, to Square) {
	pc := p.board[from&63]
	b := SquareBB(from) | SquareBB(to)
	p.board[from&63] = NoPiece
	p.board[to&63] = pc
	p.pieces[pieceTypes[pc&15]&7] ^= b
	p.colors[c&1] ^= b
}

// halfmoveKeep[pc] is ANDed into the halfmove clock after a move of piece
// pc: zero for pawns (a pawn move resets the clock), all ones otherwise.
var halfmoveKeep [16]int

func init() {
	for pc := Piece(0); pc < 16; pc++ {
		halfmoveKeep[pc] = -1
		if pc < NoPiece && pc.Type() == Pawn {
			halfmoveKeep[pc] = 0
		}
	}
}

// MakeNullMove passes the move to the opponent (for null-move pruning). It
// must not be called when in check.
func (p *Position) MakeNullMove() {
	p.history = append(p.history, p.st)
	st := &p.st
	if st.epHashed {
		st.hash ^= zobristEPFile[st.ep.File()]
	}
	st.ep = NoSquare
	st.epHashed = false
	st.move = NullMove
	st.captured = NoPiece
	st.cached = 0
	st.halfmove++
	st.checkers = 0
	st.hash ^= zobristSide
	p.side = p.side.Other()
}

// UnmakeNullMove takes back a null move.
func (p *Position) UnmakeNullMove() {
	p.side = p.side.Other()
	n := len(p.history) - 1
	p.st = p.history[n]
	p.history = p.history[:n]
}

// computeHash recomputes the Zobrist key from scratch (for set-up and tests).
func (p *Position) computeHash() uint64 {
	var h uint64
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			h ^= zobristPiece[pc][s]
		}
	}
	h ^= zobristCastling[p.st.castle]
	if p.st.epHashed {
		h ^= zobristEPFile[p.st.ep.File()]
	}
	if p.side == Black {
		h ^= zobristSide
	}
	return h
}

// CastlingRook returns the squares the rook moves from and to when colour
// us castles with its king going to kingTo.
func CastlingRook(us Color, kingTo Square) (from, to Square) {
	from, to = H1, F1
	if kingTo.File() == 2 {
		from, to = A1, D1
	}
	if us == Black {
		from, to = from+56, to+56
	}
	return from, to
}
