package tuner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"chessforge/engine/eval"
	"chessforge/engine/eval/evalgen"
)

// testEPD holds 3,004 positions of the public Wukong set (every 22nd line
// of texel-wukong-66k.epd), results from White's side.
const testEPD = "testdata/wukong-3k.epd"

var (
	corpusOnce sync.Once
	corpus     *Set
	corpusErr  error
)

// testSet returns the test positions traced as they are (no resolution),
// all in one set, loaded once.
func testSet(t *testing.T) *Set {
	t.Helper()
	corpusOnce.Do(func() {
		corpus, _, _, corpusErr = Load(testEPD, LoadOptions{Select: AsIs})
	})
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpus
}

// perturbed returns w with every weight of mask moved by a seeded random
// whole number of centipawns up to ±spread.
func perturbed(w []float64, mask []bool, spread float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := append([]float64(nil), w...)
	for j := range out {
		if mask == nil || mask[j] {
			out[j] += math.Round((2*rng.Float64() - 1) * spread)
		}
	}
	return out
}

// offGrid moves every weight by a seeded random fraction of a centipawn,
// so that no king-danger sum sits exactly on the curve's kink at 0, where
// the function has no derivative.
func offGrid(w []float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := append([]float64(nil), w...)
	for j := range out {
		out[j] += 0.05 + 0.9*rng.Float64()
	}
	return out
}

func TestParseLine(t *testing.T) {
	const fen = "r1bqk2r/pp1n1ppp/2p1pn2/3p4/2PP4/2bBPN2/PP3PPP/R1BQ1RK1 w kq - 0 8"
	const epd = "rnb1kbnr/pp1pppp1/7p/2q5/5P2/N1P1P3/P2P2PP/R1B1KBNR b KQkq -"
	for _, tc := range []struct {
		line, fen string
		result    float64
		err       string
	}{
		{fen + " [1.0]", fen, 1, ""},
		{fen + " [0.5]", fen, 0.5, ""},
		{fen + " [0.0]", fen, 0, ""},
		{fen + " [1/2-1/2];", fen, 0.5, ""},
		{"  " + fen + "\t[0-1]  ", fen, 0, ""},
		{epd + ` c9 "1-0";`, epd, 1, ""},
		{epd + ` c9 "1/2-1/2";`, epd, 0.5, ""},
		{epd + ` id "x"; c9 "0-1";`, epd, 0, ""},
		{epd + " 3 20" + ` c9 "0-1";`, epd + " 3 20", 0, ""},
		{fen + " [2.0]", "", 0, `bad result "2.0"`},
		{fen + " [1.0", "", 0, "unclosed ["},
		{fen + " [1.0] extra", "", 0, `unexpected "extra"`},
		{epd + ` c9 1-0;`, "", 0, "not quoted"},
		{epd + ` c9 "1-0;`, "", 0, "unclosed quote"},
		{fen, "", 0, "no result"},
	} {
		gotFEN, got, err := ParseLine(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseLine(%q): error %v, want one containing %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || gotFEN != tc.fen || got != tc.result {
			t.Errorf("ParseLine(%q) = %q, %g, %v; want %q, %g", tc.line, gotFEN, got, err, tc.fen, tc.result)
		}
	}
}

func TestLoadReportsBadLinesWithFileAndLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.epd")
	text := "# a comment\n" +
		"6K1/8/5q2/4k3/3p4/8/8/8 b - - 1 72 [0.0]\n" +
		"\n" +
		"6K1/8/5q2/4k3/3p4/8/8/9 b - - 1 72 [0.0]\n" + // line 4: bad FEN
		"6K1/8/5q2/4k3/3p4/8/8/8 b - - 1 72 [3]\n" + // line 5: bad result
		`rnb1kbnr/pp1pppp1/7p/2q5/5P2/N1P1P3/P2P2PP/R1B1KBNR b KQkq - c9 "1/2-1/2";` + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := Load(path, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), path+":4: bad FEN") || !strings.Contains(err.Error(), "-max-bad 0") {
		t.Fatalf("Load with no tolerance: %v; want the error at %s:4", err, path)
	}
	_, _, _, err = Load(path, LoadOptions{MaxBad: 1})
	if err == nil || !strings.Contains(err.Error(), path+`:5: bad result "3"`) {
		t.Fatalf("Load tolerating 1: %v; want the error at %s:5", err, path)
	}
	var warn bytes.Buffer
	train, val, st, err := Load(path, LoadOptions{MaxBad: 2, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if st.Bad != 2 || st.Read != 4 || train.Len()+val.Len() != 2 {
		t.Errorf("read %d, bad %d, kept %d; want 4, 2, 2", st.Read, st.Bad, train.Len()+val.Len())
	}
	if !strings.Contains(warn.String(), path+":4:") || !strings.Contains(warn.String(), path+":5:") {
		t.Errorf("warnings do not name both bad lines:\n%s", warn.String())
	}
	if _, _, _, err := Load(filepath.Join(dir, "none*.epd"), LoadOptions{}); err == nil {
		t.Error("Load of a pattern matching nothing succeeded")
	}
}

func TestLoadSplitsAndSelectsDeterministically(t *testing.T) {
	opts := LoadOptions{ValFrac: 0.25, Seed: 7, EPDBlock: 16, Threads: 3}
	a, av, ast, err := Load(testEPD, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Threads = 1
	b, bv, _, err := Load(testEPD, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != b.Len() || av.Len() != bv.Len() || !equalSets(a, b) || !equalSets(av, bv) {
		t.Fatal("the sets depend on the number of threads")
	}
	if n := a.Len() + av.Len(); n != ast.Read || ast.Resolved == 0 {
		t.Errorf("kept %d of %d read, %d resolved; want all kept, some resolved", n, ast.Read, ast.Resolved)
	}
	if f := float64(av.Len()) / float64(ast.Read); f < 0.15 || f > 0.35 {
		t.Errorf("validation share %.2f, want about 0.25", f)
	}
	// Filtering keeps only positions whose quiescence search stands pat.
	fs, fv, fst, err := Load(testEPD, LoadOptions{Select: Filter})
	if err != nil {
		t.Fatal(err)
	}
	// Every position in check resolves to another leaf (an evasion).
	if fs.Len()+fv.Len()+fst.SkipCheck+fst.SkipNoisy != fst.Read || fst.SkipNoisy+fst.SkipCheck != ast.Resolved {
		t.Errorf("filter kept %d, skipped %d in check and %d noisy of %d; resolution moved %d",
			fs.Len()+fv.Len(), fst.SkipCheck, fst.SkipNoisy, fst.Read, ast.Resolved)
	}
}

func equalSets(a, b *Set) bool {
	if len(a.hdr) != len(b.hdr) || len(a.ent) != len(b.ent) {
		return false
	}
	for i := range a.hdr {
		x, y := a.hdr[i], b.hdr[i]
		if math.Float32bits(x.score) != math.Float32bits(y.score) {
			return false
		}
		x.score, y.score = 0, 0 // NaN (no score) is not equal to itself
		if x != y {
			return false
		}
	}
	for i := range a.ent {
		if a.ent[i] != b.ent[i] {
			return false
		}
	}
	return true
}

// TestKernelMatchesEval holds the tuner's compact evaluation and gradient
// equal to eval.Coefs' on real positions, at the compiled-in weights and at
// perturbed ones (so that king danger is on for many positions).
func TestKernelMatchesEval(t *testing.T) {
	s := testSet(t)
	w0 := eval.Weights()
	grad := make([]float64, eval.NumParams)
	want := make([]float64, eval.NumParams)
	kingDanger := 0
	for _, w := range [][]float64{w0, perturbed(w0, nil, 40, 3)} {
		for i := 0; i < s.Len(); i++ {
			c := chessCoefs(s.Coefs(i))
			var p pass
			got := s.eval(&s.hdr[i], w, &p)
			if v := c.Eval(w); got != v {
				t.Fatalf("position %d: tuner evaluates %v, eval %v", i, got, v)
			}
			if p.umg[0] > 0 || p.umg[1] > 0 {
				kingDanger++
			}
			clear(grad)
			clear(want)
			s.addGrad(&s.hdr[i], &p, 0.7, grad)
			c.Gradient(w, 0.7, want)
			for j := range grad {
				if math.Abs(grad[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
					t.Fatalf("position %d: gradient %s = %v, eval says %v", i, eval.ParamName(j), grad[j], want[j])
				}
			}
		}
	}
	if kingDanger < 100 {
		t.Errorf("king danger on in only %d positions; the check would miss the non-linear part", kingDanger)
	}
}

// chessCoefs returns c in engine/eval's form.
func chessCoefs(c *Coefs) *eval.Coefs {
	e := &eval.Coefs{Phase: c.Phase, Scale: c.Scale, Draw: c.Draw}
	for _, t := range c.Linear {
		e.Linear = append(e.Linear, eval.Coef(t))
	}
	for s := range c.Safety {
		for _, t := range c.Safety[s] {
			e.Safety[s] = append(e.Safety[s], eval.Coef(t))
		}
	}
	return e
}

// TestGradientMatchesNumeric checks the objective's analytic gradient
// against central differences, on the linear weights and on the king-danger
// weights that enter through the non-linear curve.
func TestGradientMatchesNumeric(t *testing.T) {
	s := testSet(t)
	w := offGrid(perturbed(eval.Weights(), nil, 10, 5), 6)
	o := NewObjective(s, 1.1, 2)
	grad := make([]float64, eval.NumParams)
	o.ValueGrad(w, grad)
	checked, nonlinear := 0, 0
	for j := 0; j < eval.NumParams; j++ {
		g, _ := eval.GroupOf(j % eval.NumFeatures)
		if !g.Nonlinear && j%17 != 0 {
			continue // every king-danger weight, a sample of the rest
		}
		const h = 1e-3
		wp := append([]float64(nil), w...)
		wp[j] += h
		fp := o.Value(wp)
		wp[j] -= 2 * h
		fm := o.Value(wp)
		num := (fp - fm) / (2 * h)
		if math.Abs(num-grad[j]) > 1e-4*math.Abs(num)+1e-10 {
			t.Errorf("%s: analytic %.10g, numeric %.10g", eval.ParamName(j), grad[j], num)
		}
		checked++
		if g.Nonlinear && grad[j] != 0 {
			nonlinear++
		}
	}
	if nonlinear < 10 {
		t.Errorf("only %d king-danger weights with a gradient were checked", nonlinear)
	}
	t.Logf("%d weights checked, %d of them king danger", checked, nonlinear)
}

// TestFitRecoversKnownWeights labels real positions with a known weight
// vector through the sigmoid, starts the fit from other weights and checks
// that it finds the known ones. The groups tuned are those the positions
// determine (the piece-square tables and mobility tables are each
// collinear with the material, so they stay frozen), king danger included.
func TestFitRecoversKnownWeights(t *testing.T) {
	s := testSet(t)
	const k = 1.0
	known := eval.Weights()
	o := NewObjective(s, k, 0)
	v := make([]float64, s.Len())
	o.Evals(known, v)
	for i := range v {
		s.SetTarget(i, Sigmoid(k, v[i]))
	}
	defer s.SetTargets(1, k) // other tests use the results
	groups, iters := "material,pawns,pieces,threats,tempo,", 600
	if raceEnabled {
		groups, iters = "material,tempo,", 150 // the same code, less of it
	}
	mask, err := eval.Select(groups + "ks_attackers.mg,ks_zone_attacks.mg,ks_weak_squares.mg,ks_safe_checks.mg,ks_no_queen.mg,ks_base.mg")
	if err != nil {
		t.Fatal(err)
	}
	// Only weights whose features occur in enough positions can be
	// recovered; the others have no gradient and keep their start. A
	// midgame weight counts where the phase is above 0, an endgame weight
	// where it is below PhaseMax, and only in positions whose evaluation
	// leaves the sigmoid room to move (|v| < 800).
	seen := make([]int, eval.NumParams)
	for i := 0; i < s.Len(); i++ {
		h := &s.hdr[i]
		if math.Abs(v[i]) >= 800 {
			continue
		}
		for _, e := range s.ent[h.start : h.start+uint32(h.nLin)+uint32(h.nSafe[0])+uint32(h.nSafe[1])] {
			if h.phase > 0 {
				seen[e.idx]++
			}
			if h.phase < eval.PhaseMax {
				seen[eval.NumFeatures+int(e.idx)]++
			}
		}
	}
	for j := range mask {
		if seen[j] < 100 {
			mask[j] = false
		}
	}
	start := perturbed(known, mask, 30, 9)
	res, err := Fit(s, &Set{}, start, Config{K: k, Mask: mask, MaxIter: iters, Patience: 50, MinGain: 1e-18})
	if err != nil {
		t.Fatal(err)
	}
	last := res.History[len(res.History)-1]
	worst, n := 0.0, 0
	for j := range mask {
		if !mask[j] {
			if res.W[j] != start[j] {
				t.Errorf("frozen %s moved: %v -> %v", eval.ParamName(j), start[j], res.W[j])
			}
			continue
		}
		n++
		d := math.Abs(res.W[j] - known[j])
		worst = max(worst, d)
		if d > 0.5 {
			t.Errorf("%s = %.2f, known %.0f (start %.0f)", eval.ParamName(j), res.W[j], known[j], start[j])
		}
	}
	t.Logf("%d weights recovered within %.3g cp in %d iterations (%s); error %.3g -> %.3g",
		n, worst, len(res.History)-1, res.Stop, res.History[0].Train, last.Train)
	if n < 15 || !raceEnabled && n < 60 {
		t.Errorf("only %d weights tuned", n)
	}
}

// TestAdamReducesError runs the Adam alternative for a few iterations.
func TestAdamReducesError(t *testing.T) {
	s := testSet(t)
	k, _ := FitK(s, eval.Weights(), 0.01, 10, 0)
	res, err := Fit(s, &Set{}, eval.Weights(), Config{K: k, Method: Adam, MaxIter: 30, LR: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := res.History[0].Train, res.History[len(res.History)-1].Train; !(b < a) {
		t.Errorf("Adam: error %v -> %v, want lower", a, b)
	}
}

func TestFitKFindsTheScaleThatLabelledThePositions(t *testing.T) {
	s := testSet(t)
	w := eval.Weights()
	const k = 1.37
	v := make([]float64, s.Len())
	NewObjective(s, 1, 0).Evals(w, v)
	for i := range v {
		s.SetTarget(i, Sigmoid(k, v[i]))
	}
	defer s.SetTargets(1, k)
	got, mse := FitK(s, w, 0.01, 10, 0)
	if math.Abs(got-k) > 1e-3 || mse > 1e-10 {
		t.Errorf("FitK = %v (error %v), want %v", got, mse, k)
	}
}

// TestGeneratedWeightsCompileAndMatchTuner writes a weight vector with
// evalgen, builds the evaluation with that file laid over the committed
// one (go run -overlay), and checks that the engine's Evaluate equals the
// tuner's evaluation, truncated, on every test position.
func TestGeneratedWeightsCompileAndMatchTuner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	s := testSet(t)
	w := perturbed(eval.Weights(), nil, 15, 11)
	dir := t.TempDir()
	gen := filepath.Join(dir, "weights_gen.go")
	if err := evalgen.WriteFile(gen, w, eval.Provenance{Source: "test", Positions: s.Len(), K: 1, ErrorBefore: 0.1, ErrorAfter: 0.09}); err != nil {
		t.Fatal(err)
	}
	var fens bytes.Buffer
	f, err := os.Open(testEPD)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fen, _, err := ParseLine(sc.Text())
		if err != nil {
			t.Fatal(err)
		}
		fens.WriteString(fen + "\n")
	}
	checkGeneratedEvals(t, goTool, "../engine/eval/weights_gen.go", gen, nil, &fens, s, w)
}

// checkGeneratedEvals builds ./internal/evalfen (with args) with the
// generated weights file gen laid over target (go run -overlay), gives it
// fens, one FEN a line, and checks that each evaluation it prints equals
// the tuner's evaluation of the same position of s with weights w,
// truncated as the engine's integer arithmetic truncates it.
func checkGeneratedEvals(t *testing.T, goTool, target, gen string, args []string, fens *bytes.Buffer, s *Set, w []float64) {
	t.Helper()
	abs, err := filepath.Abs(target)
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{abs: gen}})
	ovPath := filepath.Join(t.TempDir(), "overlay.json")
	if err := os.WriteFile(ovPath, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, append([]string{"run", "-overlay", ovPath, "./internal/evalfen"}, args...)...)
	cmd.Stdin = fens
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run with the generated file: %v\n%s", err, stderr.String())
	}
	lines := strings.Fields(string(out))
	if len(lines) != s.Len() {
		t.Fatalf("%d evaluations for %d positions", len(lines), s.Len())
	}
	var p pass
	for i, l := range lines {
		got, err := strconv.Atoi(l)
		if err != nil {
			t.Fatal(err)
		}
		// Evaluate truncates the exact rational value in integers; the
		// tuner's float64 may land a hair below a whole number.
		v := s.eval(&s.hdr[i], w, &p)
		want := int(v)
		if r := math.Round(v); math.Abs(v-r) < 1e-6 {
			want = int(r)
		}
		if got != want {
			t.Fatalf("position %d: the evaluation built with the generated file says %d, the tuner %v", i, got, v)
		}
	}
}
