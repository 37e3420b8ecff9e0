package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTuneWritesWeightsReportAndSummary runs the command on a few hundred
// real positions: it writes the weights file to -out, the report files,
// and ends with SPEC §4's summary line.
func TestTuneWritesWeightsReportAndSummary(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "x.epd")
	src, err := os.ReadFile("../../tuner/testdata/wukong-3k.epd")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	if err := os.WriteFile(data, []byte(strings.Join(lines[:600], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "weights_gen.go")
	report := filepath.Join(dir, "report")
	var stdout, stderr bytes.Buffer
	err = run([]string{"-data", data, "-out", out, "-report", report, "-params", "material,tempo", "-iters", "5", "-quiet"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("tune: %v\n%s", err, stderr.String())
	}
	text := strings.TrimSpace(stdout.String())
	last := text[strings.LastIndex(text, "\n")+1:]
	if !regexp.MustCompile(`^tune: 600 positions, K=[0-9.]+, train MSE [0-9.]+ -> [0-9.]+, validation MSE [0-9.]+ -> [0-9.]+$`).MatchString(last) {
		t.Errorf("last line %q is not the summary line", last)
	}
	gen, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(gen), "// Code generated") || !strings.Contains(string(gen), data) {
		t.Errorf("weights file does not start with the generated-code header naming the data:\n%.300s", gen)
	}
	for _, f := range []string{"errors.csv", "curves.png", "changes.txt"} {
		if fi, err := os.Stat(filepath.Join(report, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report file %s: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(report, "errors.csv"))
	if n := strings.Count(string(csv), "\n"); n < 3 {
		t.Errorf("errors.csv has %d lines, want a header and a line per iteration", n)
	}

	// -dry-run writes nothing; a bad flag value is an error.
	out2 := filepath.Join(dir, "none.go")
	if err := run([]string{"-data", data, "-out", out2, "-report", "", "-params", "tempo", "-iters", "1", "-dry-run", "-quiet"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("-dry-run wrote %s", out2)
	}
	if err := run([]string{"-data", data, "-params", "nosuchgroup", "-dry-run", "-quiet"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-params") {
		t.Errorf("unknown group: %v", err)
	}
}

// TestConfigFileSetsWhatFlagsSet reads the settings from a -config file,
// with flags overriding it, and rejects an unknown key by its line.
func TestConfigFileSetsWhatFlagsSet(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "x.epd")
	src, err := os.ReadFile("../../tuner/testdata/wukong-3k.epd")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	if err := os.WriteFile(data, []byte(strings.Join(lines[:300], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "tune.json")
	os.WriteFile(cfg, []byte(`{"data": "`+data+`", "params": "tempo", "iters": 2, "report": "", "dry-run": true, "quiet": true, "seed": 3}`), 0o644)
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-config", cfg, "-params", "material"}, &stdout, &stderr); err != nil {
		t.Fatalf("tune: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "-params material") || !strings.Contains(out, "dry run") || !strings.Contains(out, "tune: 300 positions") || stderr.Len() != 0 {
		t.Errorf("the file's settings or the flag's override did not apply:\n%s\nstderr: %s", out, stderr.String())
	}
	os.WriteFile(cfg, []byte("{\n\"data\": \"x\",\n\"dry_run\": true\n}"), 0o644)
	if err := run([]string{"-config", cfg}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "tune.json") || !strings.Contains(err.Error(), `line 3: key "dry_run" is now "dry-run"`) {
		t.Errorf("snake_case key: %v", err)
	}
}

// TestReadTimeFiltersAreFlagsAndSkipPliesSaysWhatReplacedIt: the filters
// are flags and config keys of their fixed names; text data refuses the
// ones that read a score, and the removed -skip-plies names min-ply.
func TestReadTimeFiltersAreFlagsAndSkipPliesSaysWhatReplacedIt(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "x.epd")
	src, err := os.ReadFile("../../tuner/testdata/wukong-3k.epd")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	if err := os.WriteFile(data, []byte(strings.Join(lines[:300], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	base := []string{"-data", data, "-params", "tempo", "-iters", "2", "-report", "", "-dry-run", "-quiet"}
	if err := run(append(base, "-skip-in-check"), &stdout, &stderr); err != nil {
		t.Fatalf("tune -skip-in-check: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "read-time filters skip-in-check: ") {
		t.Errorf("the report does not name the filters:\n%s", stdout.String())
	}
	if err := run(append(base, "-max-score", "400"), &stdout, &stderr); err == nil ||
		!strings.Contains(err.Error(), "x.epd: text input has no score_cp column, which the read-time filter max-score reads") {
		t.Errorf("-max-score on text: %v", err)
	}
	if err := run(append(base, "-skip-plies", "8"), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "use the read-time filter min-ply") {
		t.Errorf("-skip-plies: %v", err)
	}
	cfg := filepath.Join(dir, "tune.json")
	os.WriteFile(cfg, []byte("{\n\"data\": \"x\",\n\"skip-plies\": 8\n}"), 0o644)
	if err := run([]string{"-config", cfg}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), `line 3: key "skip-plies": skip-plies is removed: use the read-time filter min-ply`) {
		t.Errorf("skip-plies in a config file: %v", err)
	}
}
