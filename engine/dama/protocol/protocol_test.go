package protocol

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"chessforge/engine/dama"
)

// session returns a session writing to a builder, and a function that
// carries out one line and returns the lines it wrote (already flushed).
func session() (*Session, func(string) []string) {
	var out strings.Builder
	s := NewSession(&out)
	return s, func(line string) []string {
		out.Reset()
		if !s.Handle(line) {
			return []string{"<quit>"}
		}
		text := strings.TrimSuffix(out.String(), "\n")
		if text == "" {
			return nil
		}
		return strings.Split(text, "\n")
	}
}

var infoLine = regexp.MustCompile(`^info depth [1-9][0-9]* score -?[0-9]+ nodes [0-9]+ pv( [0-9]+([-x][0-9]+)+)+$`)

// go answers with one info line per iteration, then the best move.
func TestGo(t *testing.T) {
	_, do := session()
	if out := do("position startpos moves 22-18 11-15 18-14"); out != nil {
		t.Fatalf("position: %q", out)
	}
	out := do("go depth 4")
	if len(out) != 5 || (out[4] != "bestmove 9x18" && out[4] != "bestmove 10x19") {
		t.Fatalf("go depth 4 (a capture is forced): %q", out)
	}
	for i, l := range out[:4] {
		if !infoLine.MatchString(l) || !strings.HasPrefix(l, fmt.Sprintf("info depth %d ", i+1)) {
			t.Errorf("info line %d: %q", i+1, l)
		}
	}
	out = do("go nodes 3000")
	last := out[len(out)-1]
	if !regexp.MustCompile(`^bestmove [0-9]+[-x][0-9]+`).MatchString(last) {
		t.Errorf("go nodes 3000: last line %q", last)
	}
	if out := do("go movetime 20 depth 2"); len(out) == 0 || !strings.HasPrefix(out[len(out)-1], "bestmove ") {
		t.Errorf("go movetime 20 depth 2: %q", out)
	}
	// A king takes the lone man's last square: a win in one ply.
	do("position fen W:WK26:B25")
	if out := do("go depth 3"); !regexp.MustCompile(`^info depth 1 score 31999 nodes [0-9]+ pv 26-29$`).MatchString(out[0]) || out[len(out)-1] != "bestmove 26-29" {
		t.Errorf("king trap: %q", out)
	}
	// The side to move has no move.
	do("position fen B:W29:B25")
	if out := do("go depth 3"); len(out) != 1 || out[0] != "bestmove none" {
		t.Errorf("no move: %q", out)
	}
}

// perft names each legal move with its count, then the total; d shows the
// board and FEN; newgame returns to the start; quit ends.
func TestPerftDisplayNewgameQuit(t *testing.T) {
	_, do := session()
	out := do("perft 3")
	p := dama.StartPosition()
	var l dama.MoveList
	p.GenerateMoves(&l)
	if len(out) != l.N+1 || out[l.N] != fmt.Sprintf("Nodes searched: %d", p.Perft(3)) {
		t.Fatalf("perft 3: %q", out)
	}
	for i, m := range l.Slice() {
		p.MakeMove(m)
		want := fmt.Sprintf("%s: %d", m, p.Perft(2))
		p.UnmakeMove()
		if out[i] != want {
			t.Errorf("perft line %d: %q, want %q", i+1, out[i], want)
		}
	}
	do("position fen B:WK5,21:B1,K30 moves 30-26")
	out = do("d")
	if last := out[len(out)-1]; last != "fen W:WK5,21:B1,K26" || !strings.Contains(strings.Join(out, "\n"), "White to move") {
		t.Errorf("d: %q", out)
	}
	do("newgame")
	if out := do("d"); out[len(out)-1] != "fen W:W21-32:B1-12" {
		t.Errorf("d after newgame: %q", out)
	}
	if out := do("isready"); len(out) != 1 || out[0] != "readyok" {
		t.Errorf("isready: %q", out)
	}
	if out := do("quit"); len(out) != 1 || out[0] != "<quit>" {
		t.Errorf("quit: %q", out)
	}
}

// Every line that cannot be carried out gets one error line, and the
// session goes on.
func TestBadLinesGetAnError(t *testing.T) {
	_, do := session()
	bad := []struct{ line, want string }{
		{"frobnicate", `unknown command "frobnicate"`},
		{"go", "go: want depth N, nodes N or movetime MS"},
		{"go depth", "go: depth needs a value"},
		{"go depth x", `go: depth needs a whole number above 0, got "x"`},
		{"go depth 0", `got "0"`},
		{"go nodes -5", `got "-5"`},
		{"go depth 200", "beyond the deepest search"},
		{"go ponder 3", `go: unknown limit "ponder"`},
		{"go infinite", `go: unknown limit "infinite"`},
		{"go depth 3 nodes", "go: nodes needs a value"},
		{"perft", "perft: want one depth"},
		{"perft 0", `perft: depth must be a whole number from 1 to 20, got "0"`},
		{"perft two", `got "two"`},
		{"d now", `d takes no arguments, got "now"`},
		{"newgame please", "newgame takes no arguments"},
		{"isready now", "isready takes no arguments"},
		{"position", `position: want "startpos" or "fen <FEN>"`},
		{"position middle", `got "middle"`},
		{"position startpos 22-18", `want "moves" after the position, got "22-18"`},
		{"position fen", "position: fen needs a PDN FEN"},
		{"position fen W:W21-32:X1-12", "piece field"},
		{"position startpos moves 22-18 22-18", `moves: move 2: move "22-18" is not legal`},
		{"position startpos moves 22-17", `move "22-17" is not legal`},
	}
	for _, c := range bad {
		out := do(c.line)
		if len(out) != 1 || !strings.HasPrefix(out[0], "error: ") || !strings.Contains(out[0], c.want) {
			t.Errorf("%q: %q, want one line \"error: ...%s...\"", c.line, out, c.want)
		}
	}
	// The failed position leaves none: go, perft and d say so.
	for _, line := range []string{"go depth 1", "perft 1", "d"} {
		out := do(line)
		if len(out) != 1 || !strings.HasPrefix(out[0], "error: ") || !strings.Contains(out[0], "no valid position") {
			t.Errorf("%q without a position: %q", line, out)
		}
	}
	if out := do("   "); out != nil {
		t.Errorf("a blank line: %q", out)
	}
	do("position startpos moves 22-18")
	if out := do("go depth 1"); len(out) != 2 || out[1] == "bestmove none" {
		t.Errorf("after a valid position again: %q", out)
	}
}

// Run reads a whole conversation and stops at quit.
func TestRun(t *testing.T) {
	in := "position startpos\nperft 1\nbogus\nquit\nperft 2\n"
	var out strings.Builder
	if err := Run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := "21-17: 1\n22-18: 1\n23-19: 1\n24-20: 1\n21-18: 1\n22-19: 1\n23-20: 1\nNodes searched: 7\n" +
		"error: unknown command \"bogus\" (want position, go, perft, d, newgame, isready or quit)\n"
	if out.String() != want {
		t.Errorf("Run:\n%s\nwant:\n%s", out.String(), want)
	}
}
