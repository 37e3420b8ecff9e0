package dama

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPositions returns positions from random playouts from the start
// (every position along each game, up to maxPlies) and from RandomPosition
// over a set of signatures rich in kings, where long chains, circuits and
// the priority rules come up often. Each position keeps its history.
func randomPositions(t testing.TB, games, perSig int) []*Position {
	t.Helper()
	rng := rand.New(rand.NewPCG(19, 1))
	var out []*Position
	var l MoveList
	play := func(p *Position, maxPlies int) {
		for range maxPlies {
			out = append(out, p.Copy())
			p.GenerateMoves(&l)
			if l.N == 0 {
				return
			}
			p.MakeMove(l.Moves[rng.IntN(l.N)])
		}
	}
	for range games {
		play(StartPosition(), 200)
	}
	for _, text := range []string{"2Kv1K1M", "3Mv2M", "3K2Mv3K2M", "4Kv4K", "6Kv6K", "1K6Mv2K5M", "8Mv8M", "5K5Mv5K5M", "12Kv3K", "2K10Mv1K11M", "3Kv4K4M", "4Kv2K6M", "2K2Mv3K5M", "6Kv3K6M"} {
		sig, err := ParseSignature(text)
		if err != nil {
			t.Fatal(err)
		}
		for range perSig {
			p, err := RandomPosition(sig, rng)
			if err != nil {
				t.Fatal(err)
			}
			play(p, 4)
		}
	}
	return out
}

// compareMoves fails the test unless the package and the simple
// implementation find the same legal moves in p.
func compareMoves(t *testing.T, p *Position, bit *[4]int) {
	t.Helper()
	var l MoveList
	p.GenerateMoves(&l)
	got := make([]string, 0, l.N)
	for _, m := range l.Slice() {
		got = append(got, describeMove(m))
	}
	var want []string
	nb := naiveFrom(p)
	for _, m := range nb.movesCounting(bit) {
		want = append(want, m.describe())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: moves\n%v\nthe simple implementation:\n%v\n%s", p.FEN(), got, want, p)
	}
	if p.CountMoves() != l.N || p.HasMoves() != (l.N > 0) || p.HasCapture() != (l.N > 0 && l.Moves[0].IsCapture()) {
		t.Fatalf("%s: CountMoves %d, HasMoves %v, HasCapture %v with moves %v", p.FEN(), p.CountMoves(), p.HasMoves(), p.HasCapture(), got)
	}
}

// TestAgainstSimpleImplementation: the package and the simple array-board
// implementation of naive_test.go agree on the legal moves (notation,
// captured squares, crowning) and on perft 1..3 in thousands of positions.
func TestAgainstSimpleImplementation(t *testing.T) {
	games, perSig, step := 40, 150, 1
	if testing.Short() {
		games, perSig, step = 8, 20, 3
	}
	positions := randomPositions(t, games, perSig)
	var l MoveList
	checked := 0
	seen := map[uint64]bool{}
	var bit [4]int // positions where each priority rule removed a capture
	for i, p := range positions {
		if seen[p.Hash()] {
			continue
		}
		seen[p.Hash()] = true
		compareMoves(t, p, &bit)
		p.GenerateMoves(&l)
		children := l
		for _, m := range children.Slice() { // and every position one move on
			p.MakeMove(m)
			compareMoves(t, p, &bit)
			p.UnmakeMove()
		}
		b := naiveFrom(p)
		if i%step != 0 {
			continue
		}
		for d := 2; d <= 3; d++ {
			if g, w := p.Perft(d), b.perft(d); g != w {
				t.Fatalf("%s: perft(%d) = %d, the simple implementation %d", p.FEN(), d, g, w)
			}
		}
		checked++
	}
	t.Logf("%d positions compared (moves), %d of them to perft 3; priority rules 1-4 decided in %v of them", len(seen), checked, bit)
	for i, n := range bit {
		if n == 0 {
			t.Errorf("priority rule %d never decided among the captures of the positions compared", i+1)
		}
	}
	if !testing.Short() && checked < 3000 {
		t.Errorf("only %d positions compared to perft 3", checked)
	}
}
