package tuner

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
		"-lambda": func(o *Options) { o.Lambda = 2 },
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
