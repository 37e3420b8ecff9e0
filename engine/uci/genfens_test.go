package uci

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"chessforge/engine/board"
	"chessforge/engine/genfens"
)

// clientFENs reads the output as OpenBench's client reads a genfens run:
// the lines that begin "info string genfens ", each with the rest of the
// line after "genfens " as the FEN.
func clientFENs(out string) []string {
	var fens []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, "info string genfens ") {
			fens = append(fens, strings.TrimRight(strings.SplitN(l, "genfens ", 2)[1], " \t\r\n"))
		}
	}
	return fens
}

// The genfens command answers N lines that OpenBench's client parses as
// legal FENs, the positions of package genfens, scored with the session's
// evaluation; a wrong one is an info string the client does not take for
// a FEN.
func TestGenfens(t *testing.T) {
	out := run(t, "genfens 6 seed 3 book None ") // the client leaves a space for its extra arguments
	fens := clientFENs(out)
	if len(fens) != 6 || strings.Count(out, "\n") != 6 {
		t.Fatalf("want 6 FEN lines and nothing else, got:\n%s", out)
	}
	epd := regexp.MustCompile(`^\S+ [wb] \S+ \S+ \d+ \d+$`) // six fields, as the client's EPD conversion needs
	for _, fen := range fens {
		if _, err := board.ParseFEN(fen); err != nil || !epd.MatchString(fen) {
			t.Errorf("%q: %v", fen, err)
		}
	}
	var want []string
	net := NewSession(io.Discard).engine.Network()
	if err := genfens.Generate(genfens.Request{N: 6, Seed: 3}, net, func(f string) { want = append(want, f) }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(fens, "\n") != strings.Join(want, "\n") {
		t.Errorf("the session's positions are not genfens's with the default network:\n%v\n%v", fens, want)
	}
	for _, bad := range []string{"genfens 4 seed x book None", "genfens 4", "genfens 2 seed 1 book /nonexistent/book.epd"} {
		out := run(t, bad, "isready")
		if len(clientFENs(out)) != 0 || !strings.HasPrefix(out, "info string genfens: ") || !strings.HasSuffix(out, "\nreadyok\n") {
			t.Errorf("%q: %q", bad, out)
		}
	}
}

// IsCommand knows each command Handle answers, and no other.
func TestIsCommand(t *testing.T) {
	for _, c := range []string{"uci", "isready", "ucinewgame", "setoption", "position", "go", "stop", "ponderhit", "bench", "d", "quit", "genfens"} {
		if !IsCommand(c) {
			t.Errorf("IsCommand(%q) is false", c)
		}
	}
	for _, c := range []string{"", "frobnicate", "Go", "--hash", "perft", "eval"} {
		if IsCommand(c) {
			t.Errorf("IsCommand(%q) is true", c)
		}
		if out := run(t, c+" 1"); c != "" && !strings.HasPrefix(out, "info string unknown command") {
			t.Errorf("%q: %q, want an unknown command", c, out)
		}
	}
}
