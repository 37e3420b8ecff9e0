package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestEloFromScoreByHand(t *testing.T) {
	tests := []struct {
		score, elo float64
	}{
		{0.5, 0},
		// 0.75: 1/s-1 = 1/3, -400*log10(1/3) = 400*0.4771213 = 190.8485
		{0.75, 190.8485},
		// 0.25 mirrors 0.75.
		{0.25, -190.8485},
		// 0.64: 1/s-1 = 0.5625, log10(0.5625) = -0.2498775, times -400 = 99.9510
		{0.64, 99.9510},
	}
	for _, tc := range tests {
		if got := EloFromScore(tc.score); !near(got, tc.elo, 1e-3) {
			t.Errorf("EloFromScore(%g) = %.4f, want %.4f", tc.score, got, tc.elo)
		}
		if got := ScoreFromElo(tc.elo); !near(got, tc.score, 1e-6) {
			t.Errorf("ScoreFromElo(%g) = %.6f, want %.6f", tc.elo, got, tc.score)
		}
	}
	if !math.IsInf(EloFromScore(1), 1) || !math.IsInf(EloFromScore(0), -1) {
		t.Errorf("a perfect score must give infinite Elo")
	}
}

func TestTrinomialIntervalByHand(t *testing.T) {
	// +30 =40 -30: s = 0.5, Elo 0. Per-game variance
	// (30*0.5^2 + 40*0 + 30*0.5^2)/100 = 0.15, standard error sqrt(0.15/100) = 0.0387298,
	// times 1.959964 = 0.0759091, so the interval is s in [0.4240909, 0.5759091]:
	// -400*log10(1/0.5759091 - 1) = -400*log10(0.7363691) = 53.158.
	e := Trinomial{W: 30, D: 40, L: 30}.Elo()
	if !near(e.Elo, 0, 1e-9) || !near(e.Hi, 53.158, 1e-3) || !near(e.Lo, -53.158, 1e-3) || !near(e.Margin(), 53.158, 1e-3) {
		t.Errorf("+30 =40 -30: got %+v, want Elo 0 in [-53.158, 53.158]", e)
	}
	// +50 =30 -20: s = (50+15)/100 = 0.65, Elo = -400*log10(0.35/0.65) = 107.538.
	// Variance (50*0.35^2 + 30*0.15^2 + 20*0.65^2)/100 = (6.125+0.675+8.45)/100 = 0.1525,
	// se = sqrt(0.001525) = 0.0390512, z*se = 0.0765390: s in [0.5734610, 0.7265390],
	// Elo in [51.418, 169.745].
	e = Trinomial{W: 50, D: 30, L: 20}.Elo()
	if !near(e.Elo, 107.538, 1e-3) || !near(e.Lo, 51.418, 1e-3) || !near(e.Hi, 169.745, 1e-3) {
		t.Errorf("+50 =30 -20: got %+v, want 107.538 in [51.418, 169.745]", e)
	}
}

func TestPentanomialIntervalByHand(t *testing.T) {
	// Pairs (0, 1/2, 1, 3/2, 2 points) = (2, 10, 30, 30, 8), N = 80.
	// Frequencies 0.025, 0.125, 0.375, 0.375, 0.1 on per-game scores 0, .25, .5, .75, 1:
	// mean = 0.03125 + 0.1875 + 0.28125 + 0.1 = 0.6, Elo = -400*log10(0.4/0.6) = 70.437.
	// Variance 0.025*0.36 + 0.125*0.1225 + 0.375*0.01 + 0.375*0.0225 + 0.1*0.16 = 0.0525,
	// se = sqrt(0.0525/80) = 0.0256174, z*se = 0.0502091: s in [0.5497909, 0.6502091],
	// Elo in [34.713, 107.698].
	e := Pentanomial{2, 10, 30, 30, 8}.Elo()
	if !near(e.Score, 0.6, 1e-12) || !near(e.Elo, 70.437, 1e-3) || !near(e.Lo, 34.713, 1e-3) || !near(e.Hi, 107.698, 1e-3) {
		t.Errorf("got %+v, want 70.437 in [34.713, 107.698]", e)
	}
	if e := (Pentanomial{}).Elo(); !math.IsNaN(e.Elo) {
		t.Errorf("no pairs: Elo = %g, want NaN", e.Elo)
	}
}

func TestOneValuedSamplesKeepAnInterval(t *testing.T) {
	// Ten pairs of one point each: the sample variance is zero, so the
	// variance is the prior's. Counts (0.5, 0.5, 10.5, 0.5, 0.5) / 12.5 have
	// mean 0.5 and variance (0.5*0.25 + 0.5*0.0625)*2 / 12.5 = 0.025, se =
	// sqrt(0.025/10) = 0.05, z*se = 0.0979982: Elo in [-68.989, 68.989].
	e := Pentanomial{0, 0, 10, 0, 0}.Elo()
	if !near(e.Elo, 0, 1e-9) || !near(e.Lo, -68.989, 1e-3) || !near(e.Hi, 68.989, 1e-3) {
		t.Errorf("ten even pairs: got %+v, want 0 in [-68.989, 68.989]", e)
	}
	// Ten draws: counts (0.5, 10.5, 0.5) / 11.5 on 1, 1/2, 0 have variance
	// 0.25/11.5 = 0.0217391, se = 0.0466252, z*se = 0.0913837: Elo ± 64.222.
	e = Trinomial{D: 10}.Elo()
	if !near(e.Elo, 0, 1e-9) || !near(e.Margin(), 64.222, 1e-3) {
		t.Errorf("ten draws: got %+v, want 0 ± 64.222", e)
	}
	// Ten pairs of 3/2 points: the estimate stays the observed 0.75 (190.849
	// Elo). The prior's counts (0.5, 0.5, 0.5, 10.5, 0.5) / 12.5 have mean
	// 0.7 and variance 0.035, se = sqrt(0.0035), z*se = 0.1159532: Elo in
	// [95.478, 324.095].
	e = Pentanomial{0, 0, 0, 10, 0}.Elo()
	if !near(e.Score, 0.75, 1e-12) || !near(e.Elo, 190.849, 1e-3) || !near(e.Lo, 95.478, 1e-3) || !near(e.Hi, 324.095, 1e-3) {
		t.Errorf("ten pairs of 3/2: got %+v, want 190.849 in [95.478, 324.095]", e)
	}
}

func TestLOSByHand(t *testing.T) {
	tests := []struct {
		w, l int
		los  float64
	}{
		{30, 30, 0.5},
		// (60-40)/sqrt(2*100) = 1.4142, erf(1.4142) = 0.954500, LOS = Phi(2) = 0.977250.
		{60, 40, 0.977250},
		{40, 60, 1 - 0.977250},
		{0, 0, 0.5},
	}
	for _, tc := range tests {
		if got := (Trinomial{W: tc.w, D: 7, L: tc.l}).LOS(); !near(got, tc.los, 1e-6) {
			t.Errorf("LOS(+%d -%d) = %.6f, want %.6f", tc.w, tc.l, got, tc.los)
		}
	}
}

func TestSPRTBoundsByHand(t *testing.T) {
	// alpha = beta = 0.05: log(0.05/0.95) = -2.944439, log(0.95/0.05) = 2.944439.
	lo, hi := SPRT{0, 5, 0.05, 0.05}.Bounds()
	if !near(lo, -2.944439, 1e-6) || !near(hi, 2.944439, 1e-6) {
		t.Errorf("bounds = %g, %g, want ±2.944439", lo, hi)
	}
}

func TestSPRTLLRByHand(t *testing.T) {
	// s0 = L(0) = 0.5, s1 = L(5) = 1/(1+10^(-5/400)) = 1/(1+0.9716279) = 0.5071951.
	sprt := SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}
	tests := []struct {
		name string
		p    Pentanomial
		llr  float64
		want Decision
	}{
		// Each count gets the prior's 1/2 before the frequencies are formed.
		// Symmetric: counts 5.5 10.5 20.5 10.5 5.5 of 52.5, mean 0.5,
		// variance 2*(5.5*0.25 + 10.5*0.0625)/52.5 = 0.0773810, N = 50.
		// LLR = 50 * 0.0071951 * (1 - 0.5 - 0.5071951) / (2*0.0773810) = -0.016725.
		{"symmetric", Pentanomial{5, 10, 20, 10, 5}, -0.016725, Continue},
		// Counts 2.5 10.5 30.5 30.5 8.5 of 82.5: mean 49.25/82.5 = 0.596970,
		// variance 0.0549908, N = 80.
		// LLR = 80 * 0.0071951 * (2*0.596970 - 1.0071951) / (2*0.0549908) = 0.977356.
		{"ahead", Pentanomial{2, 10, 30, 30, 8}, 0.977356, Continue},
		// Ten times the counts: the prior weighs less, 10.484042 > 2.944.
		{"ahead x10", Pentanomial{20, 100, 300, 300, 80}, 10.484042, AcceptH1},
		// The symmetric frequencies 200 times over: -3.450705 < -2.944.
		{"symmetric x200", Pentanomial{1000, 2000, 4000, 2000, 1000}, -3.450705, AcceptH0},
		// Ten 1-1 pairs (a win and a loss, or two draws): counts 0.5 0.5 10.5
		// 0.5 0.5 of 12.5, variance 2*(0.5*0.25 + 0.5*0.0625)/12.5 = 0.025,
		// LLR = -10 * 0.0071951^2 / (2*0.025) = -0.010354: ten pairs decide nothing.
		{"ten even pairs", Pentanomial{0, 0, 10, 0, 0}, -0.010354, Continue},
		// A thousand of them do: variance 2*(0.5*0.25 + 0.5*0.0625)/1002.5 = 3.1172e-4,
		// LLR = -1000 * 0.0071951^2 / (2*3.1172e-4) = -83.04.
		{"thousand even pairs", Pentanomial{0, 0, 1000, 0, 0}, -83.037798, AcceptH0},
		{"empty", Pentanomial{}, 0, Continue},
	}
	for _, tc := range tests {
		llr := sprt.LLR(tc.p)
		if !near(llr, tc.llr, 1e-4) {
			t.Errorf("%s: LLR = %.6f, want %.6f", tc.name, llr, tc.llr)
		}
		if got := sprt.Decide(llr); got != tc.want {
			t.Errorf("%s: decision %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSPRTValidate(t *testing.T) {
	bad := []SPRT{{5, 0, 0.05, 0.05}, {0, 5, 0, 0.05}, {0, 5, 0.05, 1}}
	for _, s := range bad {
		if s.Validate() == nil {
			t.Errorf("%+v: want an error", s)
		}
	}
	if err := (SPRT{0, 5, 0.05, 0.05}).Validate(); err != nil {
		t.Errorf("valid test rejected: %v", err)
	}
}

func TestPerfectAndZeroScoresAreBoundedOnOneSide(t *testing.T) {
	for _, n := range []int{1, 4, 100} {
		// n wins in n games: the score's exact 95% interval is
		// [0.025^(1/n), 1], so the Elo is above the Elo of that score.
		e := Trinomial{W: n}.Elo()
		want := EloFromScore(math.Pow(0.025, 1/float64(n)))
		if x, side := e.Bound(); side != 1 || math.Abs(x-want) > 1e-9 || !math.IsInf(e.Elo, 1) || !math.IsInf(e.Margin(), 1) {
			t.Errorf("+%d: bound %v side %d (want %v, +1), estimate %+v", n, x, side, want, e)
		}
		e = Trinomial{L: n}.Elo()
		if x, side := e.Bound(); side != -1 || math.Abs(x+want) > 1e-9 || !math.IsInf(e.Elo, -1) {
			t.Errorf("-%d: bound %v side %d (want %v, -1), estimate %+v", n, x, side, -want, e)
		}
	}
	// 4-0 allows an engine a little weaker; 100-0 proves a wide gap.
	if x, _ := (Trinomial{W: 4}).Elo().Bound(); math.Abs(x-(-72.15)) > 0.01 {
		t.Errorf("+4: bound %.2f, want -72.15", x)
	}
	if x, _ := (Trinomial{W: 100}).Elo().Bound(); x < 500 {
		t.Errorf("+100: bound %.1f, want above 500", x)
	}
	// Pairs: every pair won 2-0.
	if _, side := (Pentanomial{0, 0, 0, 0, 8}).Elo().Bound(); side != 1 {
		t.Error("a perfect pentanomial is not bounded below")
	}
	// Any other score has a finite estimate and no bound.
	for _, tr := range []Trinomial{{W: 3, D: 1}, {D: 5}, {W: 2, L: 2}} {
		if _, side := tr.Elo().Bound(); side != 0 {
			t.Errorf("%+v: bounded, want a finite estimate", tr)
		}
	}
}
