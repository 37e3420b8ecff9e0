package encoder

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"chessforge/datasets/fixture/playout"
	"chessforge/engine/board"
)

// fromFEN builds the planes SPEC §1 gives for a FEN, straight from the FEN
// text and without the board package, with the repetition value supplied.
func fromFEN(t *testing.T, fen string, rep float32) *Planes {
	t.Helper()
	var pl Planes
	f := strings.Fields(fen)
	if len(f) < 4 {
		t.Fatalf("bad test FEN %q", fen)
	}
	r, file := 7, 0
	for _, c := range f[0] {
		switch {
		case c == '/':
			r, file = r-1, 0
		case c >= '1' && c <= '8':
			file += int(c - '0')
		default:
			p := strings.IndexRune("PNBRQKpnbrqk", c)
			pl[p*64+r*8+file] = 1
			file++
		}
	}
	whole := func(p int, v float32) {
		for i := range 64 {
			pl[p*64+i] = v
		}
	}
	whole(12, rep)
	if f[1] == "w" {
		whole(13, 1)
	}
	count := func(set string) float32 {
		n := 0
		for _, c := range set {
			if strings.ContainsRune(f[2], c) {
				n++
			}
		}
		return float32(n) / 2
	}
	whole(14, count("KQ"))
	whole(15, count("kq"))
	if f[3] != "-" {
		pl[16*64+int(f[3][1]-'1')*8+int(f[3][0]-'a')] = 1
	}
	h := 0
	if len(f) > 4 {
		h, _ = strconv.Atoi(f[4])
	}
	whole(17, min(float32(h)/100, 1))
	return &pl
}

// comparePlanes reports every differing element by plane, rank and file.
func comparePlanes(t *testing.T, name string, got, want *Planes) {
	t.Helper()
	n := 0
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			if n < 10 {
				t.Errorf("%s: plane %d r=%d f=%d: got %v, want %v", name, i/64, i%64/8, i%8, got[i], want[i])
			}
			n++
		}
	}
	if n >= 10 {
		t.Errorf("%s: %d differing values in all", name, n)
	}
}

func encodeFEN(t *testing.T, fen string) *Planes {
	t.Helper()
	pos, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	var pl Planes
	EncodeTo(&pl, pos)
	return &pl
}

func play(t *testing.T, pos *board.Position, moves ...string) {
	t.Helper()
	for _, s := range moves {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		pos.MakeMove(m)
	}
}

// planeSum returns the sum of one plane's values.
func planeSum(pl *Planes, p int) float32 {
	var s float32
	for _, v := range pl[p*64 : (p+1)*64] {
		s += v
	}
	return s
}

func TestEncodeStartPositionMatchesSpecExample(t *testing.T) {
	pl := encodeFEN(t, board.StartFEN)
	for f := range 8 {
		if pl.At(0, 1, f) != 1 {
			t.Errorf("plane 0 (white pawns) r=1 f=%d = %v, want 1", f, pl.At(0, 1, f))
		}
	}
	if planeSum(pl, 0) != 8 {
		t.Errorf("plane 0 sums to %v, want 8", planeSum(pl, 0))
	}
	if pl.At(11, 7, 4) != 1 || planeSum(pl, 11) != 1 {
		t.Errorf("plane 11 (black king) should be 1.0 on e8 only")
	}
	for _, p := range []int{13, 14, 15} {
		if planeSum(pl, p) != 64 {
			t.Errorf("plane %d sums to %v, want all 1.0", p, planeSum(pl, p))
		}
	}
	for _, p := range []int{12, 16, 17} {
		if planeSum(pl, p) != 0 {
			t.Errorf("plane %d sums to %v, want all 0.0", p, planeSum(pl, p))
		}
	}
	comparePlanes(t, "start", pl, fromFEN(t, board.StartFEN, 0))
}

func TestEncodeHandBuiltPositions(t *testing.T) {
	tests := []struct {
		name, fen string
	}{
		{"after 1.e4, en passant e3", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"},
		{"white lost one right, black both", "r3k2r/8/8/8/8/8/8/R3K2R w K - 0 1"},
		{"one right each side", "r3k2r/8/8/8/8/8/8/R3K2R b Qk - 3 20"},
		{"no castling", "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"},
		{"halfmove 37", "8/8/4k3/8/8/3K4/8/7R w - - 37 80"},
		{"halfmove 100", "8/8/4k3/8/8/3K4/8/7R b - - 100 80"},
		{"halfmove 150 caps at 1", "8/8/4k3/8/8/3K4/8/7R w - - 150 80"},
		{"promotion pending", "3r4/4P3/8/8/8/2k5/8/4K3 w - - 0 60"},
		{"black en passant square d6", "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			comparePlanes(t, tc.name, encodeFEN(t, tc.fen), fromFEN(t, tc.fen, 0))
		})
	}
}

func TestEncodeAfterE4SetsEnPassantAndSide(t *testing.T) {
	pos := board.NewPosition()
	play(t, pos, "e2e4")
	var pl Planes
	EncodeTo(&pl, pos)
	if pl.At(PlaneEnPassant, 2, 4) != 1 || planeSum(&pl, PlaneEnPassant) != 1 {
		t.Errorf("plane 16 should be 1.0 on e3 only (sum %v)", planeSum(&pl, PlaneEnPassant))
	}
	if planeSum(&pl, PlaneSideToMove) != 0 {
		t.Errorf("plane 13 should be 0.0 with Black to move")
	}
	if pl.At(0, 3, 4) != 1 || pl.At(0, 1, 4) != 0 {
		t.Errorf("white pawn should stand on e4, not e2")
	}
	comparePlanes(t, "1.e4", &pl, fromFEN(t, pos.FEN(), 0))
}

func TestEncodeCastlingRightsLostByMoves(t *testing.T) {
	pos, err := board.ParseFEN("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	var pl Planes
	want := []struct {
		move         string
		white, black float32
	}{
		{"h1g1", 0.5, 1}, // white rook leaves h1: Q only
		{"e8d8", 0.5, 0}, // black king moves: none
		{"e1f1", 0, 0},   // white king moves: none
	}
	for _, w := range want {
		play(t, pos, w.move)
		EncodeTo(&pl, pos)
		for sq := range 64 {
			if pl[PlaneWhiteCastling*64+sq] != w.white || pl[PlaneBlackCastling*64+sq] != w.black {
				t.Fatalf("after %s: castling planes %v/%v, want %v/%v",
					w.move, pl[PlaneWhiteCastling*64+sq], pl[PlaneBlackCastling*64+sq], w.white, w.black)
			}
		}
	}
}

func TestEncodeRepetitionPlane(t *testing.T) {
	pos := board.NewPosition()
	var pl Planes
	check := func(want float32) {
		t.Helper()
		EncodeTo(&pl, pos)
		comparePlanes(t, pos.FEN(), &pl, fromFEN(t, pos.FEN(), want))
	}
	check(0)
	cycle := []string{"g1f3", "g8f6", "f3g1", "f6g8"}
	for i, m := range cycle {
		play(t, pos, m)
		if i < 3 {
			check(0) // every intermediate position is new the first time round
		}
	}
	check(0.5) // start position, once before
	play(t, pos, cycle[0])
	check(0.5) // after Nf3 the second time
	play(t, pos, cycle[1:]...)
	check(1) // start position, twice before
	play(t, pos, cycle...)
	check(1) // three times before still counts as twice or more
	play(t, pos, "e2e4")
	check(0) // a pawn move makes everything new
}

func TestHalfmoveValueIsFloat32Division(t *testing.T) {
	for _, h := range []int{0, 1, 3, 37, 99, 100, 101, 250} {
		want := float32(h) / 100
		if want > 1 {
			want = 1
		}
		if got := HalfmoveValue(h); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("HalfmoveValue(%d) = %v (%#x), want %v (%#x)", h, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	h := 37
	if got, want := encodeFEN(t, "8/8/4k3/8/8/3K4/8/7R w - - 37 80").At(PlaneHalfmove, 4, 4), float32(h)/100; math.Float32bits(got) != math.Float32bits(want) {
		t.Errorf("plane 17 at clock 37 = %v, want float32(37)/100 = %v", got, want)
	}
	if HalfmoveValue(0) != 0 || HalfmoveValue(100) != 1 || HalfmoveValue(1000) != 1 {
		t.Error("HalfmoveValue should be 0 at 0 and 1.0 from 100 on")
	}
}

func TestEncodePromotion(t *testing.T) {
	pos, err := board.ParseFEN("3r4/4P3/8/8/8/2k5/8/4K3 w - - 12 60")
	if err != nil {
		t.Fatal(err)
	}
	play(t, pos, "e7d8n") // under-promotion capturing the rook
	var pl Planes
	EncodeTo(&pl, pos)
	if planeSum(&pl, 0) != 0 || pl.At(1, 7, 3) != 1 || planeSum(&pl, 9) != 0 {
		t.Errorf("after e7xd8=N: want no white pawns, a white knight on d8 and no black rook")
	}
	if planeSum(&pl, PlaneHalfmove) != 0 {
		t.Errorf("a promotion resets the halfmove clock")
	}
	comparePlanes(t, "e7xd8=N", &pl, fromFEN(t, pos.FEN(), 0))
}

func TestEncodeRejectsWrongLength(t *testing.T) {
	pos := board.NewPosition()
	for _, n := range []int{0, InputSize - 1, InputSize + 1} {
		if err := Encode(make([]float32, n), pos); err == nil {
			t.Errorf("Encode into %d values: want an error", n)
		}
	}
	dst := make([]float32, InputSize)
	if err := Encode(dst, pos); err != nil {
		t.Fatal(err)
	}
	comparePlanes(t, "Encode slice", (*Planes)(dst), fromFEN(t, board.StartFEN, 0))
}

func TestEncodeRandomGamesMatchesFEN(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pl Planes
	for g := 0; g < 20; g++ {
		end, _, _ := playout.Play(rng, 200, 0.5)
		pos := board.NewPosition()
		for _, m := range end.Moves() {
			EncodeTo(&pl, pos)
			rep := float32(0)
			switch pos.RepetitionCount() {
			case 0:
			case 1:
				rep = 0.5
			default:
				rep = 1
			}
			comparePlanes(t, pos.FEN(), &pl, fromFEN(t, pos.FEN(), rep))
			pos.MakeMove(m)
		}
	}
}

func TestEncodeAllocatesNothing(t *testing.T) {
	pos := board.NewPosition()
	play(t, pos, "e2e4", "c7c5", "g1f3")
	dst := make([]float32, InputSize)
	if n := testing.AllocsPerRun(100, func() { _ = Encode(dst, pos) }); n != 0 {
		t.Errorf("Encode allocates %v times per call", n)
	}
}

func BenchmarkEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	var positions []*board.Position
	for len(positions) < 1000 {
		end, _, _ := playout.Play(rng, 120, 0.5)
		pos := board.NewPosition()
		for _, m := range end.Moves() {
			pos.MakeMove(m)
			positions = append(positions, pos.Clone())
		}
	}
	var pl Planes
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		EncodeTo(&pl, positions[i%len(positions)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}
