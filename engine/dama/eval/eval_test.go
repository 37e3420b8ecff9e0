package eval

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"chessforge/engine/dama"
)

// testPositions returns positions of real games: random playouts from the
// start (every ply kept) and from random endgame signatures, seeded.
func testPositions(t testing.TB, games int) []*dama.Position {
	t.Helper()
	rng := rand.New(rand.NewPCG(19, 3))
	var out []*dama.Position
	sigs := []string{"", "", "3Kv2K", "2K3Mv1K4M", "6Mv6M", "1K5Mv7M", "8Mv8M"}
	var l dama.MoveList
	for g := range games {
		p := dama.StartPosition()
		if s := sigs[g%len(sigs)]; s != "" {
			sig, err := dama.ParseSignature(s)
			if err != nil {
				t.Fatal(err)
			}
			if p, err = dama.RandomPosition(sig, rng); err != nil {
				t.Fatal(err)
			}
		}
		for ply := 0; ply < 200 && p.Outcome() == dama.Ongoing; ply++ {
			out = append(out, p.Copy())
			p.GenerateMoves(&l)
			p.MakeMove(l.At(rng.IntN(l.Len())))
		}
	}
	return out
}

// mirrored returns p with the colours exchanged: every piece turned half a
// turn (square n becomes 33−n) and given to the other side, and the other
// side to move.
func mirrored(t testing.TB, p *dama.Position) *dama.Position {
	t.Helper()
	list := func(men, kings uint32) string {
		var parts []string
		for s := range 32 {
			switch {
			case men>>s&1 != 0:
				parts = append(parts, fmt.Sprint(s+1))
			case kings>>s&1 != 0:
				parts = append(parts, fmt.Sprintf("K%d", s+1))
			}
		}
		return strings.Join(parts, ",")
	}
	side := "W"
	if p.SideToMove() == dama.White {
		side = "B"
	}
	fen := fmt.Sprintf("%s:W%s:B%s", side,
		list(bits.Reverse32(p.Men(dama.Black)), bits.Reverse32(p.Kings(dama.Black))),
		list(bits.Reverse32(p.Men(dama.White)), bits.Reverse32(p.Kings(dama.White))))
	m, err := dama.ParseFEN(fen)
	if err != nil {
		t.Fatalf("mirror of %s: %v", p.FEN(), err)
	}
	return m
}

func TestEvaluateIsColourSymmetric(t *testing.T) {
	ps := testPositions(t, 40)
	for _, p := range ps {
		m := mirrored(t, p)
		if a, b := Evaluate(p), Evaluate(m); a != b {
			t.Fatalf("%s scores %d for its side to move, its colour mirror %s scores %d", p.FEN(), a, m.FEN(), b)
		}
	}
	t.Logf("%d positions", len(ps))
}

// TestTraceEqualsEvaluate holds the traced form, evaluated with the weight
// vector, equal to Evaluate (truncated, from the side to move) on many
// positions, for the compiled-in weights and for perturbed ones.
func TestTraceEqualsEvaluate(t *testing.T) {
	ps := testPositions(t, 40)
	rng := rand.New(rand.NewPCG(5, 5))
	v0 := Default().Vector()
	v1 := append([]float64(nil), v0...)
	for j := range v1 {
		v1[j] += float64(rng.IntN(61) - 30)
	}
	w1, err := FromVector(v1)
	if err != nil {
		t.Fatal(err)
	}
	var tr Tracer
	features := map[int32]bool{}
	for _, set := range []struct {
		w Weights
		v []float64
	}{{Default(), v0}, {w1, v1}} {
		for _, p := range ps {
			c := tr.Trace(p, set.w)
			x := c.Eval(set.v)
			want := int(x) // Evaluate truncates toward zero, as int() does
			if r := math.Round(x); math.Abs(x-r) < 1e-9 {
				want = int(r)
			}
			if p.SideToMove() == dama.Black {
				want = -want
			}
			if got := set.w.Evaluate(p); got != want || c.Value != got*sign(p) {
				t.Fatalf("%s: Evaluate %d, trace %v (traced run %d)", p.FEN(), got, x, c.Value)
			}
			for _, e := range c.Linear {
				features[e.Index] = true
			}
		}
	}
	if len(features) < NumFeatures*3/4 {
		t.Errorf("only %d of %d features occur in the test positions", len(features), NumFeatures)
	}
}

func sign(p *dama.Position) int {
	if p.SideToMove() == dama.Black {
		return -1
	}
	return 1
}

func TestEvaluateAllocatesNothing(t *testing.T) {
	ps := testPositions(t, 2)
	w := Default()
	if n := testing.AllocsPerRun(100, func() {
		for _, p := range ps {
			w.Evaluate(p)
		}
	}); n != 0 {
		t.Errorf("Evaluate allocates %v times per run", n)
	}
}

// TestEvaluateHandSetFacts checks a few things any sensible weights say.
func TestEvaluateHandSetFacts(t *testing.T) {
	for _, tc := range []struct {
		better, worse string
		why           string
	}{
		{"W:W21-32:B1-11", "W:W21-31:B1-12", "a man up"},
		{"W:WK18:B3", "W:W18:B3", "a king is worth more than a man"},
		{"W:W6,29:B28", "W:W26,29:B28", "a man near crowning is worth more"},
	} {
		b, err := dama.ParseFEN(tc.better)
		if err != nil {
			t.Fatal(err)
		}
		w, err := dama.ParseFEN(tc.worse)
		if err != nil {
			t.Fatal(err)
		}
		if vb, vw := Evaluate(b), Evaluate(w); vb <= vw {
			t.Errorf("%s: %s scores %d, %s %d", tc.why, tc.better, vb, tc.worse, vw)
		}
	}
	// A king is worth more than a man on a full board and on a bare one.
	// (Hand-set, 1.7 and 2.1 men; tuned on self-play, anything above one.)
	for _, p := range []struct {
		phase string
		s     []int32
	}{{"full", Default().t.mg[:]}, {"bare", Default().t.eg[:]}} {
		if man, king := p.s[fMaterial], p.s[fMaterial+1]; king <= man {
			t.Errorf("%s board: king %d centi-men, man %d", p.phase, king, man)
		}
	}
}

func TestGeneratedFileReproducesByteForByte(t *testing.T) {
	src, err := Generate(Default().Vector(), CurrentProvenance())
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("weights_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(src) != string(file) {
		t.Errorf("weights_gen.go differs from what Generate writes for its weights: run go generate ./engine/dama/eval/")
	}
	if CurrentProvenance().Layout != LayoutFingerprint() {
		t.Errorf("weights_gen.go was written for layout %s, the groups are %s", CurrentProvenance().Layout, LayoutFingerprint())
	}
}

func TestSelectAndNames(t *testing.T) {
	mask, err := Select("men,tempo.eg")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for j, m := range mask {
		if m {
			names = append(names, ParamName(j))
		}
	}
	joined := strings.Join(names, " ")
	for _, want := range []string{"man_row[row3].mg", "back_rank[x..x].eg", "tempo.eg", "man_crowning.mg"} {
		if !strings.Contains(joined, want) {
			t.Errorf("selection lacks %s: %s", want, joined)
		}
	}
	if strings.Contains(joined, "tempo.mg") || strings.Contains(joined, "material") {
		t.Errorf("selection has more than asked: %s", joined)
	}
	if _, err := Select("kingsafety"); err == nil || !strings.Contains(err.Error(), "families: material, men") {
		t.Errorf("unknown family: %v", err)
	}
	if _, err := FromVector(make([]float64, NumParams-1)); err == nil {
		t.Error("a short vector is not an error")
	}
}

func BenchmarkEvaluate(b *testing.B) {
	ps := testPositions(b, 4)
	w := Default()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		w.Evaluate(ps[i%len(ps)])
	}
}
