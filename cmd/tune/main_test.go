package main

import (
	"bytes"
	"errors"
	"io"
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
	data := firstLines(t, dir, 600)
	out := filepath.Join(dir, "weights_gen.go")
	report := filepath.Join(dir, "report")
	var stdout, stderr bytes.Buffer
	err := run([]string{"-data", data, "-out", out, "-report", report, "-params", "material,tempo", "-iters", "5", "-quiet"}, &stdout, &stderr)
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
	if err := run([]string{"-data", data, "-out", out2, "-report", "", "-params", "tempo", "-iters", "1", "-dry-run", "-allow-worse", "-quiet"}, &stdout, &stderr); err != nil {
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
	data := firstLines(t, dir, 300)
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
	data := firstLines(t, dir, 300)
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

// firstLines writes the first n lines of the test positions to a file in
// dir and returns its path.
func firstLines(t *testing.T, dir string, n int) string {
	t.Helper()
	src, err := os.ReadFile("../../tuner/testdata/wukong-3k.epd")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	data := filepath.Join(dir, "x.epd")
	if err := os.WriteFile(data, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRefusedWeightsLeaveTheFileAndExitWithStatus3: a fit whose rounded
// weights are no better on validation (one iteration over the tempo
// weights, which rounds back to its start) writes nothing, prints the
// summary line, and its error is one line with both figures, exit status
// 3; -allow-worse writes the weights.
func TestRefusedWeightsLeaveTheFileAndExitWithStatus3(t *testing.T) {
	dir := t.TempDir()
	data := firstLines(t, dir, 600)
	out := filepath.Join(dir, "weights_gen.go")
	orig := []byte("// the weights before the fit\n")
	if err := os.WriteFile(out, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-data", data, "-out", out, "-report", "", "-params", "tempo", "-iters", "1", "-quiet"}
	var stdout, stderr bytes.Buffer
	err := run(args, &stdout, &stderr)
	if err == nil || exit(io.Discard, err) != 3 {
		t.Fatalf("tune: %v (exit status %d), want a refusal, exit status 3\n%s", err, exit(io.Discard, err), stdout.String())
	}
	summary := regexp.MustCompile(`validation MSE ([0-9.]+) -> ([0-9.]+)\n$`).FindStringSubmatch(stdout.String())
	if summary == nil {
		t.Fatalf("stdout does not end with the summary line:\n%s", stdout.String())
	}
	want := "refused: validation MSE " + summary[1] + " -> " + summary[2] + " is not below its start; no weights written (-allow-worse writes them)"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, orig) {
		t.Errorf("the refused weights were written:\n%.200s", got)
	}
	if exit(io.Discard, errors.New("bad data")) != 1 {
		t.Error("another error does not exit with status 1")
	}

	stdout.Reset()
	if err := run(append(args, "-allow-worse"), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.HasPrefix(got, []byte("// Code generated")) {
		t.Errorf("-allow-worse did not write the weights:\n%.200s", got)
	}
}

// TestDryRunWritesNothing: with -dry-run the working directory stays
// empty: no weights file and no report (whose default is tune-report),
// unless -report is given, on the command line or in the config file.
func TestDryRunWritesNothing(t *testing.T) {
	data := firstLines(t, t.TempDir(), 300)
	work := t.TempDir()
	t.Chdir(work)
	list := func() []string {
		var names []string
		filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
			if path != "." {
				names = append(names, path)
			}
			return err
		})
		return names
	}
	var stdout, stderr bytes.Buffer
	base := []string{"-data", data, "-params", "tempo", "-iters", "2", "-dry-run", "-allow-worse", "-quiet"}
	if err := run(base, &stdout, &stderr); err != nil {
		t.Fatalf("tune: %v\n%s", err, stderr.String())
	}
	if files := list(); len(files) != 0 {
		t.Errorf("-dry-run wrote %q", files)
	}
	if !strings.Contains(stdout.String(), "dry run, no weights written") || strings.Contains(stdout.String(), "report in") {
		t.Errorf("log:\n%s", stdout.String())
	}

	if err := run(append(base, "-report", "r"), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if files := list(); strings.Join(files, " ") != "r r/changes.txt r/curves.png r/errors.csv" {
		t.Errorf("-dry-run -report r wrote %q, want the report only", files)
	}
	os.RemoveAll("r")
	cfg := filepath.Join(t.TempDir(), "tune.json")
	os.WriteFile(cfg, []byte(`{"report": "fromfile"}`), 0o644)
	if err := run(append(base, "-config", cfg), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if files := list(); len(files) != 4 || files[0] != "fromfile" {
		t.Errorf("-dry-run with report in the config file wrote %q, want the report only", files)
	}
}

// TestGameDamaTunesTheDraughtsEvaluation: -game dama reads PDN FEN lines
// and fits the draughts evaluation, with the same summary line and the
// same refusal status; without -out it would write the draughts weights
// file (checked before the work starts); an unknown game is a usage error.
func TestGameDamaTunesTheDraughtsEvaluation(t *testing.T) {
	data, err := filepath.Abs("../../tuner/testdata/dama-games.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "weights_gen.go")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-game", "dama", "-data", data, "-out", out, "-report", "", "-params", "material", "-iters", "20", "-quiet"}, &stdout, &stderr); err != nil {
		t.Fatalf("tune: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if !regexp.MustCompile(`\ntune: 6749 positions, K=[0-9.]+, train MSE [0-9.]+ -> [0-9.]+, validation MSE [0-9.]+ -> [0-9.]+\n$`).MatchString(stdout.String()) ||
		!strings.Contains(stdout.String(), "of the dama evaluation") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if gen, err := os.ReadFile(out); err != nil || !bytes.Contains(gen, []byte("Draughts evaluation weights")) {
		t.Errorf("weights file: %v\n%.300s", err, gen)
	}

	// One iteration over the tempo weights rounds back to its start.
	err = run([]string{"-game", "dama", "-data", data, "-out", out, "-report", "", "-params", "tempo", "-iters", "1", "-quiet"}, &stdout, &stderr)
	if exit(io.Discard, err) != 3 {
		t.Errorf("a refused draughts fit: %v, exit status %d, want 3", err, exit(io.Discard, err))
	}

	// Without -out, the draughts weights file is the one checked: from a
	// directory without engine/dama/eval the check fails before any work.
	t.Chdir(dir)
	err = run([]string{"-game", "dama", "-data", data, "-report", "", "-quiet"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "engine/dama/eval/weights_gen.go") {
		t.Errorf("default -out for dama: %v", err)
	}
	err = run([]string{"-game", "go", "-data", data, "-quiet"}, &stdout, &stderr)
	if exit(io.Discard, err) != 2 || !strings.Contains(err.Error(), "-game") {
		t.Errorf("-game go: %v, exit status %d, want a usage error naming -game", err, exit(io.Discard, err))
	}
}

// TestAnOutputThatIsTheDataIsRefused: -out naming the -data file, by any
// spelling, exits with status 2 and leaves the data as it was, with
// -allow-worse too.
func TestAnOutputThatIsTheDataIsRefused(t *testing.T) {
	dir := t.TempDir()
	data := firstLines(t, dir, 200)
	before, _ := os.ReadFile(data)
	link := filepath.Join(dir, "link.epd")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.epd")
	if err := os.Link(data, hard); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, out := range []string{data, "./x.epd", "sub/../x.epd", link, hard} {
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		var stdout, stderr bytes.Buffer
		err := run([]string{"-data", data, "-out", out, "-report", "", "-params", "tempo", "-iters", "1", "-allow-worse", "-quiet"}, &stdout, &stderr)
		if code := exit(io.Discard, err); code != 2 || !strings.HasPrefix(err.Error(), "-out "+out+" is the input ") || !strings.Contains(err.Error(), "choose another output") {
			t.Errorf("-out %s: exit %d, error %v; want 2 and a refusal", out, code, err)
		}
		if after, _ := os.ReadFile(data); !bytes.Equal(after, before) {
			t.Fatalf("-out %s: the data changed", out)
		}
	}
}

// TestAFailedTuneLeavesTheWeightsFile: data that fails to load ends the
// run before anything is written; the earlier -out stays as it was.
func TestAFailedTuneLeavesTheWeightsFile(t *testing.T) {
	dir := t.TempDir()
	data := firstLines(t, dir, 200)
	f, _ := os.OpenFile(data, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not a position [1.0]\n")
	f.Close()
	out := filepath.Join(dir, "weights_gen.go")
	orig := []byte("// the weights before the run\n")
	os.WriteFile(out, orig, 0o644)
	var stdout, stderr bytes.Buffer
	err := run([]string{"-data", data, "-out", out, "-report", "", "-params", "tempo", "-iters", "1", "-allow-worse", "-quiet"}, &stdout, &stderr)
	if err == nil {
		t.Fatal("tune on a bad line: no error")
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, orig) {
		t.Errorf("a failed tune changed %s", out)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
}
