package uci

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/engine/nnue"
	"chessforge/engine/search"
)

// TestNNUEOptions checks Use NNUE and EvalFile: the handshake lists them,
// the embedded network loads and plays (by default too), a network file loads by name, a
// bad file is reported by name and leaves the hand-crafted evaluation, and
// switching back gives the hand-crafted search again.
func TestNNUEOptions(t *testing.T) {
	out := run(t, "uci")
	for _, want := range []string{"option name Use NNUE type check default true", "option name EvalFile type string default <empty>"} {
		if !strings.Contains(out, want) {
			t.Errorf("handshake lacks %q", want)
		}
	}
	def, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	hand := run(t, "setoption name Use NNUE value false", "position startpos", "go depth 4")
	out = run(t, "setoption name Use NNUE value true", "position startpos", "go depth 4")
	if !strings.Contains(out, "info string NNUE evaluation using "+nnue.DefaultName+", network "+def.ID()+", pawn table "+strings.Trim(fmt.Sprint(def.PawnScale()), "[]")+"\n") ||
		!strings.Contains(out, "bestmove ") {
		t.Errorf("Use NNUE with the embedded network:\n%s", out)
	}
	if lastInfo(out) == lastInfo(hand) {
		t.Errorf("the network's search reports what the hand-crafted one does: %s", lastInfo(out))
	}
	// By default the embedded network plays, without a word before the
	// handshake.
	if def := run(t, "position startpos", "go depth 4"); lastInfo(def) != lastInfo(out) || strings.Contains(def, "info string") {
		t.Errorf("the default evaluation is not the embedded network's (Use NNUE true: %s):\n%s", lastInfo(out), def)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "my net.nnue")
	net := nnue.Random(4, nnue.DefaultHidden, 8)
	if err := net.SetPawnScale([nnue.PawnGroups]int{40, 60, 80, 100, 128}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out = run(t, "setoption name EvalFile value "+path, "setoption name Use NNUE value true")
	if !strings.Contains(out, "NNUE evaluation using "+path+", network "+net.ID()+", pawn table 40 60 80 100 128\n") {
		t.Errorf("EvalFile %s:\n%s", path, out)
	}

	bad := filepath.Join(dir, "bad.nnue")
	if err := os.WriteFile(bad, []byte("CFNN\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = run(t, "setoption name Use NNUE value true", "setoption name EvalFile value "+bad, "position startpos", "go depth 4")
	if !strings.Contains(out, "info string nnue: "+bad+": truncated header") || !strings.Contains(out, "hand-crafted evaluation stays") ||
		lastInfo(out) != lastInfo(hand) {
		t.Errorf("a bad EvalFile:\n%s", out)
	}
	out = run(t, "setoption name Use NNUE value true", "setoption name Use NNUE value false", "position startpos", "go depth 4")
	if lastInfo(out) != lastInfo(hand) {
		t.Errorf("Use NNUE false again: %s, hand-crafted %s", lastInfo(out), lastInfo(hand))
	}
	if out := run(t, "setoption name Use NNUE value yes"); !strings.Contains(out, "not true or false") {
		t.Errorf("Use NNUE yes: %s", out)
	}
}

// lastInfo returns the last info line with a score, less its timing fields.
func lastInfo(out string) string {
	last := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "info depth") {
			last = l
		}
	}
	if i := strings.Index(last, " nps "); i >= 0 {
		last = last[:i]
	}
	return last
}

// TestBenchEvaluatesAsTheOptionsSay: bench searches with the evaluation the
// options chose, so its node count is the embedded network's by default and
// the hand-crafted evaluation's with Use NNUE false.
func TestBenchEvaluatesAsTheOptionsSay(t *testing.T) {
	def, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	want := func(net *nnue.Network) string {
		return fmt.Sprintf("%d nodes ", search.Bench(4, net, io.Discard).Nodes)
	}
	withNet, hand := want(def), want(nil)
	if withNet == hand {
		t.Fatalf("the network's bench counts what the hand-crafted one does: %s", hand)
	}
	if out := run(t, "bench 4"); !strings.Contains(out, "\n"+withNet) {
		t.Errorf("default bench, want %q:\n%s", withNet, out)
	}
	if out := run(t, "setoption name Use NNUE value false", "bench 4"); !strings.Contains(out, "\n"+hand) {
		t.Errorf("bench with Use NNUE false, want %q:\n%s", hand, out)
	}
}
