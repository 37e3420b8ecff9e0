package encoder

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"chessforge/engine/dama"
)

// damaGridOf is the grid index of square number n (1..32), worked out here
// from the board's description rather than from package dama: squares
// 1-4 on rank 8 at files a, c, e, g; 5-8 on rank 7 at b, d, f, h; and so
// on down to 29-32 on rank 1 at b, d, f, h.
func damaGridOf(n int) int {
	row := (n - 1) / 4 // 0 = rank 8
	f := 2 * ((n - 1) % 4)
	if row%2 == 1 {
		f++
	}
	return (7-row)*8 + f
}

// damaFromFEN builds the draughts planes for a PDN FEN straight from its
// text, with the repetition and quiet-ply values supplied (the FEN holds
// neither).
func damaFromFEN(t *testing.T, fen string, rep float32, quiet int) *[DamaNumPlanes * PlaneSize]float32 {
	t.Helper()
	var pl [DamaNumPlanes * PlaneSize]float32
	f := strings.Split(fen, ":")
	if len(f) != 3 {
		t.Fatalf("bad test FEN %q", fen)
	}
	for _, side := range f[1:] {
		base := 0 // White's planes
		if side[0] == 'B' {
			base = 2
		}
		for _, item := range strings.Split(side[1:], ",") {
			if item == "" {
				continue
			}
			plane := base
			if strings.HasPrefix(item, "K") {
				plane, item = base+1, item[1:]
			}
			lo, hi, isRange := strings.Cut(item, "-")
			a, err1 := strconv.Atoi(lo)
			b := a
			var err2 error
			if isRange {
				b, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil {
				t.Fatalf("bad square list %q in %q", item, fen)
			}
			for n := a; n <= b; n++ {
				pl[plane*64+damaGridOf(n)] = 1
			}
		}
	}
	whole := func(p int, v float32) {
		for i := range 64 {
			pl[p*64+i] = v
		}
	}
	whole(DamaPlaneRepetition, rep)
	if f[0] == "W" {
		whole(DamaPlaneSideToMove, 1)
	}
	whole(DamaPlaneQuiet, min(float32(quiet)/80, 1))
	return &pl
}

func encodeDamaPos(t *testing.T, pos *dama.Position) *[DamaNumPlanes * PlaneSize]float32 {
	t.Helper()
	var pl [DamaNumPlanes * PlaneSize]float32
	if err := EncodeDama(pl[:], pos); err != nil {
		t.Fatal(err)
	}
	return &pl
}

func compareDama(t *testing.T, name string, got, want *[DamaNumPlanes * PlaneSize]float32) {
	t.Helper()
	n := 0
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			if n < 10 {
				t.Errorf("%s: plane %d (%s) r=%d f=%d: got %v, want %v", name, i/64, Dama.PlaneNames[i/64], i%64/8, i%8, got[i], want[i])
			}
			n++
		}
	}
}

func TestDamaSquareMatchesTheBoardDescription(t *testing.T) {
	for n := 1; n <= 32; n++ {
		g := DamaSquare(dama.SquareAt(n))
		if g != damaGridOf(n) {
			t.Errorf("square %d: grid %d, want %d", n, g, damaGridOf(n))
		}
		if (g/8+g%8)%2 != 1 {
			t.Errorf("square %d: grid %d (r=%d f=%d) is a light square", n, g, g/8, g%8)
		}
	}
	// The corners named in docs/format.md.
	for _, c := range []struct{ n, r, f int }{{1, 7, 0}, {4, 7, 6}, {5, 6, 1}, {29, 0, 1}, {32, 0, 7}} {
		if g := DamaSquare(dama.SquareAt(c.n)); g != c.r*8+c.f {
			t.Errorf("square %d: r=%d f=%d, want r=%d f=%d", c.n, g/8, g%8, c.r, c.f)
		}
	}
}

func TestEncodeDamaStartPosition(t *testing.T) {
	pl := encodeDamaPos(t, dama.StartPosition())
	compareDama(t, "start", pl, damaFromFEN(t, "W:W21-32:B1-12", 0, 0))
	// White's men fill ranks 1-3, Black's ranks 6-8, on the dark squares.
	for p, ranks := range map[int][]int{DamaPlaneWhiteMen: {0, 1, 2}, DamaPlaneBlackMen: {5, 6, 7}} {
		sum := float32(0)
		for _, r := range ranks {
			for f := range 8 {
				if (r+f)%2 == 1 && pl[p*64+r*8+f] != 1 {
					t.Errorf("plane %d: r=%d f=%d empty", p, r, f)
				}
			}
		}
		for _, v := range pl[p*64 : (p+1)*64] {
			sum += v
		}
		if sum != 12 {
			t.Errorf("plane %d holds %v men, want 12", p, sum)
		}
	}
}

func TestEncodeDamaKingsSideAndQuietPlies(t *testing.T) {
	const fen = "W:WK29,32:B1,K4"
	pos, err := dama.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	compareDama(t, "kings", encodeDamaPos(t, pos), damaFromFEN(t, fen, 0, 0))
	// King moves without capture: the quiet plane counts them, in 80ths.
	moves := []string{"29-25", "4-8", "25-29", "8-4"}
	for i, mv := range moves {
		m, err := pos.ParseMove(mv)
		if err != nil {
			t.Fatal(err)
		}
		pos.MakeMove(m)
		rep := float32(0)
		if i == 3 {
			rep = 0.5 // back at the start position, which occurred once before
		}
		compareDama(t, "after "+mv, encodeDamaPos(t, pos), damaFromFEN(t, pos.FEN(), rep, i+1))
	}
	for _, mv := range moves {
		m, _ := pos.ParseMove(mv)
		pos.MakeMove(m)
	}
	compareDama(t, "twice repeated", encodeDamaPos(t, pos), damaFromFEN(t, pos.FEN(), 1, 8))
}

func TestEncodeDamaRejectsWrongLength(t *testing.T) {
	for _, n := range []int{0, 447, 449, InputSize} {
		if err := EncodeDama(make([]float32, n), dama.StartPosition()); err == nil {
			t.Errorf("a buffer of %d values: no error", n)
		}
	}
}

// playDama plays a random game of at most maxPlies from the start,
// calling fn before each move with the position and the legal moves.
func playDama(rng *rand.Rand, maxPlies int, fn func(pos *dama.Position, moves []dama.Move)) {
	pos := dama.StartPosition()
	var list dama.MoveList
	for range maxPlies {
		if pos.Outcome() != dama.Ongoing {
			return
		}
		pos.GenerateMoves(&list)
		fn(pos, list.Slice())
		pos.MakeMove(list.At(rng.IntN(list.Len())))
	}
}

func TestEncodeDamaRandomGamesMatchFEN(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 0
	for range 60 {
		playDama(rng, 300, func(pos *dama.Position, _ []dama.Move) {
			rep := float32(min(pos.Repetitions(), 2)) / 2
			compareDama(t, pos.FEN(), encodeDamaPos(t, pos), damaFromFEN(t, pos.FEN(), rep, pos.QuietPlies()))
			n++
		})
	}
	if n < 1000 {
		t.Errorf("only %d positions", n)
	}
}

func TestEncodeDamaAllocatesNothing(t *testing.T) {
	pos := dama.StartPosition()
	var pl [DamaNumPlanes * PlaneSize]float32
	if a := testing.AllocsPerRun(100, func() { EncodeDama(pl[:], pos) }); a != 0 {
		t.Errorf("EncodeDama allocates %v times", a)
	}
}

func TestDamaPolicyIndexPinnedMoves(t *testing.T) {
	for _, c := range []struct {
		fen, move string
		want      int
	}{
		// 22 is d3 (grid 19), 18 is c4: NW, type 3.
		{"W:W21-32:B1-12", "22-18", 3*64 + 19},
		// 21 is b3 (grid 17) to 17, a4: NW, type 3; to 18, c4: NE, type 0.
		{"W:W21-32:B1-12", "21-17", 3*64 + 17},
		{"W:W21-32:B1-12", "21-18", 0*64 + 17},
		// Black's man on 10 (c6, grid 42) to 13 (b5): SW, type 2; to 14 (d5): SE, type 1.
		{"B:W21-32:B1-12", "10-13", 2*64 + 42},
		{"B:W21-32:B1-12", "10-14", 1*64 + 42},
		// White 22 (d3) takes 18 (c4) and lands on 13 (b5): first jump NW
		// (dir 3), offset (−2, +2): type 4 + 3*49 + 4*7 + 2 = 181.
		{"W:W22:B18", "22x13", 181*64 + 19},
		// A white king on 22 takes 18 and 10 (c4, c6) by 13 to 6 (d7, grid
		// 51): first jump NW, offset (0, +4): type 4 + 3*49 + 5*7 + 3 = 189.
		{"W:WK22:B10,18", "22x13x6", 189*64 + 19},
	} {
		pos, err := dama.ParseFEN(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		m, err := pos.ParseMove(c.move)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DamaPolicyIndex(m)
		if err != nil || got != c.want {
			t.Errorf("%s in %s: index %d (%v), want %d (type %d from %d)", c.move, c.fen, got, err, c.want, c.want/64, c.want%64)
		}
		back, err := DecodeDamaMove(pos, got)
		if err != nil || back != m {
			t.Errorf("%s: index %d decodes to %v (%v)", c.move, got, back, err)
		}
	}
}

func TestDamaPolicyRejectsTheNullMoveAndBadIndices(t *testing.T) {
	if _, err := DamaPolicyIndex(dama.NullMove); err == nil {
		t.Error("the null move has an index")
	}
	pos := dama.StartPosition()
	for _, i := range []int{-1, Dama.PolicySize(), 0, 3*64 + 18} {
		if m, err := DecodeDamaMove(pos, i); err == nil {
			t.Errorf("index %d decodes to %v in the start position", i, m)
		}
	}
}

// TestEveryDamaMoveHasAnIndexThatDecodesBack plays random games and checks
// every legal move: its index is in range, starts on its square, has the
// type its first step and last landing give (worked out here from the
// notation), and decodes to a legal move with the same index; moves that
// share an index are captures with the same start, first landing and end.
func TestEveryDamaMoveHasAnIndexThatDecodesBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	moves, shared := 0, 0
	for range 150 {
		playDama(rng, 300, func(pos *dama.Position, legal []dama.Move) {
			byIndex := map[int][]dama.Move{}
			for _, m := range legal {
				i, err := DamaPolicyIndex(m)
				if err != nil {
					t.Fatalf("%v in %s: %v", m, pos.FEN(), err)
				}
				if i < 0 || i >= Dama.PolicySize() || i%64 != damaGridOf(m.From().Number()) {
					t.Fatalf("%v in %s: index %d", m, pos.FEN(), i)
				}
				if want := typeFromNotation(t, m.String()); i/64 != want {
					t.Fatalf("%v in %s: type %d, want %d", m, pos.FEN(), i/64, want)
				}
				byIndex[i] = append(byIndex[i], m)
				moves++
			}
			for i, ms := range byIndex {
				d, err := DecodeDamaMove(pos, i)
				if err != nil {
					t.Fatalf("index %d in %s: %v", i, pos.FEN(), err)
				}
				if j, _ := DamaPolicyIndex(d); j != i {
					t.Fatalf("index %d in %s decodes to %v, index %d", i, pos.FEN(), d, j)
				}
				if len(ms) > 1 {
					shared += len(ms)
					for _, m := range ms[1:] {
						if !m.IsCapture() || m.From() != ms[0].From() || m.Landing(0) != ms[0].Landing(0) || m.To() != ms[0].To() {
							t.Fatalf("%v and %v share index %d in %s", ms[0], m, i, pos.FEN())
						}
					}
					if !DamaIndexShared(pos, ms[0]) {
						t.Errorf("DamaIndexShared(%v) is false in %s", ms[0], pos.FEN())
					}
				}
			}
		})
	}
	t.Logf("%d legal moves, %d of them sharing an index", moves, shared)
	if moves < 10000 {
		t.Errorf("only %d moves", moves)
	}
}

// typeFromNotation works out a move's policy type from its notation
// alone: "22-18" is a step, "27x18x9" a capture.
func typeFromNotation(t *testing.T, text string) int {
	sep := "-"
	if strings.Contains(text, "x") {
		sep = "x"
	}
	var grid []int
	for _, s := range strings.Split(text, sep) {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("move %q", text)
		}
		grid = append(grid, damaGridOf(n))
	}
	df, dr := grid[1]%8-grid[0]%8, grid[1]/8-grid[0]/8
	dirs := map[[2]int]int{{1, 1}: 0, {1, -1}: 1, {-1, -1}: 2, {-1, 1}: 3}
	if sep == "-" {
		return dirs[[2]int{df, dr}]
	}
	last := grid[len(grid)-1]
	ef, er := last%8-grid[0]%8, last/8-grid[0]/8
	return 4 + dirs[[2]int{df / 2, dr / 2}]*49 + (er/2+3)*7 + ef/2 + 3
}

func BenchmarkEncodeDama(b *testing.B) {
	var positions []*dama.Position
	playDama(rand.New(rand.NewPCG(1, 2)), 200, func(pos *dama.Position, _ []dama.Move) {
		positions = append(positions, pos.Copy())
	})
	var pl [DamaNumPlanes * PlaneSize]float32
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		EncodeDama(pl[:], positions[i%len(positions)])
	}
}

// TestDamaSharedIndexDecodesToTheFirstInNotationOrder builds the one kind
// of position where two legal moves share an index: a man on 29 takes 26
// to 22, then goes round the diamond of 18, 19, 10 and 11 either way to 6,
// three pieces by either route. Both routes have one index; it decodes to
// the route first in notation order.
func TestDamaSharedIndexDecodesToTheFirstInNotationOrder(t *testing.T) {
	pos, err := dama.ParseFEN("W:W29:B10,11,18,19,26")
	if err != nil {
		t.Fatal(err)
	}
	var list dama.MoveList
	pos.GenerateMoves(&list)
	var names []string
	for _, m := range list.Slice() {
		names = append(names, m.String())
	}
	if strings.Join(names, " ") != "29x22x15x6 29x22x13x6" && strings.Join(names, " ") != "29x22x13x6 29x22x15x6" {
		t.Fatalf("legal moves %v, want the two routes 29x22x13x6 and 29x22x15x6", names)
	}
	a, _ := DamaPolicyIndex(list.At(0))
	b, _ := DamaPolicyIndex(list.At(1))
	// From 29 (b1, grid 1), first jump NE, last landing 6 (d7, grid 51):
	// offset (+2, +6), type 4 + 0*49 + 6*7 + 4 = 50.
	if a != b || a != 50*64+1 {
		t.Fatalf("indices %d and %d, want both %d", a, b, 50*64+1)
	}
	if !DamaIndexShared(pos, list.At(0)) {
		t.Error("DamaIndexShared is false")
	}
	m, err := DecodeDamaMove(pos, a)
	if err != nil || m.String() != "29x22x13x6" {
		t.Errorf("index %d decodes to %v (%v), want 29x22x13x6", a, m, err)
	}
}
