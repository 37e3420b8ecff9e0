package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"chessforge/cmd/internal/stage"
	"chessforge/configs"
	"chessforge/engine/nnue"
	"chessforge/selfplay"
	"chessforge/selfplay/match"
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
		"-pgn", pgnPath, "-games", "40", "-tc", "nodes=1", "-concurrency", "2", "-sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05"}
	var stdout, stderr bytes.Buffer
	res, err := stage.PlayMatch(context.Background(), "match", args, &stdout, &stderr)
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
	if !regexp.MustCompile(`^\n== \d\d:\d\d:\d\d match: bin/match -a `).MatchString(out) ||
		!strings.Contains(out, " match: bin/match -a '"+exe+" random' -a-name tuned") {
		t.Errorf("no stage header with the start time and the bin/match command line:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last, want := lines[len(lines)-2], res.Summary(); last != want || !strings.HasPrefix(want, "match: tuned vs before: +") {
		t.Errorf("the report ends with %q, want the summary line %q", last, want)
	}
	// The match's progress goes to stderr, in plain lines off a terminal.
	progress := stderr.String()
	if strings.Contains(progress, "\r") || !strings.Contains(progress, fmt.Sprintf("match: %d/%d games (100%%)", res.Score.Games(), res.Score.Games())) {
		t.Errorf("the match's progress on stderr:\n%q", progress)
	}
	if n := strings.Count(out, res.Summary()); n != 1 {
		t.Errorf("the summary line is printed %d times", n)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "== match: done in ") {
		t.Errorf("the stage ends with %q, want its time", last)
	}
	if data, err := os.ReadFile(pgnPath); err != nil || strings.Count(string(data), "[Event ") != res.Score.Games() {
		t.Errorf("the PGN holds %d games, want %d (%v)", strings.Count(string(data), "[Event "), res.Score.Games(), err)
	}
	if _, err := stage.PlayMatch(context.Background(), "match", []string{"-games", "0"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-games 0: must be positive") {
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

func TestConfigFileRejectsUnknownFields(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"work-dir": "x", "selfplay-argz": []}`), 0o644)
	if _, err := parseArgs([]string{"-config", bad}, io.Discard); err == nil || !strings.Contains(err.Error(), "selfplay-argz") {
		t.Errorf("error %v, want one naming the unknown field", err)
	}
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"selfplay-args": ["-games", "10"]}`), 0o644)
	c, err := parseArgs([]string{"-config", good}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkDir != "data/loop" || c.WeightsFile != "engine/eval/weights_gen.go" || len(c.SelfplayArgs) != 2 {
		t.Errorf("defaults not applied: %+v", c)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(`{"work-dir": ""}`), 0o644)
	if _, err := parseArgs([]string{"-config", empty}, io.Discard); err == nil || !strings.Contains(err.Error(), "must not be empty") {
		t.Errorf("empty work-dir: %v", err)
	}
}

// TestOldSnakeCaseKeysAreRejectedWithTheNewName: configs/loop.json's keys
// were snake_case; a file still using them is told the kebab-case name.
func TestOldSnakeCaseKeysAreRejectedWithTheNewName(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(old, []byte("{\n  \"work-dir\": \"x\",\n  \"keep_if_undecided\": false\n}"), 0o644)
	_, err := parseArgs([]string{"-config", old}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "old.json") || !strings.Contains(err.Error(), `line 3: key "keep_if_undecided" is now "keep-if-undecided"`) {
		t.Errorf("error %v, want one naming old.json, line 3 and keep-if-undecided", err)
	}
}

func TestFlagsOverrideTheConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loop.json")
	os.WriteFile(path, []byte(`{"work-dir": "w", "tune-args": ["-quiet"], "keep-if-undecided": true}`), 0o644)
	c, err := parseArgs([]string{"-config", path, "-tune-args", "-lambda 0 -quiet", "-keep-if-undecided=false", "-record", "h.jsonl"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := defaultConfig()
	want.WorkDir, want.Record.File = "w", "h.jsonl"
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
	c, err := parseArgs([]string{"-config", "../../configs/loop.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.SelfplayArgs) == 0 || len(c.TuneArgs) == 0 || len(c.MatchArgs) == 0 {
		t.Errorf("stage arguments missing: %+v", c)
	}
	// The match arguments are bin/match's: they must parse and make a match.
	s, err := match.ParseArgs(c.MatchArgs, io.Discard)
	if err != nil {
		t.Fatalf("match-args %q: %v", c.MatchArgs, err)
	}
	if _, err := s.Config(io.Discard); err != nil || s.SPRT == (match.SPRTSetting{}) {
		t.Errorf("match-args %q: SPRT %v, %v", c.MatchArgs, s.SPRT, err)
	}
}

// TestShippedConfigsRecordIntoTheHistory: each shipped cycle appends its
// records to its topic's file of docs/history, under its make target's
// name; by default nothing is recorded.
func TestShippedConfigsRecordIntoTheHistory(t *testing.T) {
	for _, c := range []struct{ config, file, loop string }{
		{"loop.json", "docs/history/loop.jsonl", "loop"},
		{"loop-nnue.json", "docs/history/networks.jsonl", "loop-nnue"},
		{"dama-loop.json", "docs/history/dama.jsonl", "loop-dama"},
	} {
		cfg, err := parseArgs([]string{"-config", "../../configs/" + c.config}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Record.File != c.file || loopName(cfg) != c.loop {
			t.Errorf("%s: record %q, loop %q; want %q, %q", c.config, cfg.Record.File, loopName(cfg), c.file, c.loop)
		}
	}
	if f := defaultConfig().Record.File; f != "" {
		t.Errorf("the default record file is %q, want none", f)
	}
}

// TestRunRefusesABadRecordFile: a history file that does not read stops
// the loop before any stage, naming its line.
func TestRunRefusesABadRecordFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "loop.jsonl")
	os.WriteFile(bad, []byte("{}\n"), 0o644)
	for _, cycle := range []string{cycleTexel, cycleNNUE} {
		cfg := defaultConfig()
		cfg.Cycle, cfg.WorkDir, cfg.Record.File = cycle, filepath.Join(t.TempDir(), "work"), bad
		var out bytes.Buffer
		err := run(context.Background(), cfg, &out, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "record: "+bad+":1: ") || out.Len() != 0 {
			t.Errorf("%s: error %v, output %q", cycle, err, out.String())
		}
		if _, err := os.Stat(cfg.WorkDir); err == nil {
			t.Errorf("%s: the work directory was made", cycle)
		}
	}
}

// TestTuneRefusalIsNoGain checks that the loop tells bin/tune's refusal of
// its weights (exit status 3) from a failure of the stage.
func TestTuneRefusalIsNoGain(t *testing.T) {
	for _, c := range []struct {
		code string
		want bool
	}{{"3", true}, {"1", false}, {"2", false}} {
		err := stage.Run("tune", io.Discard, io.Discard, "sh", "-c", "exit "+c.code)
		if err == nil || noGain(err) != c.want {
			t.Errorf("exit %s: error %v, noGain %v, want %v", c.code, err, noGain(err), c.want)
		}
	}
	if err := stage.Run("tune", io.Discard, io.Discard, "true"); err != nil || noGain(err) {
		t.Errorf("exit 0: error %v", err)
	}
}

// TestConfigErrorsNameTheFileAndLineAndExitTwo: a mistake in the loop's
// config file, read through the command line as `make loop` does, is a
// usage error of one line naming the file, the line and the key.
func TestConfigErrorsNameTheFileAndLineAndExitTwo(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"{\n  \"work-dir\": \"x\",\n  \"tune-arg\": [\"-lambda\", \"0.5\"]\n}\n", `line 3: unknown field "tune-arg" (the keys are the flag names)`},
		{"{\n  \"work-dir\": \"x\",\n  \"keep-if-undecided\": \"yes\"\n}\n", `line 3: key "keep-if-undecided": string is not a valid bool`},
		{"{\n  \"work-dir\": \"x\"\n  \"weights-file\": \"w.go\"\n}\n", "line 3: invalid character"},
	} {
		path := filepath.Join(dir, "loop.json")
		os.WriteFile(path, []byte(c.text), 0o644)
		_, err := parseArgs([]string{"-config", path}, io.Discard)
		var stderr bytes.Buffer
		code := configs.Exit(&stderr, "loop", err)
		want := "loop: config " + path + ": " + c.want
		if code != 2 || !strings.HasPrefix(stderr.String(), want) || !strings.HasSuffix(stderr.String(), "\nrun 'loop -h' for usage\n") || strings.Count(stderr.String(), "\n") != 2 {
			t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), want)
		}
	}
}

func TestShippedNetworkConfigLoads(t *testing.T) {
	c, err := parseArgs([]string{"-config", "../../configs/loop-nnue.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cycle != cycleNNUE || c.WorkDir != "data/loop-nnue" || c.NetworkFile != "engine/nnue/default.nnue" || c.Promote || !c.Fit ||
		len(c.SelfplayArgs) == 0 || len(c.ExportArgs) == 0 || len(c.TrainArgs) == 0 {
		t.Errorf("settings: %+v", c)
	}
	// The match, with the cycle's own arguments, is bin/match's: both
	// engines with a network, an SPRT at a clock.
	s, err := match.ParseArgs(networkMatchArgs("bin/engine", "n.nnue", "c.nnue", "m.pgn", "cycle 1", c.MatchArgs), io.Discard)
	if err != nil {
		t.Fatalf("match-args %q: %v", c.MatchArgs, err)
	}
	if s.SPRT == (match.SPRTSetting{}) || s.TC.Base == 0 || s.AOpt.String() != "Use NNUE=true EvalFile=n.nnue" || s.BOpt.String() != "Use NNUE=true EvalFile=c.nnue" ||
		!s.Resume || s.Event != "cycle 1" {
		t.Errorf("match-args %q: SPRT %v, time control %q, options %q and %q, resume %v, event %q", c.MatchArgs, s.SPRT, s.TC, s.AOpt, s.BOpt, s.Resume, s.Event)
	}
}

func TestCycleSettingsAreChecked(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-cycle", "dama"}, `cycle "dama": want texel or nnue`},
		{[]string{"-cycle", "nnue", "-cycles", "0"}, "cycles 0: must be positive"},
		{[]string{"-cycle", "nnue", "-python-env", ""}, "python-env must not be empty"},
		{[]string{"-cycle", "nnue", "-network-file", ""}, "network-file must not be empty"},
		{[]string{"-cycle", "nnue", "-fit-pawn-scale=false"}, "match-level needs fit-pawn-scale: the level is fitted with the pawn table"},
		{[]string{"-cycle", "texel", "-weights-file", ""}, "weights-file must not be empty"},
		{[]string{"-cycle", "nnue", "-game", "dama", "-weights-file", "engine/dama/eval/weights_gen.go"}, "cycle nnue with game dama: the network cycle trains chess networks only"},
	} {
		_, err := parseArgs(append([]string{"-config", "../../configs/loop.json"}, c.args...), io.Discard)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
	if c, err := parseArgs([]string{"-config", "../../configs/loop.json", "-cycle", "nnue", "-cycles", "3", "-promote"}, io.Discard); err != nil || c.Cycles != 3 || !c.Promote {
		t.Errorf("%+v, %v", c, err)
	}
}

func TestEloGainBoundsAPerfectOrZeroScore(t *testing.T) {
	for _, c := range []struct {
		e    stats.Estimate
		want string
	}{
		{stats.Estimate{Elo: 1.74, Lo: -17.9, Hi: 21.3}, "+1.7 ± 19.6"},
		{stats.Estimate{Elo: -12, Lo: -30, Hi: 6}, "-12.0 ± 18.0"},
		{stats.Estimate{Elo: math.Inf(-1), Lo: math.Inf(-1), Hi: 290.5}, "< +290.5 (95%)"},
		{stats.Estimate{Elo: math.Inf(1), Lo: 120, Hi: math.Inf(1)}, "> +120.0 (95%)"},
	} {
		if got := eloGain(c.e); got != c.want {
			t.Errorf("eloGain(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}

// TestStagesGiveEveryStageTheGame: a chess cycle's stages are the command
// lines the loop always ran; a draughts cycle's give each stage and both
// engines -game dama and keep the games as PDN.
func TestStagesGiveEveryStageTheGame(t *testing.T) {
	cfg := defaultConfig()
	cfg.SelfplayArgs, cfg.TuneArgs, cfg.MatchArgs = []string{"-games", "10"}, []string{"-val", "0.2"}, []string{"-games", "20"}
	got := commands(cfg, "w/base", "w/tuned")
	want := stages{
		selfplay: []string{"bin/selfplay", "-games", "10", "-out", "data/loop/selfplay", "-pgn", "data/loop/selfplay.pgn"},
		tune:     []string{"bin/tune", "-data", "data/loop/selfplay", "-out", "engine/eval/weights_gen.go", "-report", "data/loop/tune-report", "-val", "0.2"},
		match:    []string{"-a", "w/tuned", "-a-name", "tuned", "-b", "w/base", "-b-name", "before", "-pgn", "data/loop/match.pgn", "-a-opt", "Use NNUE=false", "-b-opt", "Use NNUE=false", "-games", "20"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chess:\ngot  %q\nwant %q", got, want)
	}
	cfg.Game, cfg.WorkDir, cfg.WeightsFile = match.Dama, "d", damaWeights
	got = commands(cfg, "d/base", "d/tuned")
	want = stages{
		selfplay: []string{"bin/selfplay", "-game", "dama", "-games", "10", "-out", "d/selfplay", "-pgn", "d/selfplay.pdn"},
		tune:     []string{"bin/tune", "-game", "dama", "-data", "d/selfplay", "-out", damaWeights, "-report", "d/tune-report", "-val", "0.2"},
		match: []string{"-game", "dama", "-a", "d/tuned -game dama", "-a-name", "tuned", "-b", "d/base -game dama", "-b-name", "before",
			"-pgn", "d/match.pdn", "-games", "20"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dama:\ngot  %q\nwant %q", got, want)
	}
}

// TestDamaConfig: the shipped draughts cycle loads, its match arguments make
// a draughts match with an SPRT, and a draughts cycle on the chess tables or
// an unknown game is refused.
func TestDamaConfig(t *testing.T) {
	c, err := parseArgs([]string{"-config", "../../configs/dama-loop.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Game != match.Dama || c.WeightsFile != damaWeights || len(c.SelfplayArgs) == 0 || len(c.TuneArgs) == 0 {
		t.Errorf("configs/dama-loop.json: %+v", c)
	}
	s, err := match.ParseArgs(commands(c, "base", "tuned").match, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config(io.Discard)
	if err != nil || cfg.Game != match.Dama || cfg.SPRT == nil || len(cfg.DamaOpenings) == 0 {
		t.Errorf("match-args %q: %+v, %v", c.MatchArgs, cfg, err)
	}
	for _, c := range []struct{ args, want string }{
		{"-game dama", "game dama with weights-file engine/eval/weights_gen.go, the chess tables: a draughts cycle tunes engine/dama/eval/weights_gen.go"},
		{"-game go", `game "go": want chess or dama`},
	} {
		_, err := parseArgs(append([]string{"-config", "../../configs/loop.json"}, strings.Fields(c.args)...), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.args, err, c.want)
		}
	}
}

// TestDamaMatchStep plays a draughts cycle's match step against fake
// text-protocol engines, as the loop plays it: the SPRT's verdict comes back
// as a value and the games go to PDN.
func TestDamaMatchStep(t *testing.T) {
	exe := matchtest.Command(t)[0]
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.Game, cfg.WorkDir, cfg.WeightsFile = match.Dama, dir, damaWeights
	cfg.MatchArgs = []string{"-games", "40", "-tc", "nodes=1", "-concurrency", "2", "-sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05"}
	// The fake engines ignore the -game dama the loop adds to their commands.
	args := commands(cfg, exe+" dama illegal 1", exe+" dama random").match
	var stdout, stderr bytes.Buffer
	res, err := stage.PlayMatch(context.Background(), "match", args, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Verdict() != "H1 accepted" || res.Score.L != 0 || res.Score.D != 0 {
		t.Errorf("verdict %q, score %+v", res.Verdict(), res.Score)
	}
	if !strings.Contains(stdout.String(), "\nmatch: tuned vs before: +") {
		t.Errorf("no summary line:\n%s", stdout.String())
	}
	if data, err := os.ReadFile(filepath.Join(dir, "match.pdn")); err != nil || strings.Count(string(data), `[GameType "22"]`) != res.Score.Games() {
		t.Errorf("the PDN holds %d games, want %d (%v)", strings.Count(string(data), `[GameType "22"]`), res.Score.Games(), err)
	}
}

// TestCopyFileKeepsTheModificationTime: weights restored from their backup
// are as old as they were, so that the binaries built from them still pass
// stage.CheckBinaries on the next run.
func TestCopyFileKeepsTheModificationTime(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "weights_gen.go.before"), filepath.Join(dir, "weights_gen.go")
	if err := os.WriteFile(src, []byte("package eval\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)
	if err := os.Chtimes(src, old, old); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(dst, src); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(dst); string(data) != "package eval\n" || !info.ModTime().Equal(old) {
		t.Errorf("copy %q modified %v, want the source's content and %v", data, info.ModTime(), old)
	}
}

func TestTheTexelCycleNamesTheEvaluationThatPlayed(t *testing.T) {
	dir := t.TempDir()
	play := func(out string, network bool) {
		cfg := selfplay.DefaultConfig()
		cfg.Games, cfg.Nodes, cfg.Hash, cfg.MaxPlies, cfg.Workers = 2, 100, 1, 20, 1
		cfg.NNUE, cfg.Out = network, out
		if _, err := selfplay.Run(context.Background(), cfg, selfplay.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	net, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	play(filepath.Join(dir, "net"), true)
	play(filepath.Join(dir, "hce"), false)
	for sub, want := range map[string]string{"net": "the network " + net.ID(), "hce": "the hand-crafted evaluation"} {
		if got, err := selfplayEvaluation(filepath.Join(dir, sub)); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", sub, got, err, want)
		}
	}
	// One directory holding both is no cycle's self-play.
	mixed := filepath.Join(dir, "mixed")
	os.Mkdir(mixed, 0o755)
	for _, sub := range []string{"net", "hce"} {
		parts, _ := filepath.Glob(filepath.Join(dir, sub, "*.parquet"))
		for _, p := range parts {
			os.Link(p, filepath.Join(mixed, sub+"-"+filepath.Base(p)))
		}
	}
	if _, err := selfplayEvaluation(mixed); err == nil || !strings.Contains(err.Error(), "2 evaluations") {
		t.Errorf("a directory of both evaluations: %v", err)
	}
}

// TestShippedChessCyclesDecideAtTheClock: every shipped chess cycle keeps
// or reverts by an SPRT at a clock of 4+0.04 or longer, never at a fixed
// node count, which predicts the clock poorly and is a screen only. The
// draughts cycle plays a node count: its text protocol has no clock.
func TestShippedChessCyclesDecideAtTheClock(t *testing.T) {
	for _, name := range []string{"loop.json", "loop-nnue.json"} {
		c, err := parseArgs([]string{"-config", "../../configs/" + name}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		s, err := match.ParseArgs(commands(c, "base", "tuned").match, io.Discard)
		if err != nil {
			t.Fatalf("%s: match-args %q: %v", name, c.MatchArgs, err)
		}
		cfg, err := s.Config(io.Discard)
		if err != nil {
			t.Fatalf("%s: match-args %q: %v", name, c.MatchArgs, err)
		}
		if cfg.SPRT == nil || s.TC.Kind != match.TCClock || s.TC.Base < 4*time.Second || s.TC.Inc < 40*time.Millisecond {
			t.Errorf("%s: match-args %q: SPRT %v at %q; want an SPRT at clock=4+0.04 or longer", name, c.MatchArgs, cfg.SPRT, s.TC)
		}
	}
	c, err := parseArgs([]string{"-config", "../../configs/dama-loop.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s, err := match.ParseArgs(commands(c, "base", "tuned").match, io.Discard)
	if err != nil || s.TC.Kind != match.TCNodes {
		t.Errorf("dama-loop.json: match-args %q: %q, %v; want a node count (draughts engines have no clock)", c.MatchArgs, s.TC, err)
	}
}
