package stage

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"chessforge/engine/nnue"
	"chessforge/internal/record"
	"chessforge/selfplay/match"
	"chessforge/selfplay/match/stats"
)

func TestCheckRecordFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"kind\": \"cycle\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string // want: "" for no error, else in the error
	}{
		{"", ""},
		{filepath.Join(dir, "new.jsonl"), ""},
		{filepath.Join(dir, "missing", "new.jsonl"), "does not exist"},
		{bad, bad + ":1: "},
	} {
		err := CheckRecordFile(c.path)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckRecordFile(%q) = %v, want %q", c.path, err, c.want)
		}
	}
}

// fakeMatch returns a match stage that plays nothing and returns res, or
// err; engines that exit at once stand for the match's engines, which the
// record asks for their names.
func fakeMatch(res *match.Result, err error) (MatchFunc, []string) {
	play := func(ctx context.Context, name string, args []string, stdout, stderr io.Writer) (*match.Result, error) {
		return res, err
	}
	return play, []string{"-a", "true", "-a-name", "next", "-b", "true", "-b-name", "current", "-games", "80", "-tc", "nodes=300",
		"-sprt", "elo0=0,elo1=10,alpha=0.05,beta=0.05"}
}

func decided(d stats.Decision) *match.Result {
	return &match.Result{Names: [2]string{"next", "current"}, TC: [2]match.TimeControl{{Kind: match.TCNodes, N: 300}, {Kind: match.TCNodes, N: 300}},
		Score: stats.Trinomial{W: 30, D: 40, L: 10}, SPRT: &stats.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}, Decision: d, Stopped: true}
}

// TestCycleRecordsItsMatchNetworkAndItself runs a cycle's stages and a
// match stand-in with a history file: the file gets the match's record,
// the network's gated by it, and the cycle's with every stage, the verdict
// and both ids.
func TestCycleRecordsItsMatchNetworkAndItself(t *testing.T) {
	path := filepath.Join(t.TempDir(), "networks.jsonl")
	c := &Cycle{File: path, Loop: "loop-nnue", Number: 2}
	if err := c.Stage("self-play", func() error { time.Sleep(100 * time.Millisecond); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := c.Stage("train", func() error { return errors.New("no") }); err == nil {
		t.Fatal("a stage's error was lost")
	}
	play, args := fakeMatch(decided(stats.AcceptH1), nil)
	res, err := c.Match(context.Background(), play, "network next against current", "match: next against current", args, io.Discard, io.Discard)
	if err != nil || res.Decision != stats.AcceptH1 {
		t.Fatalf("match: %v, %v", res, err)
	}
	file := filepath.Join("..", "..", "..", "engine", "nnue", "default.nnue")
	net, err := nnue.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	v := 0.041
	n := Network{ID: net.ID(), Exported: "0123456789abcdef", File: file, Parent: "hce", Data: "tiny self-play",
		Command: []string{"chessforge-nnue", "train", "npy"}, Kept: true,
		State: TrainState{TrainRows: 900, History: []EpochLoss{{Epoch: 1, TrainLoss: 0.05}, {Epoch: 2, TrainLoss: 0.04, ValLoss: &v}}}}
	netRec, err := NetworkRecord(n, c.MatchID())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Finish(Kept, "loop-nnue cycle 2", net.ID(), "", netRec); err != nil {
		t.Fatal(err)
	}
	if err := c.Finish(Kept, "loop-nnue cycle 2", net.ID(), ""); err != nil {
		t.Fatal(err)
	}
	recs, err := record.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0].Kind != record.KindMatch || recs[1].Kind != record.KindNetwork || recs[2].Kind != record.KindCycle {
		t.Fatalf("records %+v, want a match, a network and a cycle, appended once", recs)
	}
	m, nr, cy := recs[0], recs[1], recs[2]
	if m.ID != c.MatchID() || m.Games != 80 || m.Verdict != "H1" || m.Ended != "sprt" || m.What != "network next against current" {
		t.Errorf("match record %+v", m)
	}
	if nr.Gate != m.ID || nr.Network != net.ID() || nr.Parent != "hce" || nr.Arch != net.Architecture() || nr.Positions != 900 ||
		len(nr.Epochs) != 2 || *nr.Epochs[1].ValLoss != v || nr.Epochs[0].ValLoss != nil || *nr.Kept != true ||
		nr.PawnScale == nil || *nr.PawnScale != float64(net.PawnScale()[4]) || nr.Command != "chessforge-nnue train npy" {
		t.Errorf("network record %+v", nr)
	}
	if cy.Loop != "loop-nnue" || *cy.Cycle != 2 || cy.Verdict != "kept" || cy.Match != m.ID || cy.Network != net.ID() ||
		len(cy.Stages) != 3 || cy.Stages[0].Name != "self-play" || *cy.Stages[0].Seconds < 0.1 || cy.Stages[1].Name != "train" || cy.Stages[2].Name != "match" {
		t.Errorf("cycle record %+v, stages %+v", cy, cy.Stages)
	}
	// The export's table, not fitted: no pawn_scale; a network file of
	// another id is refused.
	n.Exported = n.ID
	if r, err := NetworkRecord(n, ""); err != nil || r.PawnScale != nil || !strings.Contains(r.Note, "not fitted") {
		t.Errorf("a table not fitted: pawn_scale %v, note %q, %v", r.PawnScale, r.Note, err)
	}
	n.ID = "0123456789abcdef"
	if _, err := NetworkRecord(n, ""); err == nil {
		t.Error("a network record of the wrong file")
	}
}

// TestCycleFailRecordsOnlyOnceItsMatchHasBegun: a cycle that fails before
// its match, or is interrupted before it begins, leaves no record; one interrupted in its match records the
// games and an undecided cycle; one whose match failed records a failed
// cycle; without a file nothing is written.
func TestCycleFailRecordsOnlyOnceItsMatchHasBegun(t *testing.T) {
	dir := t.TempDir()
	broken := errors.New("engine gone")
	interrupted := decided(stats.Continue)
	interrupted.Stopped, interrupted.Interrupted = false, true
	for _, c := range []struct {
		name    string
		file    string
		res     *match.Result // nil: the cycle fails before its match
		err     error
		records []string // the kinds in the file
		verdict string
	}{
		{"before the match", "before.jsonl", nil, broken, nil, ""},
		{"interrupted", "interrupted.jsonl", interrupted, nil, []string{"match", "cycle"}, "undecided"},
		{"the match failed", "failed.jsonl", nil, broken, []string{"cycle"}, "failed"},
		{"no file", "", interrupted, nil, nil, ""},
		{"interrupted before the match", "before-match.jsonl", decided(stats.AcceptH1), nil, nil, ""},
	} {
		path := ""
		if c.file != "" {
			path = filepath.Join(dir, c.file)
		}
		cyc := &Cycle{File: path, Loop: "loop"}
		cyc.Stage("self-play", func() error { return nil })
		err := broken
		if c.name != "before the match" {
			play, args := fakeMatch(c.res, c.err)
			ctx, cancel := context.WithCancel(context.Background())
			if c.name == "interrupted before the match" {
				cancel()
			}
			var res *match.Result
			res, err = cyc.Match(ctx, play, "", "match", args, io.Discard, io.Discard)
			cancel()
			if err == nil && res.Interrupted {
				err = ErrInterrupted
			}
		}
		if got := cyc.Fail(err, "a cycle", ""); !errors.Is(got, err) {
			t.Errorf("%s: Fail returned %v, want %v", c.name, got, err)
		}
		recs, rerr := record.Read(path)
		if c.records == nil {
			if path != "" && !errors.Is(rerr, os.ErrNotExist) {
				t.Errorf("%s: records %+v, %v; want no file", c.name, recs, rerr)
			}
			continue
		}
		var kinds []string
		for _, r := range recs {
			kinds = append(kinds, r.Kind)
		}
		if rerr != nil || strings.Join(kinds, " ") != strings.Join(c.records, " ") || recs[len(recs)-1].Verdict != c.verdict {
			t.Errorf("%s: records %+v, %v; want %v ending with verdict %s", c.name, recs, rerr, c.records, c.verdict)
			continue
		}
		if last := recs[len(recs)-1]; !strings.Contains(last.Note, err.Error()) || len(recs) == 2 && (last.Match != recs[0].ID || recs[0].Ended != "interrupted") {
			t.Errorf("%s: cycle record %+v", c.name, last)
		}
	}
}

// TestCycleMatchWithoutARecordKeepsItsResult: when the match's record
// cannot be made (here its arguments do not parse as bin/match's), the
// cycle still gets the match's decision, a warning says what was lost,
// and Finish appends the cycle's record without a match id.
func TestCycleMatchWithoutARecordKeepsItsResult(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loop.jsonl")
	c := &Cycle{File: path, Loop: "loop"}
	play, _ := fakeMatch(decided(stats.AcceptH1), nil)
	var stderr strings.Builder
	res, err := c.Match(context.Background(), play, "tables against current", "match", []string{"-no-such-flag"}, io.Discard, &stderr)
	if err != nil || res == nil || res.Decision != stats.AcceptH1 {
		t.Fatalf("match: %v, %v: the decision was lost with the record", res, err)
	}
	if !strings.Contains(stderr.String(), "no record of the match") || c.MatchID() != "" {
		t.Errorf("stderr %q, match id %q: want a warning and no match record", stderr.String(), c.MatchID())
	}
	if err := c.Finish(Kept, "loop cycle", "", ""); err != nil {
		t.Fatal(err)
	}
	recs, err := record.Read(path)
	if err != nil || len(recs) != 1 || recs[0].Kind != record.KindCycle || recs[0].Match != "" || recs[0].Verdict != "kept" {
		t.Fatalf("records %+v, %v: want the cycle's alone", recs, err)
	}
}
