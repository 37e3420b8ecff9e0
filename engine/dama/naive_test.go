package dama

import (
	"fmt"
	"sort"
	"strings"
)

// A second implementation of the rules, written separately and kept
// deliberately simple: an 8x8 array board, a recursive chain search that
// collects every complete capture route, and a filter that applies the
// priority rules one after another exactly as the rulebook states them.
// It shares nothing with the package but the exported Men/Kings/SideToMove
// accessors used to read a position into it.

// naiveBoard is a board of cells: +1 white man, +2 white king, -1 black man,
// -2 black king, 0 empty. Row 0 is rank 8; White moves toward row 0.
type naiveBoard struct {
	cell  [8][8]int8
	white bool // White to move
}

// naiveMove is one move: the squares it visits as (row, file), the captured
// cells in the order they are jumped, and their contents.
type naiveMove struct {
	path  [][2]int
	caps  [][2]int
	kinds []int8
	king  bool // made by a king
	crown bool
}

func naiveNumber(r, f int) int { return r*4 + f/2 + 1 }

func naiveCell(n int) (r, f int) {
	r = (n - 1) / 4
	return r, 2*((n-1)%4) + r%2
}

func naiveFrom(p *Position) naiveBoard {
	var b naiveBoard
	b.white = p.SideToMove() == White
	for n := 1; n <= 32; n++ {
		bit := uint32(1) << uint(n-1)
		r, f := naiveCell(n)
		switch {
		case p.Men(White)&bit != 0:
			b.cell[r][f] = 1
		case p.Kings(White)&bit != 0:
			b.cell[r][f] = 2
		case p.Men(Black)&bit != 0:
			b.cell[r][f] = -1
		case p.Kings(Black)&bit != 0:
			b.cell[r][f] = -2
		}
	}
	return b
}

func onBoard(r, f int) bool { return r >= 0 && r < 8 && f >= 0 && f < 8 }

// mine reports whether cell value v belongs to the side to move.
func (b *naiveBoard) mine(v int8) bool { return (b.white && v > 0) || (!b.white && v < 0) }

func (b *naiveBoard) crownRow() int {
	if b.white {
		return 0
	}
	return 7
}

func abs8(v int8) int8 {
	if v < 0 {
		return -v
	}
	return v
}

// moves returns the legal moves.
func (b *naiveBoard) moves() []naiveMove { return b.movesCounting(nil) }

// movesCounting returns the legal moves and adds to bit[i] one when
// priority rule i+1 removed some capture (bit may be nil).
func (b *naiveBoard) movesCounting(bit *[4]int) []naiveMove {
	var all []naiveMove
	for r := range 8 {
		for f := range 8 {
			if b.mine(b.cell[r][f]) {
				piece := b.cell[r][f]
				work := *b
				work.cell[r][f] = 0 // the start square is free during the chain
				start := naiveMove{path: [][2]int{{r, f}}, king: abs8(piece) == 2}
				work.chains(piece, r, f, start, &all)
			}
		}
	}
	if len(all) > 0 {
		return naiveFilter(all, bit)
	}
	for r := range 8 {
		for f := range 8 {
			v := b.cell[r][f]
			if !b.mine(v) {
				continue
			}
			for _, d := range b.directions(v) {
				tr, tf := r+d[0], f+d[1]
				if onBoard(tr, tf) && b.cell[tr][tf] == 0 {
					all = append(all, naiveMove{
						path:  [][2]int{{r, f}, {tr, tf}},
						king:  abs8(v) == 2,
						crown: abs8(v) == 1 && tr == b.crownRow(),
					})
				}
			}
		}
	}
	return all
}

// directions lists the (row, file) steps piece v may take.
func (b *naiveBoard) directions(v int8) [][2]int {
	if abs8(v) == 2 {
		return [][2]int{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}}
	}
	if v > 0 {
		return [][2]int{{-1, -1}, {-1, 1}}
	}
	return [][2]int{{1, -1}, {1, 1}}
}

// chains extends the capture route so far from (r, f) and appends every
// complete route to out.
func (b *naiveBoard) chains(piece int8, r, f int, so naiveMove, out *[]naiveMove) {
	extended := false
	for _, d := range b.directions(piece) {
		or, of := r+d[0], f+d[1]
		lr, lf := r+2*d[0], f+2*d[1]
		if !onBoard(lr, lf) {
			continue
		}
		victim := b.cell[or][of]
		if victim == 0 || b.mine(victim) {
			continue
		}
		if abs8(piece) == 1 && abs8(victim) == 2 {
			continue // a man may not capture a king
		}
		taken := false
		for _, c := range so.caps {
			taken = taken || c == [2]int{or, of}
		}
		if taken || b.cell[lr][lf] != 0 {
			continue // jumped once only; captured pieces stay until the end
		}
		extended = true
		next := naiveMove{
			path:  append(append([][2]int{}, so.path...), [2]int{lr, lf}),
			caps:  append(append([][2]int{}, so.caps...), [2]int{or, of}),
			kinds: append(append([]int8{}, so.kinds...), victim),
			king:  so.king,
		}
		if abs8(piece) == 1 && lr == b.crownRow() {
			next.crown = true
			*out = append(*out, next) // crowned: the move ends here
			continue
		}
		b.chains(piece, lr, lf, next, out)
	}
	if !extended && len(so.caps) > 0 {
		*out = append(*out, so)
	}
}

// naiveFilter applies the four priority rules in turn.
func naiveFilter(ms []naiveMove, bit *[4]int) []naiveMove {
	rule := 0
	keep := func(pred func(naiveMove) bool) {
		var out []naiveMove
		for _, m := range ms {
			if pred(m) {
				out = append(out, m)
			}
		}
		if bit != nil && len(out) < len(ms) {
			bit[rule]++
		}
		ms = out
		rule++
	}
	kingsOf := func(m naiveMove) []int {
		var at []int
		for i, k := range m.kinds {
			if abs8(k) == 2 {
				at = append(at, i)
			}
		}
		return at
	}
	// (1) the most pieces.
	most := 0
	for _, m := range ms {
		most = max(most, len(m.caps))
	}
	keep(func(m naiveMove) bool { return len(m.caps) == most })
	// (2) made by a king, if any king can.
	byKing := false
	for _, m := range ms {
		byKing = byKing || m.king
	}
	keep(func(m naiveMove) bool { return m.king || !byKing })
	// (3) the most kings.
	mostKings := 0
	for _, m := range ms {
		mostKings = max(mostKings, len(kingsOf(m)))
	}
	keep(func(m naiveMove) bool { return len(kingsOf(m)) == mostKings })
	// (4) kings met earliest: the least list of king positions.
	var best []int
	for i, m := range ms {
		k := kingsOf(m)
		if i == 0 || lessInts(k, best) {
			best = k
		}
	}
	keep(func(m naiveMove) bool { return fmt.Sprint(kingsOf(m)) == fmt.Sprint(best) })
	return ms
}

func lessInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// play returns the board after m.
func (b naiveBoard) play(m naiveMove) naiveBoard {
	s, e := m.path[0], m.path[len(m.path)-1]
	v := b.cell[s[0]][s[1]]
	b.cell[s[0]][s[1]] = 0
	for _, c := range m.caps {
		b.cell[c[0]][c[1]] = 0
	}
	if m.crown {
		v *= 2
	}
	b.cell[e[0]][e[1]] = v
	b.white = !b.white
	return b
}

// notation writes m as the package does ("22-18", "27x18x9x2").
func (m naiveMove) notation() string {
	sep := "-"
	if len(m.caps) > 0 {
		sep = "x"
	}
	parts := make([]string, len(m.path))
	for i, c := range m.path {
		parts[i] = fmt.Sprint(naiveNumber(c[0], c[1]))
	}
	return strings.Join(parts, sep)
}

// describe adds the captured squares (in increasing order) and the
// crowning to the notation, for a fuller comparison.
func (m naiveMove) describe() string {
	var caps []int
	for _, c := range m.caps {
		caps = append(caps, naiveNumber(c[0], c[1]))
	}
	sort.Ints(caps)
	return fmt.Sprintf("%s caps%v crown=%v", m.notation(), caps, m.crown)
}

// describeMove writes a package move as describe does.
func describeMove(m Move) string {
	var caps []int
	for s := range NumSquares {
		if m.Captured()&(1<<uint(s)) != 0 {
			caps = append(caps, s+1)
		}
	}
	return fmt.Sprintf("%s caps%v crown=%v", m.String(), caps, m.Crowns())
}

func (b naiveBoard) perft(depth int) uint64 {
	if depth == 0 {
		return 1
	}
	ms := b.moves()
	if depth == 1 {
		return uint64(len(ms))
	}
	var n uint64
	for _, m := range ms {
		n += b.play(m).perft(depth - 1)
	}
	return n
}
