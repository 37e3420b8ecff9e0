package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"chessforge/cmd/internal/stage"
	"chessforge/configs"
	"chessforge/selfplay/match"
	"chessforge/selfplay/match/matchtest"
	"chessforge/selfplay/match/stats"
)

func TestMain(m *testing.M) { os.Exit(matchtest.Run(m)) }

func TestShippedConfigLoads(t *testing.T) {
	c, err := parseArgs([]string{"-config", "../../configs/nnue.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkDir != "data/nnue-recipe" || c.PythonEnv != ".venv" || !c.Fit || len(c.SelfplayArgs) == 0 || len(c.ExportArgs) == 0 || len(c.TrainArgs) == 0 || len(c.MatchArgs) == 0 ||
		c.Record.File != "docs/history/networks.jsonl" {
		t.Errorf("settings missing: %+v", c)
	}
	// The match arguments, with the recipe's own, are bin/match's: they
	// must parse and make a match with an SPRT at a clock.
	s, err := match.ParseArgs(matchArgs("bin/engine", "net.nnue", "m.pgn", c.MatchArgs), io.Discard)
	if err != nil {
		t.Fatalf("match-args %q: %v", c.MatchArgs, err)
	}
	if s.SPRT == (match.SPRTSetting{}) || s.TC.Base == 0 {
		t.Errorf("match-args %q: SPRT %v, time control %q", c.MatchArgs, s.SPRT, s.TC)
	}
	if got := s.AOpt.String(); got != "Use NNUE=true EvalFile=net.nnue" || s.BOpt.String() != "Use NNUE=false" || s.A != s.B {
		t.Errorf("engine A options %q, B options %q, A %q, B %q", got, s.BOpt, s.A, s.B)
	}
}

func TestFlagsOverrideTheConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nnue.json")
	os.WriteFile(path, []byte(`{"work-dir": "w", "train-args": ["--epochs", "2"]}`), 0o644)
	c, err := parseArgs([]string{"-config", path, "-train-args", "--epochs 1", "-python-env", "/tmp/env", "-record", "h.jsonl"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := defaultConfig()
	want.WorkDir, want.PythonEnv, want.TrainArgs, want.Record.File = "w", "/tmp/env", []string{"--epochs", "1"}, "h.jsonl"
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
	for _, args := range [][]string{{"-config", path, "-work-dir", ""}, {"-config", path, "-python-env", ""}, {"-config", path, "extra"}} {
		if _, err := parseArgs(args, io.Discard); err == nil {
			t.Errorf("%q is accepted", args)
		}
	}
}

// TestConfigErrorsNameTheFileAndLineAndExitTwo: a mistake in the config
// file is a usage error of one line naming the file, the line and the key.
func TestConfigErrorsNameTheFileAndLineAndExitTwo(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"{\n  \"work-dir\": \"x\",\n  \"train-arg\": [\"--epochs\", \"2\"]\n}\n", `line 3: unknown field "train-arg" (the keys are the flag names)`},
		{"{\n  \"work-dir\": \"x\",\n  \"python_env\": \"e\"\n}\n", `line 3: key "python_env" is now "python-env"`},
		{"{\n  \"work-dir\": \"x\"\n  \"python-env\": \"e\"\n}\n", "line 3: invalid character"},
	} {
		path := filepath.Join(dir, "nnue.json")
		os.WriteFile(path, []byte(c.text), 0o644)
		_, err := parseArgs([]string{"-config", path}, io.Discard)
		var stderr bytes.Buffer
		code := configs.Exit(&stderr, "nnue", err)
		want := "nnue: config " + path + ": " + c.want
		if code != 2 || !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 2 {
			t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), want)
		}
	}
}

// TestSelfplayJobsFollowTheirArguments: the same arguments name the same
// job (resumed), other ones another job (added beside it).
func TestSelfplayJobsFollowTheirArguments(t *testing.T) {
	a := selfplayJob([]string{"-games", "100", "-seed", "1"})
	if a != selfplayJob([]string{"-games", "100", "-seed", "1"}) || !regexp.MustCompile(`^job-[0-9a-f]{12}$`).MatchString(a) {
		t.Errorf("job %q", a)
	}
	for _, other := range [][]string{{"-games", "100", "-seed", "2"}, {"-games", "100 -seed", "1"}, nil} {
		if selfplayJob(other) == a {
			t.Errorf("%q names the job of other arguments", other)
		}
	}
}

func TestFormatEloBoundsAPerfectOrZeroScore(t *testing.T) {
	for _, c := range []struct {
		e    stats.Estimate
		want string
	}{
		{stats.Estimate{Elo: 12.34, Lo: 2, Hi: 22}, "12.3 ± 10.0"},
		{stats.Estimate{Elo: math.Inf(-1), Lo: math.Inf(-1), Hi: 290.5}, "< +290.5 (95%)"},
		{stats.Estimate{Elo: math.Inf(1), Lo: 120, Hi: math.Inf(1)}, "> +120.0 (95%)"},
	} {
		if got := match.FormatEstimate(c.e); got != c.want {
			t.Errorf("match.FormatEstimate(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}

// TestMatchStageReadsTheVerdictThroughGo plays the recipe's match stage
// against fake engines, one of which forfeits every game, and checks the
// stage header, the report ending with its summary line, and the PGN.
func TestMatchStageReadsTheVerdictThroughGo(t *testing.T) {
	exe := matchtest.Command(t)[0]
	pgnPath := filepath.Join(t.TempDir(), "match.pgn")
	args := []string{"-a", exe + " random", "-a-name", "nnue", "-b", exe + " illegal 1", "-b-name", "hce",
		"-pgn", pgnPath, "-games", "40", "-tc", "nodes=1", "-concurrency", "2", "-sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05"}
	var stdout, stderr bytes.Buffer
	res, err := stage.PlayMatch(context.Background(), "match", args, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Decision != stats.AcceptH1 || res.Verdict() != "H1 accepted" {
		t.Errorf("decision %v (%q), want H1 accepted", res.Decision, res.Verdict())
	}
	out := stdout.String()
	if !regexp.MustCompile(`^\n== \d\d:\d\d:\d\d match: bin/match -a `).MatchString(out) {
		t.Errorf("no stage header with the start time and the bin/match command line:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last, want := lines[len(lines)-2], res.Summary(); last != want || !strings.HasPrefix(want, "match: nnue vs hce: +") {
		t.Errorf("the report ends with %q, want the summary line %q", last, want)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "== match: done in ") {
		t.Errorf("the stage ends with %q, want its time", last)
	}
	if data, err := os.ReadFile(pgnPath); err != nil || strings.Count(string(data), "[Event ") != res.Score.Games() {
		t.Errorf("the PGN holds %d games, want %d (%v)", strings.Count(string(data), "[Event "), res.Score.Games(), err)
	}
}

// TestRunNeedsTheBinaries: run stops before any stage, with the fix, when
// bin/ lacks a program.
func TestRunNeedsTheBinaries(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout bytes.Buffer
	err := run(context.Background(), defaultConfig(), &stdout, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "bin/selfplay is missing: run make build first") || stdout.Len() != 0 {
		t.Errorf("error %v, output %q", err, stdout.String())
	}
}
