package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseMatchReadsSummaryAndVerdict(t *testing.T) {
	out := `Score of A:  +30 =40 -20, 55.6% (50.0/90)
SPRT:        elo0=0 elo1=10 alpha=0.05 beta=0.05: LLR 3.012, bounds (-2.944, 2.944): H1 accepted: A is stronger by about 10 Elo or more
match: tuned vs before: +30 =40 -20, Elo +38.9 ± 52.1
`
	s, err := parseMatch(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Elo != 38.9 || s.Margin != 52.1 || s.Verdict != "H1 accepted" {
		t.Errorf("got %+v", s)
	}
	if _, err := parseMatch("nothing useful\n"); err == nil {
		t.Error("want an error without a summary line")
	}
}

func TestKeepFollowsSPRTThenInterval(t *testing.T) {
	cases := []struct {
		s         matchSummary
		undecided bool
		want      bool
	}{
		{matchSummary{Elo: -5, Margin: 30, Verdict: "H1 accepted"}, true, true},
		{matchSummary{Elo: 40, Margin: 30, Verdict: "H0 accepted"}, true, false},
		{matchSummary{Elo: 40, Margin: 30, Verdict: "undecided"}, true, true},
		{matchSummary{Elo: 20, Margin: 30, Verdict: "undecided"}, true, false},
		{matchSummary{Elo: 40, Margin: 30, Verdict: "undecided"}, false, false},
		{matchSummary{Elo: 40, Margin: 30}, true, true},
	}
	for _, c := range cases {
		if got := keep(c.s, c.undecided); got != c.want {
			t.Errorf("keep(%+v, %v) = %v, want %v", c.s, c.undecided, got, c.want)
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
