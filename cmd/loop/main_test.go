package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/selfplay/match/matchtest"
	"chessforge/selfplay/match/stats"
)

func TestMain(m *testing.M) { os.Exit(matchtest.Run(m)) }

// TestMatchStepReadsTheVerdictThroughGo plays the loop's match step against
// fake engines, one of which forfeits every game, and checks that the loop
// gets the SPRT's verdict and the Elo as values, prints the match's report
// ending with its summary line, writes the PGN and keeps the tables.
func TestMatchStepReadsTheVerdictThroughGo(t *testing.T) {
	exe := matchtest.Command(t)[0]
	pgnPath := filepath.Join(t.TempDir(), "match.pgn")
	args := []string{"-a", exe + " random", "-a-name", "tuned", "-b", exe + " illegal 1", "-b-name", "before",
		"-pgn", pgnPath, "-games", "40", "-tc", "nodes=1", "-concurrency", "2", "-sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05", "-quiet"}
	var stdout, stderr bytes.Buffer
	res, err := playMatch("match", args, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Decision != stats.AcceptH1 || res.Verdict() != "H1 accepted" || !res.Stopped {
		t.Errorf("decision %v (%q, LLR %.3f), want H1 accepted", res.Decision, res.Verdict(), res.LLR)
	}
	e := res.Estimate()
	if !math.IsInf(e.Elo, 1) || res.Score.L != 0 || res.Score.D != 0 || res.Score.W < 20 {
		t.Errorf("A scored %+v, Elo %v; want only wins, +Inf", res.Score, e.Elo)
	}
	if !keep(res.Decision, e.Elo, e.Margin(), false) {
		t.Error("an accepted H1 must keep the tables")
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "\n== match: bin/match -a "+exe+" random -a-name tuned") {
		t.Errorf("no stage header with the bin/match command line:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last, want := lines[len(lines)-1], res.Summary(); last != want || !strings.HasPrefix(want, "match: tuned vs before: +") {
		t.Errorf("the report ends with %q, want the summary line %q", last, want)
	}
	if data, err := os.ReadFile(pgnPath); err != nil || strings.Count(string(data), "[Event ") != res.Score.Games() {
		t.Errorf("the PGN holds %d games, want %d (%v)", strings.Count(string(data), "[Event "), res.Score.Games(), err)
	}
	if _, err := playMatch("match", []string{"-games", "0"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-games 0: must be positive") {
		t.Errorf("bad match arguments: error %v", err)
	}
}

func TestKeepFollowsSPRTThenInterval(t *testing.T) {
	cases := []struct {
		decision    stats.Decision
		elo, margin float64
		undecided   bool
		want        bool
	}{
		{stats.AcceptH1, -5, 30, true, true},
		{stats.AcceptH0, 40, 30, true, false},
		{stats.Continue, 40, 30, true, true},
		{stats.Continue, 20, 30, true, false},
		{stats.Continue, 40, 30, false, false},
		{stats.Continue, math.NaN(), math.NaN(), true, false},
	}
	for _, c := range cases {
		if got := keep(c.decision, c.elo, c.margin, c.undecided); got != c.want {
			t.Errorf("keep(%v, %v, %v, %v) = %v, want %v", c.decision, c.elo, c.margin, c.undecided, got, c.want)
		}
	}
}

func TestLoadConfigRejectsUnknownFields(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"work_dir": "x", "selfplay_argz": []}`), 0o644)
	if _, err := loadConfig(bad); err == nil {
		t.Error("want an error naming the unknown field")
	}
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"selfplay_args": ["-games", "10"]}`), 0o644)
	c, err := loadConfig(good)
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkDir != "data/loop" || c.WeightsFile != "engine/eval/weights_gen.go" || len(c.SelfplayArgs) != 2 {
		t.Errorf("defaults not applied: %+v", c)
	}
}

func TestShippedConfigLoads(t *testing.T) {
	if _, err := loadConfig("../../configs/loop.json"); err != nil {
		t.Fatal(err)
	}
}
