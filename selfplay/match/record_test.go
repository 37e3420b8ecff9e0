package match

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"chessforge/engine/nnue"
	"chessforge/selfplay/match/uciclient"
)

// TestRecordOfAnInterruptedMatchSaysSo stops a match while it is played and
// checks its record: ended interrupted, the games finished so far, the
// engines as the settings gave them.
func TestRecordOfAnInterruptedMatchSaysSo(t *testing.T) {
	exe := fake(t)[0]
	var stderr bytes.Buffer
	settings, err := ParseArgs([]string{"-a", exe + " slow 20", "-b", exe + " illegal 1", "-b-opt", "Hash=2",
		"-games", "400", "-tc", "nodes=1", "-b-tc", "depth=2", "-concurrency", "1", "-seed", "7", "-quiet"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // a game or more on a busy machine, far from 400
	defer cancel()
	r, err := Play(ctx, settings, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !r.Interrupted || r.Score.Games() == 0 {
		t.Fatalf("interrupted %v after %d games: the test wants an interrupted match with games", r.Interrupted, r.Score.Games())
	}
	rec, err := r.Record(settings, "")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Ended != "interrupted" || rec.Games != r.Score.Games() || rec.Games >= 400 {
		t.Errorf("ended %q after %d games, want interrupted after %d", rec.Ended, rec.Games, r.Score.Games())
	}
	if rec.TC != "a:nodes=1/b:depth=2" || rec.What != "fake slow vs fake illegal at a:nodes=1/b:depth=2" {
		t.Errorf("tc %q, what %q", rec.TC, rec.What)
	}
	if *rec.Seed != 7 || rec.Concurrency != 1 || rec.Openings != "built-in" || rec.WallS == nil {
		t.Errorf("seed %d, concurrency %d, openings %q, wall_s %v", *rec.Seed, rec.Concurrency, rec.Openings, rec.WallS)
	}
	a, b := rec.Engines[0], rec.Engines[1]
	if a.Name != "fake slow" || a.Command != exe+" slow 20" || a.Build != "fake slow" || a.Network != "" || a.Eval != "" {
		t.Errorf("engine A %+v", a)
	}
	if b.Options["Hash"] != "2" || len(b.Options) != 1 {
		t.Errorf("engine B's options %v", b.Options)
	}
}

// TestRecordOfAMatchStoppedBySPRT plays an engine that never loses against
// one that always does: the SPRT stops it, and the perfect score's Elo is
// its interval's finite end, with a note.
func TestRecordOfAMatchStoppedBySPRT(t *testing.T) {
	exe := fake(t)[0]
	var stderr bytes.Buffer
	settings, err := ParseArgs([]string{"-a", exe + " random", "-b", exe + " illegal 1", "-games", "1000", "-tc", "nodes=1",
		"-sprt", "elo0=0,elo1=50", "-quiet"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Play(context.Background(), settings, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rec, err := r.Record(settings, "sure win")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Ended != "sprt" || rec.Verdict != "H1" || rec.SPRT == nil || rec.SPRT.LLR < rec.SPRT.Upper {
		t.Errorf("ended %q, verdict %q, sprt %+v", rec.Ended, rec.Verdict, rec.SPRT)
	}
	if rec.WDL[0] != rec.Games || rec.EloCI != nil || *rec.Elo <= 0 || rec.EloBound != "above" || !strings.Contains(rec.Note, "infinite") {
		t.Errorf("wdl %v of %d games, elo %v ± %v (bound %q), note %q", rec.WDL, rec.Games, *rec.Elo, rec.EloCI, rec.EloBound, rec.Note)
	}
	if want := [5]int{0, 0, 0, 0, rec.Games / 2}; len(rec.Penta) != 5 || [5]int(rec.Penta) != want {
		t.Errorf("penta %v, want %v", rec.Penta, want)
	}
	if rec.What != "sure win" || !regexp.MustCompile(`^\d{4}-\d\d-\d\d-sure-win-[0-9a-f]{6}$`).MatchString(rec.ID) {
		t.Errorf("what %q, id %q", rec.What, rec.ID)
	}
}

// TestIdentifyNamesTheProjectEnginesNetwork asks the project's engine, as
// Record does, for its build, its network and its evaluation.
func TestIdentifyNamesTheProjectEnginesNetwork(t *testing.T) {
	exe := projectEngine(t)
	net, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		opts          []uciclient.Option
		network, eval string
	}{
		{"defaults", nil, net.ID(), "nnue"},
		{"use nnue", []uciclient.Option{{Name: "Use NNUE", Value: "true"}}, net.ID(), "nnue"},
		{"hand-crafted", []uciclient.Option{{Name: "Use NNUE", Value: "false"}}, "", "hce"},
		{"missing network", []uciclient.Option{{Name: "EvalFile", Value: "/nonexistent.nnue"}}, "", "hce"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			build, network, eval := identify([]string{exe}, tc.opts, identifyTimeout)
			if !strings.HasPrefix(build, "chessforge ") || network != tc.network || eval != tc.eval {
				t.Errorf("identify = %q, %q, %q; want chessforge ..., %q, %q", build, network, eval, tc.network, tc.eval)
			}
		})
	}
}
