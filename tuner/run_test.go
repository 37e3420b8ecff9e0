package tuner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"chessforge/datasets/fixture"
)

// TestRunTunesWritesTheWeightsAndReports runs the whole algorithm on the
// test positions: it lowers the training error, writes a weights file
// naming its source and the report, and says what it did.
func TestRunTunesWritesTheWeightsAndReports(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.Data = testEPD
	o.Params = "material,tempo"
	o.Iters = 8
	o.Out = filepath.Join(dir, "weights_gen.go")
	o.Report = filepath.Join(dir, "report")
	o.Source = "the test positions"
	// No progress bars: the library's spinner for the bar of positions read
	// (a bar without a total) redraws from a goroutine of its own that
	// reads the bar's state unlocked, which the race detector reports.
	var log bytes.Buffer
	o.Log = &log
	sum, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Positions < 2500 || sum.K <= 0 || !(sum.TrainAfter < sum.TrainBefore) {
		t.Errorf("summary %+v: want about 3,000 positions, a K and a lower training error", sum)
	}
	if !regexp.MustCompile(`^tune: \d+ positions, K=[0-9.]+, train MSE [0-9.]+ -> [0-9.]+, validation MSE [0-9.]+ -> [0-9.]+$`).MatchString(sum.Line()) {
		t.Errorf("summary line %q", sum.Line())
	}
	gen, err := os.ReadFile(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(gen), "// Code generated") || !strings.Contains(string(gen), "the test positions") {
		t.Errorf("weights file:\n%.300s", gen)
	}
	for _, f := range []string{"errors.csv", "curves.png", "changes.txt"} {
		if fi, err := os.Stat(filepath.Join(o.Report, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report file %s: %v", f, err)
		}
	}
	for _, want := range []string{"K=", "LBFGS over", "stopped after", "wrote " + o.Out} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

func TestRunNamesTheBadSetting(t *testing.T) {
	for flag, set := range map[string]func(*Options){
		"-lambda": func(o *Options) { o.Lambda = Fixed(2) },
		"-params": func(o *Options) { o.Params = "nosuchgroup" },
	} {
		o := DefaultOptions()
		o.Data = testEPD
		set(&o)
		if _, err := Run(o); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("error %v, want one naming %s", err, flag)
		}
	}
	o := DefaultOptions()
	o.Data = filepath.Join(t.TempDir(), "none.epd")
	if _, err := Run(o); err == nil {
		t.Error("a missing data file is not an error")
	}
}

// writeContradictoryEPD writes n decisive positions of the test set, one a
// block (-epd-block 1), to a file in dir: those the split (-seed 1, -val
// 0.5) puts in training keep their result, the validation ones have it
// reversed, so that whatever lowers the training error raises the
// validation error.
func writeContradictoryEPD(t *testing.T, dir string, n int) string {
	return writeContradictory(t, testEPD, dir, n)
}

// writeContradictory is writeContradictoryEPD for the `FEN [result]` lines
// of file from.
func writeContradictory(t *testing.T, from, dir string, n int) string {
	t.Helper()
	src, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	line := 0
	for _, l := range strings.Split(string(src), "\n") {
		fen, res, ok := strings.Cut(l, " [")
		if !ok || res == "0.5]" || line == n {
			continue
		}
		if isVal(mix(uint64(line)), 1, 0.5) {
			res = map[string]string{"1.0]": "0.0]", "0.0]": "1.0]"}[res]
		}
		fmt.Fprintf(&b, "%s [%s\n", fen, res)
		line++
	}
	path := filepath.Join(dir, "contradictory.epd")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunRefusesAFitThatWorsensValidation: on data where training raises
// the validation error, Run writes no weights (the file stays byte for
// byte), says why with both figures in a *NoGainError, and still returns
// the summary and the report; with AllowWorse it writes them.
func TestRunRefusesAFitThatWorsensValidation(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.Data = writeContradictoryEPD(t, dir, 600)
	o.Val, o.Seed, o.EPDBlock = 0.5, 1, 1
	o.Params = "material,tempo,mobility"
	o.Iters, o.Patience = 30, 5
	o.Out = filepath.Join(dir, "weights_gen.go")
	o.Report = filepath.Join(dir, "report")
	var log bytes.Buffer
	o.Log = &log
	orig := []byte("// the weights before the fit\n")
	if err := os.WriteFile(o.Out, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	sum, err := Run(o)
	var ng *NoGainError
	if !errors.As(err, &ng) || sum == nil {
		t.Fatalf("Run: %v, %+v; want a *NoGainError and the summary\n%s", err, sum, log.String())
	}
	if sum.Better() || ng.Before != sum.ValBefore || ng.After != sum.ValAfter || sum.Best != 0 {
		t.Errorf("summary %+v, error %+v: want the starting weights kept (iteration 0), not better", sum, ng)
	}
	want := fmt.Sprintf("refused: validation MSE %.6f -> %.6f is not below its start; no weights written (-allow-worse writes them)", sum.ValBefore, sum.ValAfter)
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if got, _ := os.ReadFile(o.Out); !bytes.Equal(got, orig) {
		t.Errorf("the weights file changed:\n%.200s", got)
	}
	// The fit did worsen the validation error: its curve rose.
	csv, err := os.ReadFile(filepath.Join(o.Report, "errors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(csv)), "\n")
	errs := func(row string) (train, val float64) {
		f := strings.Split(row, ",")
		train, _ = strconv.ParseFloat(f[1], 64)
		val, _ = strconv.ParseFloat(f[2], 64)
		return train, val
	}
	t0, v0 := errs(rows[1])
	t1, v1 := errs(rows[len(rows)-1])
	if len(rows) < 4 || !(t1 < t0) || !(v1 > v0) {
		t.Errorf("want the training error down and the validation error up:\n%s", csv)
	}
	if !strings.Contains(log.String(), "no iteration lowered the validation error") {
		t.Errorf("log does not say the starting weights were kept:\n%s", log.String())
	}

	o.AllowWorse = true
	log.Reset()
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(o.Out); !bytes.HasPrefix(got, []byte("// Code generated")) {
		t.Errorf("-allow-worse did not write the weights file:\n%.200s", got)
	}
	if !strings.Contains(log.String(), "not below its start; accepted (-allow-worse)") {
		t.Errorf("log does not say the weights were accepted anyway:\n%s", log.String())
	}
}

// TestRunLambdaAuto: -lambda auto fits a dataset with search scores with
// λ=0 and text files (results only) with λ=1, and says so; a fixed λ is
// used as given.
func TestRunLambdaAuto(t *testing.T) {
	pq := filepath.Join(t.TempDir(), "d.parquet")
	if _, err := fixture.Write(pq, fixture.Options{Games: 6, Seed: 4, MaxPlies: 80}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data   string
		lambda Lambda
		want   string
		sum    float64
	}{
		{pq, LambdaAuto, "tune: λ=0 (-lambda auto: every position carries a search score): the targets are the search scores, σ(K·score)", 0},
		{pq, Fixed(0.5), "tune: λ=0.5 (-lambda 0.5): the targets are λ·result + (1−λ)·σ(K·score)", 0.5},
		{testEPD, LambdaAuto, "tune: λ=1 (-lambda auto: the positions carry game results only): the targets are the game results", 1},
		{testEPD, Fixed(1), "tune: λ=1 (-lambda 1): the targets are the game results", 1},
	} {
		o := DefaultOptions()
		o.Data = c.data
		o.Lambda = c.lambda
		o.Params, o.Iters, o.Report, o.DryRun, o.AllowWorse = "tempo", 1, "", true, true
		var log bytes.Buffer
		o.Log = &log
		sum, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), c.want) || sum.Lambda != c.sum {
			t.Errorf("-lambda %v: λ %g, log:\n%s\nwant the line %q", c.lambda, sum.Lambda, log.String(), c.want)
		}
	}
}
