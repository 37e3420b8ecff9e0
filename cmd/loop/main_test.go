package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
	os.WriteFile(bad, []byte(`{"work-dir": "x", "selfplay-argz": []}`), 0o644)
	if _, err := loadConfig(bad); err == nil || !strings.Contains(err.Error(), "selfplay-argz") {
		t.Errorf("error %v, want one naming the unknown field", err)
	}
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"selfplay-args": ["-games", "10"]}`), 0o644)
	c, err := loadConfig(good)
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkDir != "data/loop" || c.WeightsFile != "engine/eval/weights_gen.go" || len(c.SelfplayArgs) != 2 {
		t.Errorf("defaults not applied: %+v", c)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(`{"work-dir": ""}`), 0o644)
	if _, err := loadConfig(empty); err == nil || !strings.Contains(err.Error(), "empty.json") {
		t.Errorf("empty work-dir: %v", err)
	}
}

// TestOldSnakeCaseKeysAreRejectedWithTheNewName: configs/loop.json's keys
// were snake_case; a file still using them is told the kebab-case name.
func TestOldSnakeCaseKeysAreRejectedWithTheNewName(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(old, []byte("{\n  \"work-dir\": \"x\",\n  \"keep_if_undecided\": false\n}"), 0o644)
	_, err := loadConfig(old)
	if err == nil || !strings.Contains(err.Error(), "old.json") || !strings.Contains(err.Error(), `line 3: key "keep_if_undecided" is now "keep-if-undecided"`) {
		t.Errorf("error %v, want one naming old.json, line 3 and keep-if-undecided", err)
	}
}

func TestFlagsOverrideTheConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loop.json")
	os.WriteFile(path, []byte(`{"work-dir": "w", "tune-args": ["-quiet"], "keep-if-undecided": true}`), 0o644)
	c, err := parseArgs([]string{"-config", path, "-tune-args", "-lambda 0 -quiet", "-keep-if-undecided=false"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := defaultConfig()
	want.WorkDir = "w"
	want.TuneArgs, want.KeepIfUndecided = []string{"-lambda", "0", "-quiet"}, false
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
	if _, err := parseArgs([]string{"-config", path, "-work-dir", ""}, io.Discard); err == nil {
		t.Error("an empty -work-dir is accepted")
	}
	if _, err := parseArgs([]string{"-config", path, "extra"}, io.Discard); err == nil {
		t.Error("an extra argument is accepted")
	}
}

func TestShippedConfigLoads(t *testing.T) {
	c, err := loadConfig("../../configs/loop.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.SelfplayArgs) == 0 || len(c.TuneArgs) == 0 || len(c.MatchArgs) == 0 {
		t.Errorf("stage arguments missing: %+v", c)
	}
}
