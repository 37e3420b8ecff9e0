package dama

import (
	"fmt"
	"math/bits"
)

// Capture priority key, compared as one number (larger = preferred): the
// number of pieces captured, then whether a king captures, then the number of
// kings captured, then where the kings are met: bit 11-i is set when the
// i-th piece captured is a king, so that with equal counts the sequence that
// meets its first king earlier (then its second, ...) has the larger key.
const (
	keyCount   = 1 << 20
	keyByKing  = 1 << 19
	keyKings   = 1 << 14
	keyOrderHi = 11 // bit for the first piece captured
)

// GenerateMoves fills l with the legal moves: the captures that the
// priority rules allow when there is any capture, else the simple moves.
// Each capture route is its own move, even when two routes share their
// start and end.
func (p *Position) GenerateMoves(l *MoveList) {
	us := p.side & 1
	empty := ^(p.men[0] | p.men[1] | p.kings[0] | p.kings[1])
	if kings, men := p.jumpers(us, empty); kings|men != 0 {
		p.generateCaptures(l, us, empty, kings, men)
		return
	}
	p.generateSimple(l, us, empty)
}

// CountMoves returns the number of legal moves, as GenerateMoves would
// find them, counting simple moves without listing them.
func (p *Position) CountMoves() int {
	us := p.side & 1
	empty := ^(p.men[0] | p.men[1] | p.kings[0] | p.kings[1])
	if kings, men := p.jumpers(us, empty); kings|men != 0 {
		return p.generateCaptures(nil, us, empty, kings, men)
	}
	up, down := p.upDown(us)
	return bits.OnesCount32(up>>4&empty) +
		bits.OnesCount32((up&rowsEven&^colFirst)>>5&empty) +
		bits.OnesCount32((up&rowsOdd&^colLast)>>3&empty) +
		bits.OnesCount32(down<<4&empty) +
		bits.OnesCount32((down&rowsEven&^colFirst)<<3&empty) +
		bits.OnesCount32((down&rowsOdd&^colLast)<<5&empty)
}

// HasMoves reports whether the side to move has a legal move.
func (p *Position) HasMoves() bool {
	us := p.side & 1
	empty := ^(p.men[0] | p.men[1] | p.kings[0] | p.kings[1])
	up, down := p.upDown(us)
	reach := stepUpLeft(up) | stepUpRight(up) | stepDownLeft(down) | stepDownRight(down)
	if reach&empty != 0 {
		return true
	}
	kings, men := p.jumpers(us, empty)
	return kings|men != 0
}

// HasCapture reports whether the side to move must capture.
func (p *Position) HasCapture() bool {
	kings, men := p.jumpers(p.side&1, ^p.Occupied())
	return kings|men != 0
}

// upDown returns side us's pieces that may step up (toward row 0) and
// down: kings both ways, men forward only.
func (p *Position) upDown(us Color) (up, down uint32) {
	men, kings := p.men[us&1], p.kings[us&1]
	if us == White {
		return kings | men, kings
	}
	return kings, kings | men
}

// jumpers returns side us's kings and men that have a capture: an enemy
// piece they may take next to them (a man takes men only, forward) with an
// empty square behind it. The sets come from stepping back twice from the
// empty squares.
func (p *Position) jumpers(us Color, empty uint32) (kings, men uint32) {
	them := (us ^ 1) & 1
	enemyMen := p.men[them]
	enemy := enemyMen | p.kings[them]
	// Behind an up jump over t lies an empty square two steps up.
	upFrom := func(t uint32) uint32 {
		return stepDownRight(stepDownRight(empty)&t) | stepDownLeft(stepDownLeft(empty)&t)
	}
	downFrom := func(t uint32) uint32 {
		return stepUpRight(stepUpRight(empty)&t) | stepUpLeft(stepUpLeft(empty)&t)
	}
	if k := p.kings[us&1]; k != 0 {
		kings = k & (upFrom(enemy) | downFrom(enemy))
	}
	if us == White {
		men = p.men[us&1] & upFrom(enemyMen)
	} else {
		men = p.men[us&1] & downFrom(enemyMen)
	}
	return kings, men
}

// generateSimple adds the non-capturing moves of side us.
func (p *Position) generateSimple(l *MoveList, us Color, empty uint32) {
	men := p.men[us&1]
	crown := crownRow[us&1]
	up, down := p.upDown(us)
	n := 0
	// Up: every row shifts by 4 one way; even rows by 5, odd rows by 3 the other.
	n = addSimple(l, n, up>>4&empty, 4, men, crown)
	n = addSimple(l, n, (up&rowsEven&^colFirst)>>5&empty, 5, men, crown)
	n = addSimple(l, n, (up&rowsOdd&^colLast)>>3&empty, 3, men, crown)
	// Down.
	n = addSimple(l, n, down<<4&empty, -4, men, crown)
	n = addSimple(l, n, (down&rowsEven&^colFirst)<<3&empty, -3, men, crown)
	n = addSimple(l, n, (down&rowsOdd&^colLast)<<5&empty, -5, men, crown)
	l.N = n
}

// addSimple adds a move to each square of tos from the square delta away;
// a man that reaches the crowning row crowns.
func addSimple(l *MoveList, n int, tos uint32, delta int, men, crown uint32) int {
	for ; tos != 0; tos &= tos - 1 {
		to := bits.TrailingZeros32(tos)
		from := to + delta
		crowns := crown&(1<<uint(to)) != 0 && men&(1<<uint(from&31)) != 0
		l.Moves[n] = newMove(Square(from), Square(to), 1, crowns, 0, 0)
		n++
	}
	return n
}

// capGen holds the state of the depth-first search for capture chains.
type capGen struct {
	list       *MoveList // where the moves go; nil to count them only
	n          int       // the number of moves kept
	best       uint32    // the best priority key recorded so far
	from       Square    // the capturing piece's square
	empty      uint32    // empty squares, the mover's start included
	targets    uint32    // the pieces the mover may take
	enemyKings uint32    // the enemy's kings
	crown      uint32    // the mover's crowning row (for a man), else 0
	dirLo      Direction // the directions the piece may jump: dirLo..dirHi
	dirHi      Direction
}

// generateCaptures adds the captures of side us that the priority rules
// allow: the chains of each of its kings and men that have a first capture
// are searched depth first, and only the chains with the highest priority
// key are kept. It returns their number; with l nil it only counts them.
func (p *Position) generateCaptures(l *MoveList, us Color, empty, kings, men uint32) int {
	them := (us ^ 1) & 1
	g := capGen{list: l, enemyKings: p.kings[them]}
	// Kings first: with equal counts a king's capture outranks a man's, so
	// the men's chains that it outranks are dropped without being stored.
	g.targets = p.men[them] | p.kings[them]
	g.dirLo, g.dirHi = UpLeft, DownRight
	for b := kings; b != 0; b &= b - 1 {
		s := Square(bits.TrailingZeros32(b))
		g.empty = empty | 1<<uint(s)
		g.from = s
		g.chain(s, 0, 0, keyByKing, 0)
	}
	g.targets = p.men[them]
	g.crown = crownRow[us&1]
	g.dirLo, g.dirHi = UpLeft, UpRight
	if us == Black {
		g.dirLo, g.dirHi = DownLeft, DownRight
	}
	for b := men; b != 0; b &= b - 1 {
		s := Square(bits.TrailingZeros32(b))
		g.empty = empty | 1<<uint(s)
		g.from = s
		g.chain(s, 0, 0, 0, 0)
	}
	if l != nil {
		if g.n > MaxMoves {
			// MaxMoves' comment proves this unreachable; dropping moves
			// silently would make perft, CountMoves and play disagree.
			panic(fmt.Sprintf("dama: %d legal captures in %s, more than MaxMoves = %d", g.n, p.FEN(), MaxMoves))
		}
		l.N = g.n
	}
	return g.n
}

// chain extends a capture chain that has reached square s after depth
// captures (the squares in captured, not yet removed), recording the chain
// when no capture continues it; jumps holds the directions taken so far.
func (g *capGen) chain(s Square, depth int, captured, key, jumps uint32) {
	found := false
	for d := g.dirLo; d <= g.dirHi; d++ {
		over := neighbour[s&31][d&3]
		if over < 0 {
			continue
		}
		ob := uint32(1) << uint(over&31)
		if g.targets&ob == 0 || captured&ob != 0 {
			continue
		}
		land := jumpTo[s&31][d&3]
		if land < 0 {
			continue
		}
		lb := uint32(1) << uint(land&31)
		if g.empty&lb == 0 {
			continue
		}
		found = true
		k := key + keyCount
		if g.enemyKings&ob != 0 {
			k += keyKings | 1<<uint(keyOrderHi-depth)
		}
		j := jumps | uint32(d)<<(2*uint(depth))
		if g.crown&lb != 0 {
			g.record(land, depth+1, captured|ob, k, j, true) // a man crowns: its move ends
		} else {
			g.chain(land, depth+1, captured|ob, k, j)
		}
	}
	if !found && depth > 0 {
		g.record(s, depth, captured, key, jumps, false)
	}
}

// record keeps a finished chain if no chain found so far outranks it,
// dropping those it outranks.
func (g *capGen) record(to Square, n int, captured, key, jumps uint32, crowns bool) {
	if key < g.best {
		return
	}
	if key > g.best {
		g.best = key
		g.n = 0
	}
	if g.list != nil && g.n < MaxMoves {
		// A group that a better chain replaces later may pass MaxMoves;
		// the final one cannot (generateCaptures checks).
		g.list.Moves[g.n] = newMove(g.from, to, n, crowns, captured, jumps)
	}
	g.n++
}
