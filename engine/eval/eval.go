package eval

import (
	"math/bits"

	"chessforge/engine/board"
)

// Constants of the non-linear parts of the evaluation (see the package doc).
const (
	// PhaseMax is the game phase with all pieces on the board: knights and
	// bishops count 1, rooks 2, queens 4; the phase is capped at PhaseMax.
	PhaseMax = 24
	// ScaleNormal is the scale factor of an ordinary position; drawish
	// endings get less (0 for no winning chances). The scale multiplies the
	// tapered score.
	ScaleNormal = 128
	// KingDangerMG and KingDangerEG shape the king-danger curve: danger u
	// (the ks_* weights dotted with their counts) costs max(u,0)²/KingDangerMG
	// in the middlegame and max(u,0)/KingDangerEG in the endgame.
	KingDangerMG = 720
	KingDangerEG = 20
	// MaxEval bounds the evaluation's magnitude; mate scores live far above.
	MaxEval = 9999
)

// evaluator holds the state of one evaluation. It lives on the caller's
// stack. Its methods are the evaluation's one source: each term is added
// through term or ksTerm, which record it when tracer tr is attached.
// Evaluate and Evaluator use untraced instead, a copy of these methods
// without the recording (see untraced).
type evaluator struct {
	p  *board.Position
	tr *Tracer

	s  [2]score // linear sums per colour
	ks [2]score // king-danger units against colour c's king

	occ     board.Bitboard
	pawns   [2]board.Bitboard
	kingSq  [2]board.Square
	count   [2][6]int // c's knights to queens (pawns are not counted)
	pawnAtt [2]board.Bitboard
	att     [2]board.Bitboard    // squares c attacks
	att2    [2]board.Bitboard    // squares c attacks at least twice
	attBy   [2][6]board.Bitboard // squares c attacks with pieces of a type
	zone    [2]board.Bitboard    // the enemy king's zone, which c's pieces attack
	mobArea [2]board.Bitboard    // squares where c's pieces count as mobile
	passed  [2]board.Bitboard
	files   [2]board.Bitboard // the files that hold c's pawns

	zoneAttackers [2]uint32 // c's knights..queens that attack the enemy king zone, a byte each by type
	zoneAttacks   [2]int    // c's attacks on enemy king-zone squares
	bare          [2]bool   // c has its king alone
	threatens     [2]bool   // c's zone attackers put the enemy king in danger: two, or one with a queen of c's
}

// untraced is evaluator for the search: eval_untraced_gen.go holds a copy
// of evaluator's methods (from eval.go and evaluator.go) with every
// statement `if e.tr != nil { ... }` removed, so that the search pays
// nothing for tracing. `go generate` writes it (package internal/untrace),
// and a test checks that the committed copy is current; the traced and
// untraced evaluations are tested to agree to the centipawn. Its //line
// directives map every line back to eval.go or evaluator.go, so that
// panics, profiles and compiler messages name the source, not the copy.
type untraced evaluator

// Evaluate returns the static evaluation of p in centipawns from the side to
// move's point of view. It allocates nothing. Dead draws by material score 0,
// and |score| <= MaxEval.
func Evaluate(p *board.Position) int {
	var e untraced
	v := e.evaluate(p, nil)
	if p.SideToMove() == board.Black {
		return -v
	}
	return v
}

// term returns n occurrences of feature f for colour c as a packed score,
// and records them when tracing. Each scoring function sums its terms in a
// local variable and its caller adds the sum once. A count of 0 adds and
// records nothing, so counts are passed as they come rather than behind a
// test for 0 that the processor could not predict.
func (e *evaluator) term(c board.Color, f, n int) score {
	if e.tr != nil {
		e.tr.lin[c][f] += int32(n)
	}
	return packed[f] * score(n)
}

// ksTerm returns n occurrences of king-danger feature f against c's king,
// and records them when tracing.
func (e *evaluator) ksTerm(c board.Color, f, n int) score {
	if e.tr != nil {
		e.tr.ks[c][f] += int32(n)
	}
	return packed[f] * score(n)
}

// evaluate returns the evaluation from White's point of view. The pawn and
// king-shelter terms come from cache when it is not nil (never when
// tracing: a cached entry has no per-feature counts).
func (e *evaluator) evaluate(p *board.Position, cache *pawnCache) int {
	// Every other field is set before it is read, so that an evaluator
	// can be reused without zeroing it.
	e.p, e.s, e.ks = p, [2]score{}, [2]score{}
	if p.PiecesOfType(board.Pawn)|p.PiecesOfType(board.Rook)|p.PiecesOfType(board.Queen) == 0 && p.IsInsufficientMaterial() {
		if e.tr != nil {
			e.tr.draw = true
		}
		return 0
	}
	var (
		slot *pawnEntry
		hit  bool
	)
	if cache != nil {
		slot, hit = cache.lookup(p)
	}
	e.setup()
	if cache == nil {
		for c := board.White; c <= board.Black; c++ {
			e.s[c] += e.pawnStructure(c) + e.kingShelter(c)
		}
	} else {
		e.probe(cache, slot, hit)
	}
	// Constant colours: the inlined tests index without a variable.
	e.s[board.White] += e.pieces(board.White)
	e.s[board.Black] += e.pieces(board.Black)
	e.s[board.White] += e.passedPawns(board.White) + e.threats(board.White) + e.mateDrive(board.White)
	e.s[board.Black] += e.passedPawns(board.Black) + e.threats(board.Black) + e.mateDrive(board.Black)
	e.kingDanger(board.White)
	e.kingDanger(board.Black)
	stm := p.SideToMove()
	e.s[stm] += e.term(stm, fTempo, 1)

	phase := e.count[0][board.Knight] + e.count[0][board.Bishop] + e.count[1][board.Knight] + e.count[1][board.Bishop] +
		2*(e.count[0][board.Rook]+e.count[1][board.Rook]) + 4*(e.count[0][board.Queen]+e.count[1][board.Queen])
	if phase > PhaseMax {
		phase = PhaseMax
	}
	if e.tr != nil {
		e.tr.phase = phase
		e.tr.scale = [2]int{e.scaleFor(board.White), e.scaleFor(board.Black)}
	}

	// One division at the end keeps the integer result the exact truncation
	// of the rational value the coefficient vector gives (Coefs.Eval).
	d := e.s[0] - e.s[1]
	mg := int64(d.mg())*KingDangerMG - squarePos(e.ks[0].mg()) + squarePos(e.ks[1].mg())
	eg := int64(d.eg())*KingDangerEG - pos(e.ks[0].eg()) + pos(e.ks[1].eg())
	tapered := mg*int64(phase)*KingDangerEG + eg*KingDangerMG*int64(PhaseMax-phase)
	favoured := board.Black // the scale of the side the score favours
	if tapered > 0 {
		favoured = board.White
	}
	sc := e.scaleFor(favoured)
	v := tapered * int64(sc) / (KingDangerMG * KingDangerEG * PhaseMax * ScaleNormal)
	if v > MaxEval {
		v = MaxEval
	} else if v < -MaxEval {
		v = -MaxEval
	}
	return int(v)
}

func pos(u int) int64 {
	if u <= 0 {
		return 0
	}
	return int64(u)
}

func squarePos(u int) int64 {
	if u <= 0 {
		return 0
	}
	return int64(u) * int64(u)
}

// setup fills in the pawn and king attacks and the masks the terms share,
// one call per colour, each with a constant colour.
func (e *evaluator) setup() {
	e.occ = e.p.Occupied()
	e.setupSide(board.White)
	e.setupSide(board.Black)
	e.mobArea[board.White] = e.mobileSquares(board.White)
	e.mobArea[board.Black] = e.mobileSquares(board.Black)
}

// setupSide fills in c's counts, pawns and their files, king square, pawn
// and king attacks and king zone (as the enemy's target, in zone[c^1]).
func (e *evaluator) setupSide(c board.Color) {
	p := e.p
	c &= 1 // in range: no bounds checks on the per-colour arrays
	us, n := p.Occupancy(c), &e.count[c]
	e.bare[c] = !us.More()
	n[board.Knight] = (p.PiecesOfType(board.Knight) & us).Count()
	n[board.Bishop] = (p.PiecesOfType(board.Bishop) & us).Count()
	n[board.Rook] = (p.PiecesOfType(board.Rook) & us).Count()
	n[board.Queen] = (p.PiecesOfType(board.Queen) & us).Count()
	pawns := p.PiecesOfType(board.Pawn) & us
	e.pawns[c] = pawns
	e.files[c] = fileFill(pawns)
	k := p.KingSquare(c)
	e.kingSq[c] = k
	ahead := forward(c, pawns)
	west, east := ahead.West(), ahead.East()
	pawnAtt := west | east
	ka := board.KingAttacks(k)
	e.pawnAtt[c], e.attBy[c][board.Pawn], e.attBy[c][board.King] = pawnAtt, pawnAtt, ka
	e.att[c] = pawnAtt | ka
	e.att2[c] = (west & east) | (pawnAtt & ka)
	z := ka | board.SquareBB(k)
	e.zone[c^1] = z | forward(c, z)
}

// mobileSquares returns the squares where c's pieces count as mobile: not
// those of its king, of its pawns that are blocked or on their first two
// ranks, or attacked by enemy pawns. Both sides must be set up.
func (e *evaluator) mobileSquares(c board.Color) board.Bitboard {
	c &= 1 // in range: no bounds checks on the per-colour arrays
	low := board.Rank2 | board.Rank3
	if c == board.Black {
		low = board.Rank7 | board.Rank6
	}
	stuck := e.pawns[c] & (forward(c^1, e.occ) | low)
	return ^(stuck | board.SquareBB(e.kingSq[c]) | e.pawnAtt[c^1])
}

// pawnStructure scores c's pawns: material, squares, and structure. It
// also sets e.passed[c]. Each structural term is found for all of c's
// pawns at once, with set operations, so that no branch depends on a
// pawn's neighbours; only the per-rank terms visit their pawns.
func (e *evaluator) pawnStructure(c board.Color) score {
	c &= 1 // in range: no bounds checks on the per-colour arrays
	them := c ^ 1
	us, enemy := e.pawns[c], e.pawns[them]
	var sum score
	for bb := us; bb != 0; {
		sum += e.piece(c, board.Pawn, relSquare(c, bb.PopLSB()))
	}
	beside := us.East() | us.West()
	// Isolated: no own pawn on an adjacent file. Backward (when not
	// isolated): no own pawn on an adjacent file level with it or behind,
	// and the square ahead attacked by an enemy pawn.
	files := e.files[c]
	isolated := us &^ (files.East() | files.West())
	supported := fillAhead(c, beside)
	backward := us &^ isolated &^ supported & forward(them, e.pawnAtt[them])
	// Doubled: an own pawn ahead on its file. Passed, in addition: no
	// enemy pawn ahead on its file or an adjacent one.
	doubled := us & fillAhead(them, forward(them, us))
	passed := us &^ doubled &^ fillAhead(them, forward(them, enemy|enemy.East()|enemy.West()))
	sum += e.term(c, fPawnIsolated, isolated.Count()) + e.term(c, fPawnBackward, backward.Count()) +
		e.term(c, fPawnDoubled, doubled.Count())
	// Connected: defended by an own pawn or standing beside one.
	for bb := us & (e.pawnAtt[c] | beside); bb != 0; {
		sum += e.term(c, fPawnConnected+relRank(c, bb.PopLSB()), 1)
	}
	for bb := passed; bb != 0; {
		sum += e.term(c, fPassedRank+relRank(c, bb.PopLSB()), 1)
	}
	e.passed[c] = passed
	return sum
}

// pieces scores c's knights, bishops, rooks and queens: material, squares,
// mobility, and each type's own terms; it also gathers their attacks and
// their attacks on the enemy king zone. One loop per type does a piece's
// own work (square, mobility, attacks), so every table offset and attack
// array is a constant; the terms that depend only on where the pieces
// stand against the pawns (outposts, bishops' pawns, rooks' files and the
// seventh rank) are counted for all of a type's pieces at once, with set
// operations, so that the loops carry few values and test nothing.
func (e *evaluator) pieces(c board.Color) score {
	p := e.p
	c &= 1 // in range: no bounds checks on the per-colour arrays
	them := c ^ 1
	n := &e.count[c]
	var sum score
	if n[board.Bishop] >= 2 {
		sum += e.term(c, fBishopPair, 1)
	}
	us := p.Occupancy(c)
	knights, bishops := p.PiecesOfType(board.Knight)&us, p.PiecesOfType(board.Bishop)&us
	rooks, queens := p.PiecesOfType(board.Rook)&us, p.PiecesOfType(board.Queen)&us
	own, enemy := e.pawns[c], e.pawns[them]

	// Outposts: relative ranks 4 to 6, defended by a pawn, and no enemy
	// pawn ahead on an adjacent file (no square an enemy pawn attacks,
	// now or after pushes). Each bishop counts the own pawns on its
	// squares' colour. The sets are found only for the types present.
	if minors := knights | bishops; minors != 0 {
		outposts := outpostRanks[c] & e.pawnAtt[c] &^ fillAhead(them, e.pawnAtt[them])
		sum += e.term(c, fKnightOutpost, (knights&outposts).Count()) + e.term(c, fBishopOutpost, (bishops&outposts).Count())
		if bishops != 0 {
			sum += e.term(c, fBishopPawns, (bishops&board.LightSquares).Count()*(own&board.LightSquares).Count()+
				(bishops&board.DarkSquares).Count()*(own&board.DarkSquares).Count())
		}
	}
	// Rooks on files without pawns, or without own pawns; on the seventh
	// rank when the enemy king stands on the eighth or enemy pawns on the
	// seventh.
	if rooks != 0 {
		ownFiles, enemyFiles := e.files[c], e.files[them]
		sum += e.term(c, fRookOpen, (rooks&^(ownFiles|enemyFiles)).Count()) + e.term(c, fRookSemiOpen, (rooks&enemyFiles&^ownFiles).Count())
		seventh := seventhRank[c]
		if on7 := rooks & seventh; on7 != 0 && (relRank(c, e.kingSq[them]) == 7 || enemy&seventh != 0) {
			sum += e.term(c, fRookSeventh, on7.Count())
		}
	}

	// Each loop adds a piece's attacks a to its type's set by (and to by2
	// where by already had them), and its king-zone attacks z to zh, from
	// one entry of zoneCount: their number to the low 16 bits, and one
	// zone attacker, if it has any, to its type's byte above them. After
	// each loop, the type's attacks join att (and att2 where att or by2
	// already had them). The loops read the mobility area and the zone
	// from e rather than keep them in registers, which they need for the
	// values they carry.
	flip := relSquare(c, 0)
	zh := 0
	var by, by2 board.Bitboard
	for bb := knights; bb != 0; {
		s := bb.PopLSB()
		a := board.KnightAttacks(s)
		sum += e.piece(c, board.Knight, s^flip) + e.term(c, fMobKnight+(a&e.mobArea[c]).Count(), 1)
		by2, by = by2|by&a, by|a
		z := a & e.zone[c]
		zh += zoneCount[0][z.Count()]
	}
	e.attBy[c][board.Knight] = by
	if by != 0 {
		e.att2[c] |= by2 | e.att[c]&by
		e.att[c] |= by
	}
	by, by2 = 0, 0
	for bb := bishops; bb != 0; {
		s := bb.PopLSB()
		a := board.BishopAttacks(s, e.occ)
		sum += e.piece(c, board.Bishop, s^flip) + e.term(c, fMobBishop+(a&e.mobArea[c]).Count(), 1)
		by2, by = by2|by&a, by|a
		z := a & e.zone[c]
		zh += zoneCount[1][z.Count()]
	}
	e.attBy[c][board.Bishop] = by
	if by != 0 {
		e.att2[c] |= by2 | e.att[c]&by
		e.att[c] |= by
	}
	by, by2 = 0, 0
	for bb := rooks; bb != 0; {
		s := bb.PopLSB()
		a := board.RookAttacks(s, e.occ)
		sum += e.piece(c, board.Rook, s^flip) + e.term(c, fMobRook+(a&e.mobArea[c]).Count(), 1)
		by2, by = by2|by&a, by|a
		z := a & e.zone[c]
		zh += zoneCount[2][z.Count()]
	}
	e.attBy[c][board.Rook] = by
	if by != 0 {
		e.att2[c] |= by2 | e.att[c]&by
		e.att[c] |= by
	}
	by, by2 = 0, 0
	for bb := queens; bb != 0; {
		s := bb.PopLSB()
		a := board.QueenAttacks(s, e.occ)
		sum += e.piece(c, board.Queen, s^flip) + e.term(c, fMobQueen+(a&e.mobArea[c]).Count(), 1)
		by2, by = by2|by&a, by|a
		z := a & e.zone[c]
		zh += zoneCount[3][z.Count()]
	}
	e.attBy[c][board.Queen] = by
	if by != 0 {
		e.att2[c] |= by2 | e.att[c]&by
		e.att[c] |= by
	}
	// h holds the zone attackers by type, a byte each; the product adds
	// the four bytes up in its top byte.
	h := uint32(zh >> 16)
	e.zoneAttackers[c] = h
	attackers := int(h * 0x01010101 >> 24)
	e.threatens[c] = attackers+min(n[board.Queen], 1) > 1 // two, or one and a queen; no branch
	e.zoneAttacks[c] = zh & 0xffff
	return sum
}

// piece returns the material and square terms of c's piece of type t (a
// pawn to a queen) on relative square r (see relSquare), one lookup in
// pieceSquare, and records both when tracing.
func (e *evaluator) piece(c board.Color, t board.PieceType, r board.Square) score {
	if e.tr != nil {
		e.tr.lin[c][fMaterial+int(t)]++
		e.tr.lin[c][psqtIndex(t, r)]++
	}
	return pieceSquare[t][r&63]
}

// kingShelter scores c's king square and the pawns on the three files
// around it (clamped to b..g): own shelter, enemy storm, open files. It
// works on the board seen from c's side (Black's flipped top to bottom), so
// that one piece of code serves both colours, and no branch in it depends
// on the pawns.
func (e *evaluator) kingShelter(c board.Color) score {
	c &= 1 // in range: no bounds checks on the per-colour arrays
	ours, theirs := e.pawns[c], e.pawns[c^1]
	if c == board.Black {
		ours, theirs = flip(ours), flip(theirs)
	}
	k := relSquare(c, e.kingSq[c])
	sf := &shelterFiles[k.File()&7]
	front := forwardRanks[board.White][k.Rank()&7]
	own, storm := ours&front, theirs&front
	// A bit per file with a pawn (flipping the board keeps the files),
	// and of those the three files' bits.
	files := (e.files[board.White] | e.files[board.Black]) & board.Rank1
	open := 7 &^ (files >> uint(sf.first))
	// The three files one by one, without a loop, and their rows from a
	// table: the loop's and the clamps' branches were hard to predict.
	lf := board.FileMask(sf.first)
	mf, rf := lf<<1, lf<<2
	lc, mc, rc := sf.rows[0], sf.rows[1], sf.rows[2]
	return e.term(c, psqtIndex(board.King, k), 1) + e.term(c, fKingOpenFile, open.Count()) +
		e.term(c, fKingShelter+lc+nearestRank(board.White, own&lf), 1) +
		e.term(c, fKingStorm+lc+nearestRank(board.White, storm&lf), 1) +
		e.term(c, fKingShelter+mc+nearestRank(board.White, own&mf), 1) +
		e.term(c, fKingStorm+mc+nearestRank(board.White, storm&mf), 1) +
		e.term(c, fKingShelter+rc+nearestRank(board.White, own&rf), 1) +
		e.term(c, fKingStorm+rc+nearestRank(board.White, storm&rf), 1)
}

// flip returns b seen from the other side: the ranks in reverse order.
func flip(b board.Bitboard) board.Bitboard {
	return board.Bitboard(bits.ReverseBytes64(uint64(b)))
}

// nearestRank returns the relative rank, from c's side, of the square of
// b nearest to c's first rank, or 0 when b is empty (no pawn stands on its
// side's first rank, so 0 is free). An empty set has 64 trailing or
// leading zeros, which is rank 8, which the mask turns into 0.
func nearestRank(c board.Color, b board.Bitboard) int {
	if c == board.White {
		return bits.TrailingZeros64(uint64(b)) >> 3 & 7
	}
	return bits.LeadingZeros64(uint64(b)) >> 3 & 7 // 7 − the rank of the highest square
}

// passedPawns scores c's passed pawns by their path and the kings'
// distances. It inlines, so that a side without passed pawns costs no call.
func (e *evaluator) passedPawns(c board.Color) score {
	if e.passed[c&1] == 0 {
		return 0
	}
	return e.passedPawnTerms(c)
}

// passedPawnTerms is passedPawns for a side with passed pawns.
func (e *evaluator) passedPawnTerms(c board.Color) score {
	c &= 1 // in range: no bounds checks on the per-colour arrays
	them := c ^ 1
	var sum score
	bb := e.passed[c]
	loneKing := e.count[them][board.Knight]+e.count[them][board.Bishop]+e.count[them][board.Rook]+e.count[them][board.Queen] == 0
	for bb != 0 {
		s := bb.PopLSB()
		r := relRank(c, s)
		stop := s + 8
		if c == board.Black {
			stop = s - 8
		}
		sum += e.term(c, fPassedKingOwn+r, distance(e.kingSq[c], stop))
		sum += e.term(c, fPassedKingEnemy+r, distance(e.kingSq[them], stop))
		path := forwardFile[c][s]
		if path&e.occ == 0 && path&e.att[them] == 0 {
			sum += e.term(c, fPassedFree+r, 1)
		}
		if loneKing && path&e.occ == 0 {
			promo := board.MakeSquare(s.File(), 7)
			if c == board.Black {
				promo = board.MakeSquare(s.File(), 0)
			}
			pawnDist := 7 - r
			if r == 1 {
				pawnDist = 5
			}
			kingDist := distance(e.kingSq[them], promo)
			if e.p.SideToMove() == them {
				kingDist--
			}
			if kingDist > pawnDist {
				sum += e.term(c, fPassedUnstoppable, 1)
			}
		}
	}
	return sum
}

// threats scores c's attacks on the enemy's pieces.
func (e *evaluator) threats(c board.Color) score {
	p := e.p
	c &= 1 // in range: no bounds checks on the per-colour arrays
	them := c ^ 1
	var sum score
	enemies := p.Occupancy(them) &^ p.PiecesOfType(board.King)
	pieces := enemies &^ e.pawns[them]
	sum += e.term(c, fThreatPawn, (e.pawnAtt[c] & pieces).Count())
	push := forward(c, e.pawns[c]) &^ e.occ
	third := board.Rank3
	if c == board.Black {
		third = board.Rank6
	}
	push |= forward(c, push&third) &^ e.occ
	push &= ^e.pawnAtt[them] & (e.att[c] | ^e.att[them])
	sum += e.term(c, fThreatPawnPush, (board.PawnAttacksBB(c, push) & pieces).Count())
	// Minor pieces threaten pieces not defended by a pawn and any rook or
	// queen; rooks threaten pieces not defended by a pawn and any queen.
	loose := enemies &^ e.pawnAtt[them]
	queens := p.Pieces(them, board.Queen)
	minorHits := (e.attBy[c][board.Knight] | e.attBy[c][board.Bishop]) & (loose | p.Pieces(them, board.Rook) | queens)
	rookHits := e.attBy[c][board.Rook] & (loose | queens)
	sum += e.victims(c, fThreatMinor, minorHits) + e.victims(c, fThreatRook, rookHits)
	sum += e.term(c, fHanging, (enemies & e.att[c] &^ e.att[them]).Count())
	return sum
}

// victims scores the threats in hits, a set of enemy pieces attacked by
// c's pieces of one kind: feature f+t for each victim of type t. A
// position has few such threats, so it visits them one by one.
func (e *evaluator) victims(c board.Color, f int, hits board.Bitboard) score {
	var sum score
	for hits != 0 {
		sum += e.term(c, f+int(e.p.PieceAt(hits.PopLSB()).Type()), 1)
	}
	return sum
}

// kingDanger gathers the danger to c's king into e.ks[c], once at least two
// enemy pieces (or one with a queen on the board) attack its zone. It
// inlines, so that a king out of danger costs no call.
func (e *evaluator) kingDanger(c board.Color) {
	if e.threatens[c^1&1] {
		e.kingDangerTerms(c)
	}
}

// kingDangerTerms is kingDanger for a king in danger.
func (e *evaluator) kingDangerTerms(c board.Color) {
	p := e.p
	c &= 1 // in range: no bounds checks on the per-colour arrays
	them := c ^ 1
	za := e.zoneAttackers[them]
	queens := e.count[them][board.Queen]
	k := e.kingSq[c]
	weak := e.att[them] &^ e.att2[c] & (^e.att[c] | e.attBy[c][board.Queen] | e.attBy[c][board.King])
	safe := ^p.Occupancy(them) & (^e.att[c] | (weak & e.att2[them]))
	bishopRays := board.BishopAttacks(k, e.occ)
	rookRays := board.RookAttacks(k, e.occ)
	sum := e.ksTerm(c, fKSAttackers+0, int(za&0xff)) + e.ksTerm(c, fKSAttackers+1, int(za>>8&0xff)) +
		e.ksTerm(c, fKSAttackers+2, int(za>>16&0xff)) + e.ksTerm(c, fKSAttackers+3, int(za>>24))
	sum += e.ksTerm(c, fKSSafeChecks+0, (board.KnightAttacks(k) & e.attBy[them][board.Knight] & safe).Count())
	sum += e.ksTerm(c, fKSSafeChecks+1, (bishopRays & e.attBy[them][board.Bishop] & safe).Count())
	sum += e.ksTerm(c, fKSSafeChecks+2, (rookRays & e.attBy[them][board.Rook] & safe).Count())
	sum += e.ksTerm(c, fKSSafeChecks+3, ((bishopRays | rookRays) & e.attBy[them][board.Queen] & safe).Count())
	sum += e.ksTerm(c, fKSZoneAttacks, e.zoneAttacks[them])
	sum += e.ksTerm(c, fKSWeakSquares, (weak & e.zone[them]).Count())
	if queens == 0 {
		sum += e.ksTerm(c, fKSNoQueen, 1)
	}
	sum += e.ksTerm(c, fKSBase, 1)
	e.ks[c] = sum
}

// mateDrive pushes a lone enemy king to the edge (to the right corner in
// KBNK) and brings c's king closer, when c has no pawns and can force mate.
// It inlines, so that the usual position, with no lone king, costs no call.
func (e *evaluator) mateDrive(c board.Color) score {
	if !e.bare[c^1&1] {
		return 0
	}
	return e.mateDriveTerms(c)
}

// mateDriveTerms is mateDrive against a lone king.
func (e *evaluator) mateDriveTerms(c board.Color) score {
	if e.pawns[c] != 0 {
		return 0
	}
	n := &e.count[c]
	bishops := e.p.Pieces(c, board.Bishop)
	bothColours := bishops&board.DarkSquares != 0 && bishops&board.LightSquares != 0
	if n[board.Queen] == 0 && n[board.Rook] == 0 && !(n[board.Bishop] > 0 && n[board.Knight] > 0) && !bothColours {
		return 0
	}
	wk := e.kingSq[c.Other()]
	sum := e.term(c, fMateEdge, centreDistance(wk))
	sum += e.term(c, fMateKings, 7-distance(e.kingSq[c], wk))
	if n[board.Queen] == 0 && n[board.Rook] == 0 && n[board.Bishop] == 1 && n[board.Knight] == 1 {
		a, b := board.A1, board.H8
		if bishops&board.LightSquares != 0 {
			a, b = board.H1, board.A8
		}
		d := distance(wk, a)
		if d2 := distance(wk, b); d2 < d {
			d = d2
		}
		sum += e.term(c, fMateBNCorner, 7-d)
	}
	return sum
}

// scaleFor returns the scale (of ScaleNormal) that applies when the
// tapered score favours c: drawish material gets less, and rook pawns
// alone or with the wrong bishop against a king in their corner nothing.
func (e *evaluator) scaleFor(c board.Color) int {
	c &= 1 // in range: no bounds checks on the per-colour arrays
	w := c ^ 1
	if e.count[c][board.Knight]+e.count[c][board.Rook]+e.count[c][board.Queen] == 0 && e.rookPawnDraw(c) {
		return 0
	}
	if e.pawns[c] != 0 && (e.count[c][board.Bishop] != 1 || e.count[w][board.Bishop] != 1) {
		return ScaleNormal // the usual case: pawns, and not one bishop each
	}
	oneBishopEach := e.count[c][board.Bishop] == 1 && e.count[w][board.Bishop] == 1
	npm := func(x board.Color) int {
		n := &e.count[x]
		return 3*(n[board.Knight]+n[board.Bishop]) + 5*n[board.Rook] + 9*n[board.Queen]
	}
	strong, weak := npm(c), npm(w)
	if e.pawns[c] == 0 {
		if strong-weak <= 3 {
			if strong < 5 {
				return 0 // a minor piece, or nothing, cannot win
			}
			if weak <= 3 {
				return 16
			}
			return 56
		}
		if strong == 6 && e.count[c][board.Knight] == 2 && weak == 0 && e.pawns[w] == 0 {
			return 8 // two knights cannot force mate
		}
	}
	if oneBishopEach {
		b1 := e.p.Pieces(c, board.Bishop)
		b2 := e.p.Pieces(w, board.Bishop)
		if (b1&board.DarkSquares != 0) != (b2&board.DarkSquares != 0) {
			if strong == 3 && weak == 3 {
				return 64 // opposite-coloured bishops alone
			}
			return 108
		}
	}
	return ScaleNormal
}

// rookPawnDraw reports whether c, with no knight, rook or queen, has
// pawns all on one rook file and no bishop that covers their promotion
// square (the wrong bishop, or none), while the enemy, with no piece, has
// its king on or next to that square: a draw, as the king cannot be driven
// out of the corner.
func (e *evaluator) rookPawnDraw(c board.Color) bool {
	c &= 1 // in range: no bounds checks on the per-colour arrays
	w := c ^ 1
	pawns := e.pawns[c]
	if pawns == 0 || e.count[w][board.Knight]+e.count[w][board.Bishop]+e.count[w][board.Rook]+e.count[w][board.Queen] != 0 {
		return false
	}
	file := 0
	switch {
	case pawns&^board.FileA == 0:
	case pawns&^board.FileH == 0:
		file = 7
	default:
		return false
	}
	promo := board.MakeSquare(file, 7)
	if c == board.Black {
		promo = board.MakeSquare(file, 0)
	}
	bishops := e.p.Pieces(c, board.Bishop)
	if board.SquareBB(promo)&board.DarkSquares != 0 {
		if bishops&board.DarkSquares != 0 {
			return false
		}
	} else if bishops&board.LightSquares != 0 {
		return false
	}
	return distance(e.kingSq[w], promo) <= 1
}
