package match

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"chessforge/configs"
	"chessforge/selfplay/match/stats"
	"chessforge/selfplay/match/uciclient"
)

// writeConfig writes a config file and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "match.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFlagSyntaxes(t *testing.T) {
	s, err := ParseArgs([]string{"-a", "bin/engine -x", "-b", "sf", "-tc", "nodes=5000", "-b-tc", "clock=10+0.1",
		"-sprt", "elo0=0,elo1=10", "-a-opt", "Hash=64", "-a-opt", "Skill Level=3", "-resign", "600,3",
		"-draw", "10,8,80", "-timeout-margin", "2s", "-move-timeout", "1m30s", "-games", "8", "-quiet"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultSettings()
	want.A, want.B, want.Games, want.Quiet = "bin/engine -x", "sf", 8, true
	want.TC = TimeControl{Kind: TCNodes, N: 5000}
	want.BTC = TimeControl{Kind: TCClock, Base: 10 * time.Second, Inc: 100 * time.Millisecond}
	want.SPRT = SPRTSetting{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}
	want.AOpt = OptionList{{Name: "Hash", Value: "64"}, {Name: "Skill Level", Value: "3"}}
	want.Resign = ResignRule{Score: 600, Moves: 3}
	want.Draw = DrawRule{Score: 10, Moves: 8, MinPly: 80}
	want.TimeoutMargin = configs.Duration(2 * time.Second)
	want.MoveTimeout = configs.Duration(90 * time.Second)
	if !reflect.DeepEqual(*s, want) {
		t.Fatalf("got  %+v\nwant %+v", *s, want)
	}
	cfg, err := s.Config(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Players[0].TC != want.TC || cfg.Players[1].TC != want.BTC {
		t.Errorf("time controls %v, %v", cfg.Players[0].TC, cfg.Players[1].TC)
	}
	if cfg.SPRT == nil || *cfg.SPRT != (stats.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}) {
		t.Errorf("SPRT %+v", cfg.SPRT)
	}
	if *cfg.Resign != want.Resign || *cfg.Draw != want.Draw || cfg.Margin != 2*time.Second || cfg.MoveTimeout != 90*time.Second {
		t.Errorf("config %+v", cfg)
	}
	if !reflect.DeepEqual(cfg.Players[0].Command, []string{"bin/engine", "-x"}) || len(cfg.Players[0].Options) != 2 {
		t.Errorf("player A %+v", cfg.Players[0])
	}
	if cfg.Event != "chessforge match, nodes=5000 vs clock=10+0.1" {
		t.Errorf("event %q", cfg.Event)
	}

	// Without the flags: the defaults, and no SPRT or adjudication.
	s, err = ParseArgs(nil, io.Discard)
	if err != nil || !reflect.DeepEqual(*s, DefaultSettings()) {
		t.Fatalf("defaults %+v, %v", s, err)
	}
	if cfg, err = s.Config(io.Discard); err != nil || cfg.SPRT != nil || cfg.Resign != nil || cfg.Draw != nil {
		t.Errorf("default config %+v, %v", cfg, err)
	}
}

func TestConfigFileSetsSettingsAndFlagsOverrideIt(t *testing.T) {
	path := writeConfig(t, `{
  "b": "/usr/games/stockfish",
  "b-opt": ["UCI_LimitStrength=true", "UCI_Elo=2000"],
  "games": 200,
  "tc": "clock=10+0.1",
  "a-tc": "movetime=250",
  "sprt": "elo0=0,elo1=10",
  "resign": "600,3",
  "draw": "10,8,80",
  "timeout-margin": "2s",
  "seed": 7,
  "quiet": true
}`)
	s, err := ParseArgs([]string{"-config", path, "-games", "40", "-b-opt", "UCI_Elo=2400", "-sprt", ""}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultSettings()
	// From the file.
	want.B, want.Seed, want.Quiet = "/usr/games/stockfish", 7, true
	want.TC = TimeControl{Kind: TCClock, Base: 10 * time.Second, Inc: 100 * time.Millisecond}
	want.ATC = TimeControl{Kind: TCMovetime, Movetime: 250 * time.Millisecond}
	want.Resign, want.Draw = ResignRule{600, 3}, DrawRule{10, 8, 80}
	want.TimeoutMargin = configs.Duration(2 * time.Second)
	// From the flags: a repeated flag replaces the file's list, and an
	// empty -sprt turns off the file's test.
	want.Games = 40
	want.BOpt = OptionList{{Name: "UCI_Elo", Value: "2400"}}
	if !reflect.DeepEqual(*s, want) {
		t.Fatalf("got  %+v\nwant %+v", *s, want)
	}
	// Without those flags, the file's values.
	s, err = ParseArgs([]string{"-config", path}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s.Games != 200 || s.SPRT != (SPRTSetting{Elo1: 10, Alpha: 0.05, Beta: 0.05}) ||
		!reflect.DeepEqual(s.BOpt, OptionList{{Name: "UCI_LimitStrength", Value: "true"}, {Name: "UCI_Elo", Value: "2000"}}) {
		t.Errorf("file's settings %+v", *s)
	}
}

func TestConfigFileErrorsNameTheFileLineAndKey(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"{\n  \"games\": 10,\n  \"gmaes\": 10\n}", []string{"line 3", `"gmaes"`}},
		{"{\n  \"timeout_margin\": \"2s\"\n}", []string{"line 2", `"timeout_margin"`, `"timeout-margin"`}},
		{"{\n  \"book_plies\": 4\n}", []string{"line 2", `"book-plies"`}},
		{"{\n\n  \"tc\": \"nodes=0\"\n}", []string{"line 3", `"tc"`, "nodes must be a positive integer"}},
		{"{\n  \"sprt\": \"elo0=5,elo1=0\"\n}", []string{"line 2", `"sprt"`, "elo1 (0) must be greater than elo0 (5)"}},
		{"{\n  \"resign\": \"300\"\n}", []string{"line 2", `"resign"`, "want 2 comma-separated integers"}},
		{"{\n  \"a-opt\": \"Hash=64\"\n}", []string{"line 2", `"a-opt"`, "list"}},
		{"{\n  \"a-opt\": [\"=64\"]\n}", []string{"line 2", `"a-opt"`, "Name=Value"}},
		{"{\n  \"move-timeout\": \"soon\"\n}", []string{"line 2", `"move-timeout"`}},
		{"{\n  \"games\": \"ten\"\n}", []string{"line 2", `"games"`}},
	}
	for _, tc := range tests {
		path := writeConfig(t, tc.text)
		_, err := ParseArgs([]string{"-config", path}, io.Discard)
		if err == nil {
			t.Errorf("%q: no error", tc.text)
			continue
		}
		for _, w := range append(tc.want, path) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q does not name %s", tc.text, err, w)
			}
		}
	}
	if _, err := ParseArgs([]string{"-config", "/nonexistent/match.json"}, io.Discard); err == nil || !strings.Contains(err.Error(), "match.json") {
		t.Errorf("a missing file: error %v", err)
	}
}

// TestSettingsWriteTheirConfigFile checks that every setting written as JSON
// reads back the same: the config file form is each setting's flag text.
func TestSettingsWriteTheirConfigFile(t *testing.T) {
	s, err := ParseArgs([]string{"-a", "x 'y z'", "-a-name", "new", "-b-opt", "Hash=8", "-tc", "depth=6",
		"-b-tc", "clock=4+0.04", "-openings", "book.epd", "-book-plies", "6", "-random-plies", "2", "-pgn", "g.pgn",
		"-concurrency", "3", "-seed", "5", "-sprt", "elo0=-1.5,elo1=2,alpha=0.1,beta=0.2", "-resign", "700,4",
		"-draw", "0,10,60", "-timeout-margin", "1.5s", "-event", "E", "-quiet"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`"tc":"depth=6"`, `"b-tc":"clock=4+0.04"`, `"sprt":"elo0=-1.5,elo1=2,alpha=0.1,beta=0.2"`,
		`"resign":"700,4"`, `"draw":"0,10,60"`, `"timeout-margin":"1.5s"`, `"b-opt":["Hash=8"]`, `"a-tc":""`} {
		if !strings.Contains(string(data), frag) {
			t.Errorf("%s lacks %s", data, frag)
		}
	}
	back, err := ParseArgs([]string{"-config", writeConfig(t, string(data))}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("read back %+v\nwant      %+v", back, s)
	}
}

func TestBadFlagValuesAreRejectedWhenParsed(t *testing.T) {
	for _, args := range [][]string{
		{"-tc", "nodes=0"}, {"-a-tc", "hours=1"}, {"-sprt", "gamma=1"}, {"-resign", "0,3"},
		{"-draw", "1,0,0"}, {"-a-opt", "=1"}, {"-timeout-margin", "2"}, {"extra"},
	} {
		if _, err := ParseArgs(args, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	// Values set in code rather than parsed are checked by Config.
	for i, set := range []func(*Settings){
		func(s *Settings) { s.TC = TimeControl{} },
		func(s *Settings) { s.TC = TimeControl{Kind: TCClock} },
		func(s *Settings) { s.Resign = ResignRule{Score: 500} },
		func(s *Settings) { s.Draw = DrawRule{Score: 5} },
		func(s *Settings) { s.SPRT = SPRTSetting{Elo0: 5, Elo1: 0, Alpha: 0.05, Beta: 0.05} },
	} {
		s := DefaultSettings()
		set(&s)
		if _, err := s.Config(io.Discard); err == nil {
			t.Errorf("case %d: %+v: no error", i, s)
		}
	}
}

func TestOptionListFormsAgree(t *testing.T) {
	var l OptionList
	if err := json.Unmarshal([]byte(`["Skill Level=3", "Hash=16"]`), &l); err != nil {
		t.Fatal(err)
	}
	want := OptionList{uciclient.Option{Name: "Skill Level", Value: "3"}, uciclient.Option{Name: "Hash", Value: "16"}}
	if !reflect.DeepEqual(l, want) || l.String() != "Skill Level=3 Hash=16" {
		t.Errorf("%+v %q", l, l.String())
	}
}

func TestMaxPliesHelpGivesTheDraughtsDefault(t *testing.T) {
	var help strings.Builder
	if _, err := ParseArgs([]string{"-h"}, &help); err == nil {
		t.Fatal("-h: no error")
	}
	if want := "this many plies (0: no cap for chess, 400 for dama)\n"; !strings.Contains(help.String(), want) {
		t.Errorf("-h does not say %q:\n%s", want, help.String())
	}
}
