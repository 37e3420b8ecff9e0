package dama

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestZobristIncremental: along random games the incrementally updated hash
// equals the hash computed from scratch after every move, and unmaking every
// move restores each earlier position, hash, counters and FEN.
func TestZobristIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var l MoveList
	for game := range 200 {
		p := StartPosition()
		if game%2 == 1 {
			sig, _ := ParseSignature("3K3Mv3K3M")
			var err error
			if p, err = RandomPosition(sig, rng); err != nil {
				t.Fatal(err)
			}
		}
		type snap struct {
			fen        string
			hash       uint64
			quiet, ply int
			men, kings [2]uint32
		}
		var snaps []snap
		for range 150 {
			snaps = append(snaps, snap{p.FEN(), p.Hash(), p.QuietPlies(), p.Ply(), p.men, p.kings})
			p.GenerateMoves(&l)
			if l.N == 0 {
				break
			}
			m := l.Moves[rng.IntN(l.N)]
			before := p.QuietPlies()
			p.MakeMove(m)
			if p.Hash() != p.computeHash() {
				t.Fatalf("game %d after %s: hash %#x, from scratch %#x", game, m, p.Hash(), p.computeHash())
			}
			if m.IsCapture() && p.QuietPlies() != 0 || !m.IsCapture() && p.QuietPlies() != before+1 {
				t.Fatalf("game %d after %s: quiet plies %d (before %d)", game, m, p.QuietPlies(), before)
			}
			if p.LastMove() != m {
				t.Fatalf("LastMove %s, want %s", p.LastMove(), m)
			}
			if q, err := ParseFEN(p.FEN()); err != nil || q.Hash() != p.Hash() {
				t.Fatalf("game %d: %s reads back as hash %#x (%v), want %#x", game, p.FEN(), q.Hash(), err, p.Hash())
			}
		}
		for i := len(snaps) - 1; i >= 0; i-- {
			if i < len(snaps)-1 || p.Ply() != snaps[i].ply {
				p.UnmakeMove()
			}
			s := snaps[i]
			if got := (snap{p.FEN(), p.Hash(), p.QuietPlies(), p.Ply(), p.men, p.kings}); got != s {
				t.Fatalf("game %d unmade to ply %d: %+v, want %+v", game, i, got, s)
			}
		}
	}
}

// TestCopy: a copy carries the history and is independent of the original.
func TestCopy(t *testing.T) {
	p := mustFEN(t, "W:W22,29:B4,18")
	for _, mv := range []string{"22x13", "4-8", "29-25", "8-12"} {
		p.MakeMove(mustMove(t, p, mv))
	}
	q := p.Copy()
	q.MakeMove(mustMove(t, q, "25-21"))
	if p.FEN() == q.FEN() || p.Ply() != 4 || q.Ply() != 5 {
		t.Fatalf("copy not independent: %s / %s", p.FEN(), q.FEN())
	}
	q.UnmakeMove()
	q.UnmakeMove()
	p.UnmakeMove()
	if p.FEN() != q.FEN() || p.Hash() != q.Hash() || q.QuietPlies() != 2 || q.LastMove().String() != "29-25" {
		t.Fatalf("copy's history differs: %s / %s", p.FEN(), q.FEN())
	}
}

// TestCopyInto: copying into a Position that held another game (or into a
// zero one) gives the same position and history as Copy, independent of the
// original, and copying again into it allocates nothing.
func TestCopyInto(t *testing.T) {
	p := mustFEN(t, "W:W22,29:B4,18")
	for _, mv := range []string{"22x13", "4-8", "29-25", "8-12"} {
		p.MakeMove(mustMove(t, p, mv))
	}
	other := StartPosition()
	for range 30 { // a longer history than p's
		var l MoveList
		other.GenerateMoves(&l)
		other.MakeMove(l.At(0))
	}
	for name, dst := range map[string]*Position{"zero": new(Position), "another game": other} {
		p.CopyInto(dst)
		if dst.FEN() != p.FEN() || dst.Hash() != p.Hash() || dst.Ply() != 4 || dst.QuietPlies() != 3 || dst.LastMove().String() != "8-12" {
			t.Fatalf("%s: copy %s (ply %d) differs from %s", name, dst.FEN(), dst.Ply(), p.FEN())
		}
		dst.MakeMove(mustMove(t, dst, "25-21"))
		p.MakeMove(mustMove(t, p, "13-9"))
		p.UnmakeMove() // would overwrite dst's 25-21 if they shared the history
		if dst.LastMove().String() != "25-21" || p.Ply() != 4 {
			t.Fatalf("%s: copy not independent: %s / %s", name, p.FEN(), dst.FEN())
		}
		dst.UnmakeMove()
		for range 4 {
			dst.UnmakeMove()
		}
		if dst.FEN() != "W:W22,29:B4,18" {
			t.Fatalf("%s: copy's history leads back to %s", name, dst.FEN())
		}
		if a := testing.AllocsPerRun(100, func() { p.CopyInto(dst) }); a != 0 {
			t.Errorf("%s: CopyInto into a used Position allocates %v times", name, a)
		}
		m := mustMove(t, p, "25-21")
		if a := testing.AllocsPerRun(100, func() { p.CopyInto(dst); dst.MakeMove(m) }); a != 0 {
			t.Errorf("%s: CopyInto and a move on the copy allocate %v times", name, a)
		}
	}
}

// TestNoAllocations: move generation, make and unmake allocate nothing.
func TestNoAllocations(t *testing.T) {
	for _, fen := range []string{"W:W21-32:B1-12", "W:WK27:B7,13,K5,K14,K22", "B:WK6,K7,23,25:BK2,10,K15,19,20"} {
		p := mustFEN(t, fen)
		var l MoveList
		if a := testing.AllocsPerRun(100, func() { p.GenerateMoves(&l) }); a != 0 {
			t.Errorf("%s: GenerateMoves allocates %v times", fen, a)
		}
		p.GenerateMoves(&l)
		m := l.Moves[0]
		if a := testing.AllocsPerRun(100, func() { p.MakeMove(m); p.UnmakeMove() }); a != 0 {
			t.Errorf("%s: MakeMove+UnmakeMove allocate %v times", fen, a)
		}
		if a := testing.AllocsPerRun(100, func() { _ = p.Outcome(); _ = p.HasMoves() }); a != 0 {
			t.Errorf("%s: Outcome allocates %v times", fen, a)
		}
	}
	p := StartPosition()
	if a := testing.AllocsPerRun(5, func() { p.Perft(4) }); a != 0 {
		t.Errorf("Perft allocates %v times", a)
	}
}

// TestDrawRules: 80 plies without capture draw; a capture resets the count;
// the third occurrence of a position draws; a side without moves loses.
func TestDrawRules(t *testing.T) {
	p := mustFEN(t, "W:WK29:BK4")
	shuffle := []string{"29-25", "4-8", "25-29", "8-4"}
	for i := range 8 {
		if o := p.Outcome(); o != Ongoing {
			t.Fatalf("ply %d: %v too early", i, o)
		}
		if p.Repetitions() != i/4 {
			t.Fatalf("ply %d: %d repetitions", i, p.Repetitions())
		}
		p.MakeMove(mustMove(t, p, shuffle[i%4]))
	}
	if o := p.Outcome(); o != DrawRepetition || p.Repetitions() != 2 {
		t.Fatalf("third occurrence: %v, %d repetitions", o, p.Repetitions())
	}

	// 80 quiet plies: the kings circle apart, White on a six-square
	// round, Black on an eight-square one, so a position comes back every
	// 48 plies and never a third time before ply 96.
	p = mustFEN(t, "W:WK29:BK3")
	white := []string{"29-26", "26-22", "22-18", "18-21", "21-25", "25-29"}
	black := []string{"3-7", "7-12", "12-16", "16-20", "20-15", "15-11", "11-6", "6-3"}
	for ply := range QuietLimit {
		if o := p.Outcome(); o != Ongoing {
			t.Fatalf("ply %d: %v before 80 quiet plies", ply, o)
		}
		if want := ply / 48; p.Repetitions() != want {
			t.Fatalf("ply %d: %d repetitions, want %d", ply, p.Repetitions(), want)
		}
		mv := white[ply/2%len(white)]
		if ply%2 == 1 {
			mv = black[ply/2%len(black)]
		}
		p.MakeMove(mustMove(t, p, mv))
	}
	if o := p.Outcome(); o != DrawQuiet {
		t.Fatalf("after %d quiet plies: %v", p.QuietPlies(), o)
	}
	p.UnmakeMove()
	if o := p.Outcome(); o != Ongoing {
		t.Fatalf("after 79 quiet plies: %v", o)
	}

	// A capture resets the counter; a man move does not.
	p = mustFEN(t, "W:W22,29:B4,11")
	for _, mv := range []string{"29-25", "11-15", "22-19"} {
		p.MakeMove(mustMove(t, p, mv))
	}
	if p.QuietPlies() != 3 {
		t.Fatalf("quiet plies %d, want 3", p.QuietPlies())
	}
	p.MakeMove(mustMove(t, p, "15x22"))
	if p.QuietPlies() != 0 {
		t.Fatalf("quiet plies %d after a capture", p.QuietPlies())
	}

	if o := mustFEN(t, "B:WK1:B").Outcome(); o != NoMoves {
		t.Errorf("no black pieces: %v", o)
	}
	if s := NoMoves.String(); !strings.Contains(s, "no moves") {
		t.Errorf("NoMoves.String() = %q", s)
	}
}
