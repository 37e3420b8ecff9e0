package eval

import (
	"math"
	"testing"

	"chessforge/engine/board"
)

func TestColourSymmetryMirroredPositionScoresTheSameForTheSideToMove(t *testing.T) {
	ps := testPositions(t)
	if len(ps) < 3000 {
		t.Fatalf("only %d test positions", len(ps))
	}
	for _, p := range ps {
		q := mustFEN(t, mirrorFEN(t, p.FEN()))
		// Side to move's view is the same; White's view is negated.
		if a, b := Evaluate(p), Evaluate(q); a != b {
			t.Fatalf("%s scores %d, mirrored %s scores %d (White's view %d and %d)", p.FEN(), a, q.FEN(), b, a, -b)
		}
	}
	t.Logf("%d positions", len(ps))
}

func TestEvaluateEqualsWeightsDotCoefficients(t *testing.T) {
	w := Weights()
	ps := testPositions(t)
	var tr Tracer
	safety, scaled := 0, 0
	for _, p := range ps {
		c := tr.Trace(p)
		v := c.Eval(w)
		got := Evaluate(p)
		white := got
		if p.SideToMove() == board.Black {
			white = -got
		}
		if c.Value != white {
			t.Fatalf("%s: traced run returned %d, Evaluate %d (White's view)", p.FEN(), c.Value, white)
		}
		// Evaluate truncates the exact value toward zero.
		if math.Abs(v-float64(white)) >= 1 || (v > 0 && float64(white) > v+1e-9) || (v < 0 && float64(white) < v-1e-9) {
			t.Fatalf("%s: Evaluate %d (White's view) but weights·coefficients = %.4f\ncoefs %+v", p.FEN(), white, v, c)
		}
		if len(c.Safety[0])+len(c.Safety[1]) > 0 {
			safety++
		}
		if c.Scale[0] != ScaleNormal || c.Scale[1] != ScaleNormal {
			scaled++
		}
	}
	t.Logf("%d positions, %d with king danger, %d with a drawish scale", len(ps), safety, scaled)
	if safety == 0 || scaled == 0 {
		t.Errorf("the corpus does not exercise the non-linear terms (king danger %d, scaling %d)", safety, scaled)
	}
}

func TestGradientMatchesNumericDifferences(t *testing.T) {
	w := Weights()
	ps := testPositions(t)
	checked := 0
	for _, p := range ps[:3000] {
		c := Trace(p)
		if len(c.Safety[0])+len(c.Safety[1]) == 0 || c.Draw {
			continue
		}
		grad := make([]float64, NumParams)
		c.Gradient(w, 1, grad)
		idx := append([]Coef{}, c.Linear...)
		idx = append(idx, c.Safety[0]...)
		idx = append(idx, c.Safety[1]...)
		for _, k := range idx {
			for _, j := range []int{int(k.Index), NumFeatures + int(k.Index)} {
				const h = 1e-3
				old := w[j]
				w[j] = old + h
				up := c.Eval(w)
				w[j] = old - h
				down := c.Eval(w)
				w[j] = old
				num := (up - down) / (2 * h)
				if math.Abs(num-grad[j]) > 1e-4*math.Max(1, math.Abs(num)) {
					t.Fatalf("%s: d/d %s: analytic %.6f, numeric %.6f", p.FEN(), ParamName(j), grad[j], num)
				}
			}
		}
		if checked++; checked == 50 {
			break
		}
	}
	if checked == 0 {
		t.Fatal("no position with king danger to check")
	}
}

func TestDeadDrawsScoreZero(t *testing.T) {
	for _, fen := range []string{
		"8/8/4k3/8/8/3K4/8/8 w - - 0 1",       // KK
		"8/8/4k3/8/8/3K4/8/6N1 w - - 0 1",     // KNK
		"8/8/4k3/8/8/3K4/8/5B2 b - - 0 1",     // KBK
		"8/2b5/4k3/8/8/3K4/8/4B3 w - - 0 1",   // KBKB, bishops on one colour
		"2b5/8/4k3/8/8/3K4/8/1B1B4 w - - 0 1", // three bishops on one colour
		"8/8/4k3/8/8/3K4/8/6n1 w - - 0 1",     // KKN
	} {
		p := mustFEN(t, fen)
		if v := Evaluate(p); v != 0 {
			t.Errorf("%s: %d, want 0", fen, v)
		}
		if c := Trace(p); !c.Draw || c.Eval(Weights()) != 0 {
			t.Errorf("%s: trace Draw=%v Eval=%v, want a draw scoring 0", fen, c.Draw, c.Eval(Weights()))
		}
	}
}

func TestDrawishEndingsAreScaledDown(t *testing.T) {
	for _, tc := range []struct {
		name, fen string
		max       int
	}{
		{"rook against bishop", "8/8/4k3/8/2b5/3K4/8/R7 w - - 0 1", 120},
		{"rook against knight", "8/8/4k3/8/2n5/3K4/8/R7 w - - 0 1", 120},
		{"bishop and knight against bishop", "8/8/4k3/8/2b5/3K4/8/1N3B2 w - - 0 1", 60},
		{"knight up, no pawns", "8/8/4k3/8/8/3K4/8/1N3N2 w - - 0 1", 60},
		{"opposite bishops alone", "8/8/4k3/8/8/3K4/8/4B1b1 w - - 0 1", 20},
		{"opposite bishops, pawn up", "8/5p2/4k3/4p3/4P3/3KP3/5P2/4B2b w - - 0 1", 80},
	} {
		if v := Evaluate(mustFEN(t, tc.fen)); v > tc.max || v < -tc.max {
			t.Errorf("%s (%s): %d, want within ±%d", tc.name, tc.fen, v, tc.max)
		}
	}
	// Same material without the drawish feature keeps its edge.
	if v := Evaluate(mustFEN(t, "8/5p2/4k3/4p3/4P3/3KP3/5P2/4B1b1 w - - 0 1")); v < 60 {
		t.Errorf("same-coloured bishops, pawn up: %d, want a clear plus", v)
	}
	if v := Evaluate(mustFEN(t, "8/8/4k3/8/8/3K4/8/R6q w - - 0 1")); v > -300 {
		t.Errorf("queen against rook (Black): %d for White, want a clear minus", v)
	}
}

func TestLoneKingIsDrivenToTheEdgeAndToTheWinningKing(t *testing.T) {
	for _, tc := range []struct{ name, better, worse string }{
		{"KRK edge", "7k/8/8/8/8/3K4/8/R7 w - - 0 1", "8/8/8/4k3/8/3K4/8/R7 w - - 0 1"},
		{"KQK edge", "k7/8/8/8/8/3K4/8/1Q6 w - - 0 1", "8/8/3k4/8/8/3K4/8/1Q6 w - - 0 1"},
		{"KRK kings close", "7k/8/5K2/8/8/8/8/R7 w - - 0 1", "7k/8/8/8/8/1K6/8/R7 w - - 0 1"},
		{"KBNK right corner", "7k/8/5K2/8/8/8/8/2B1N3 w - - 0 1", "k7/8/2K5/8/8/8/8/2B1N3 w - - 0 1"},
	} {
		b, w := Evaluate(mustFEN(t, tc.better)), Evaluate(mustFEN(t, tc.worse))
		if b <= w {
			t.Errorf("%s: %s scores %d, not above %s at %d", tc.name, tc.better, b, tc.worse, w)
		}
	}
}

// coef returns White's count minus Black's of the feature at offset+k.
func coef(c *Coefs, f int) int32 {
	for _, t := range c.Linear {
		if int(t.Index) == f {
			return t.N
		}
	}
	return 0
}

func TestTermsFireOnHandBuiltPositions(t *testing.T) {
	for _, tc := range []struct {
		name string
		fen  string
		f    int
		want int32
	}{
		{"two isolated pawns", "4k3/8/8/8/8/8/P1P5/4K3 w - - 0 1", fPawnIsolated, 2},
		{"doubled pawn", "4k3/8/8/8/8/2P5/2P5/4K3 w - - 0 1", fPawnDoubled, 1},
		{"backward pawn", "4k3/8/8/2p5/4P3/3P4/8/4K3 w - - 0 1", fPawnBackward, 1},
		{"phalanx on the fourth", "4k3/8/8/8/3PP3/8/8/4K3 w - - 0 1", fPawnConnected + 3, 2},
		{"defended pawn on the fifth", "4k3/8/8/3P4/4P3/8/8/4K3 w - - 0 1", fPawnConnected + 4, 1},
		{"passed pawn on the sixth", "4k3/8/3P4/8/8/8/8/4K3 w - - 0 1", fPassedRank + 5, 1},
		{"black passed pawn on its third", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", fPassedRank + 2, 0},
		{"black passed pawn on its sixth", "4k3/8/8/8/8/3p4/8/K7 w - - 0 1", fPassedRank + 5, -1},
		{"free passed pawn", "7k/8/3P4/8/8/8/8/4K3 w - - 0 1", fPassedFree + 5, 1},
		{"guarded path is not free", "4k3/8/3P4/8/8/8/8/4K3 w - - 0 1", fPassedFree + 5, 0},
		{"unstoppable passer", "7k/8/8/8/8/P7/8/4K3 b - - 0 1", fPassedUnstoppable, 1},
		{"catchable passer", "4k3/8/8/8/8/P7/8/4K3 b - - 0 1", fPassedUnstoppable, 0},
		{"knight in the centre reaches 8 squares", "4k3/p7/8/8/4N3/8/P7/4K3 w - - 0 1", fMobKnight + 8, 1},
		{"knight in the corner reaches 2", "4k3/p7/8/8/8/8/P7/N3K3 w - - 0 1", fMobKnight + 2, 1},
		{"squares guarded by pawns are not mobility", "4k3/8/8/2p1p3/8/8/8/N3K3 w - - 0 1", fMobKnight + 2, 1},
		{"bishop pair", "4k3/p7/8/8/8/8/P7/2B1KB2 w - - 0 1", fBishopPair, 1},
		{"rook on an open file", "6k1/pppp1ppp/8/8/8/8/PPPP1PPP/4RK2 w - - 0 1", fRookOpen, 1},
		{"rook on a semi-open file", "6k1/pppppppp/8/8/8/8/PPPP1PPP/4RK2 w - - 0 1", fRookSemiOpen, 1},
		{"rook on the seventh", "4k3/R7/8/8/8/8/8/4K3 w - - 0 1", fRookSeventh, 1},
		{"knight outpost", "4k3/8/8/3N4/4P3/8/8/4K3 w - - 0 1", fKnightOutpost, 1},
		{"outpost a pawn can chase is none", "4k3/2p5/8/3N4/4P3/8/8/4K3 w - - 0 1", fKnightOutpost, 0},
		{"pawn attacks a knight", "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", fThreatPawn, 1},
		{"knight attacks a rook", "4k3/8/8/3r4/8/4N3/8/4K3 w - - 0 1", fThreatMinor + 3, 1},
		{"rook attacks a queen", "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", fThreatRook + 4, 1},
		{"hanging knight", "4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1", fHanging, 1},
		{"safe pawn push threatens a knight", "4k3/8/8/3n4/8/4P3/8/4K3 w - - 0 1", fThreatPawnPush, 1},
		{"white shelter on f2 g2 h2", "7k/8/8/8/8/8/5PPP/6K1 w - - 0 1", fKingShelter + 1*8 + 1, 1},
		{"open file by the king", "1k6/ppp5/8/8/8/8/5P1P/6K1 w - - 0 1", fKingOpenFile, 1},
		{"pawn storm on the third", "6k1/8/8/8/8/6p1/5PP1/6K1 w - - 0 1", fKingStorm + 1*8 + 2, 1},
		{"tempo for White", board.StartFEN, fTempo, 1},
		{"tempo for Black", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", fTempo, -1},
		{"lone king on the edge", "7k/8/8/8/8/3K4/8/R7 w - - 0 1", fMateEdge, 6},
	} {
		c := Trace(mustFEN(t, tc.fen))
		if got := coef(c, tc.f); got != tc.want {
			t.Errorf("%s (%s): %s = %d, want %d", tc.name, tc.fen, featureName(tc.f), got, tc.want)
		}
	}
}

func featureName(f int) string { return ParamName(f)[:len(ParamName(f))-3] }

func TestKingDangerTracesTheAttack(t *testing.T) {
	// Queen and knight bearing on the castled black king.
	c := Trace(mustFEN(t, "r1b2rk1/ppp2ppp/2n5/3q2N1/8/3B3Q/PPP2PPP/R1B2RK1 w - - 0 1"))
	if len(c.Safety[1]) == 0 {
		t.Fatalf("no king danger traced against the black king: %+v", c)
	}
	n := map[int]int32{}
	for _, k := range c.Safety[1] {
		n[int(k.Index)] = k.N
	}
	if n[fKSAttackers+0] != 1 || n[fKSAttackers+3] != 1 || n[fKSBase] != 1 {
		t.Errorf("attackers knight %d queen %d base %d, want 1, 1, 1 (%+v)", n[fKSAttackers], n[fKSAttackers+3], n[fKSBase], c.Safety[1])
	}
	// Take the attackers away and the danger is gone.
	c = Trace(mustFEN(t, "r1b2rk1/ppp2ppp/2n5/3q4/8/8/PPP2PPP/R4RK1 w - - 0 1"))
	if len(c.Safety[1]) != 0 {
		t.Errorf("king danger without attackers: %+v", c.Safety[1])
	}
}

func TestTermsMoveTheScoreTheRightWay(t *testing.T) {
	for _, tc := range []struct{ name, better, worse string }{
		{"passed pawn on the sixth beats the third", "4k3/8/3P4/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/3P4/8/4K3 w - - 0 1"},
		{"connected pawns beat isolated ones", "4k3/8/8/8/8/8/PP6/4K3 w - - 0 1", "4k3/8/8/8/8/8/P1P5/4K3 w - - 0 1"},
		{"undoubled beats doubled", "4k3/8/8/8/8/8/2PP4/4K3 w - - 0 1", "4k3/8/8/8/8/2P5/2P5/4K3 w - - 0 1"},
		{"free knight beats cornered knight", "4k3/pp6/8/8/4N3/8/PP6/4K3 w - - 0 1", "4k3/pp6/8/8/8/8/PP6/N3K3 w - - 0 1"},
		{"free rook beats boxed rook", "4k3/p6p/8/8/8/8/PP5P/3RK3 w - - 0 1", "4k3/p6p/8/8/8/8/PP5P/R3K3 w - - 0 1"},
		{"bishop pair beats bishop and knight", "4k3/p7/8/8/8/8/P7/2B1KB2 w - - 0 1", "4k3/p7/8/8/8/8/P7/2B1KN2 w - - 0 1"},
		{"rook on the open file", "6k1/pppp1ppp/8/8/8/8/PPPP1PPP/4RK2 w - - 0 1", "6k1/pppp1ppp/8/8/8/8/PPPP1PPP/3R1K2 w - - 0 1"},
		{"intact king shield", "r2q1rk1/5ppp/8/8/8/8/5PPP/R2Q1RK1 w - - 0 1", "r2q1rk1/5ppp/8/8/6PP/8/5P2/R2Q1RK1 w - - 0 1"},
		{"rook on the seventh", "6k1/R4ppp/8/8/8/8/5PPP/6K1 w - - 0 1", "6k1/5ppp/8/8/8/8/R4PPP/6K1 w - - 0 1"},
	} {
		b, w := Evaluate(mustFEN(t, tc.better)), Evaluate(mustFEN(t, tc.worse))
		if b <= w {
			t.Errorf("%s: %s scores %d, not above %s at %d", tc.name, tc.better, b, tc.worse, w)
		}
	}
}

func TestEvaluateStaysInBounds(t *testing.T) {
	for _, p := range testPositions(t) {
		if v := Evaluate(p); v > MaxEval || v < -MaxEval {
			t.Fatalf("%s: %d out of ±%d", p.FEN(), v, MaxEval)
		}
	}
}

func TestEvaluateAllocatesNothing(t *testing.T) {
	ps := randomPositions(t, 200, 7)
	i := 0
	if n := testing.AllocsPerRun(1000, func() {
		Evaluate(ps[i%len(ps)])
		i++
	}); n != 0 {
		t.Errorf("Evaluate allocates %v times per call", n)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	ps := randomPositions(b, 1000, 3)
	ps = append(ps, epdPositions(b, wukongPath, 66)...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Evaluate(ps[i%len(ps)])
	}
}
