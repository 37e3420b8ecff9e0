package pgn

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"chessforge/engine/board"
)

func uciMoves(moves []board.Move) []string {
	out := make([]string, len(moves))
	for i, m := range moves {
		out[i] = m.String()
	}
	return out
}

func TestReadGamesMainlines(t *testing.T) {
	src := `[Event "one"]
[Site "?"]
[Opening "Ruy Lopez"]

1. e4 e5 2. Nf3 {a comment (with parens)
over two lines} Nc6 (2... d6 3. d4) 3. Bb5 $1 a6 1-0

[Event "two"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]

1. e4 Kd7 2. e5 *

1. d4 d5 2. c4 dxc4 3. e4 ; rest of line
e5 4. dxe5?! Qxd1+ 5. Kxd1 1/2-1/2
%an escape line 1. e4
[Event "castling and promotion"]
[ECO "X00"]
[FEN "4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1"]
1. O-O Kd7 2. b8Q 3... Kc6 0-1
[Event "tags after moves start a game"]
1. e4
[Event "quoted \"name\" with a \\ and a ]"]
12. Nf3 12... Nf6 13.Ng1 *
`
	games, err := ReadGames(strings.NewReader(src), "t.pgn")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		moves                  string
		fen, result, src, name string
	}{
		{"e2e4 e7e5 g1f3 b8c6 f1b5 a7a6", "", "1-0", "t.pgn:1", "Ruy Lopez"},
		{"e2e4 e8d7 e4e5", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "*", "t.pgn:8", ""},
		{"d2d4 d7d5 c2c4 d5c4 e2e4 e7e5 d4e5 d8d1 e1d1", "", "1/2-1/2", "t.pgn:14", ""},
		{"e1g1 e8d7 b7b8q d7c6", "4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1", "0-1", "t.pgn:17", "X00"},
		{"e2e4", "", "", "t.pgn:21", ""},
		{"g1f3 g8f6 f3g1", "", "*", "t.pgn:23", ""},
	}
	if len(games) != len(want) {
		t.Fatalf("got %d games, want %d: %+v", len(games), len(want), games)
	}
	for i, w := range want {
		g := games[i]
		if got := strings.Join(uciMoves(g.Moves), " "); got != w.moves {
			t.Errorf("game %d: moves %s, want %s", i+1, got, w.moves)
		}
		if g.FEN != w.fen || g.Result != w.result || g.Source != w.src || g.Name != w.name {
			t.Errorf("game %d: FEN %q result %q source %q name %q, want %q %q %q %q", i+1, g.FEN, g.Result, g.Source, g.Name, w.fen, w.result, w.src, w.name)
		}
	}
	if v := games[5].Tags["Event"]; v != `quoted "name" with a \ and a ]` {
		t.Errorf("escaped tag value read as %q", v)
	}
	if games[0].Tags["Site"] != "?" || games[0].Tags["Event"] != "one" {
		t.Errorf("tags %v", games[0].Tags)
	}
}

func TestReadGamesErrorsNameFileLineAndGame(t *testing.T) {
	tests := []struct{ src, want string }{
		{"[Event \"x\"]\n\n1. e4 e5\n2. Ke3 Nc6 *\n", "bad.pgn:4: game 1: move 3 (Ke3)"},
		{"1. e4 *\n\n1. d4 {open comment\n", "bad.pgn:3: game 2: unterminated comment"},
		{"1. e4 e5 )\n", "bad.pgn:1: game 1: ')' without '('"},
		{"1. e4 (1. d4\n", "ends inside a variation"},
		{"[Event x]\n1. e4 *\n", "bad.pgn:1: game 1: tag [Event x]: the value must be quoted"},
		{"[Event \"x]\n", "unterminated value"},
		{"[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n", "bad.pgn:1: game 1: FEN tag"},
		{"1. e4 *\n1. e4 e5 2. Bxe5 *\n", "bad.pgn:2: game 2: move 3 (Bxe5)"},
	}
	for _, tc := range tests {
		_, err := ReadGames(strings.NewReader(tc.src), "bad.pgn")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.src, err, tc.want)
		}
	}
}

func TestReadEPD(t *testing.T) {
	src := `# a comment
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1

r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; id "two knights";
8/8/8/4k3/8/8/3RK3/r7 w - - hmvc 37; fmvn 60;
`
	games, err := ReadEPD(strings.NewReader(src), "t.epd")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ fen, label string }{
		{"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "t.epd:2"},
		{"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 1", "t.epd:4 two knights"},
		{"8/8/8/4k3/8/8/3RK3/r7 w - - 37 60", "t.epd:5"},
	}
	if len(games) != len(want) {
		t.Fatalf("got %d positions, want %d", len(games), len(want))
	}
	for i, w := range want {
		if games[i].FEN != w.fen || games[i].Label() != w.label || len(games[i].Moves) != 0 {
			t.Errorf("line %d: FEN %q label %q, want %q %q", i+1, games[i].FEN, games[i].Label(), w.fen, w.label)
		}
	}
}

func TestReadEPDErrorsNameTheLine(t *testing.T) {
	tests := []struct{ src, want string }{
		{"8/8/8/8/8/8/8/8 w - -\n", "t.epd:1"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nfoo bar\n", "t.epd:2: want at least the 4 FEN fields"},
	}
	for _, tc := range tests {
		_, err := ReadEPD(strings.NewReader(tc.src), "t.epd")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.src, err, tc.want)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadDetectsTheFormat(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, text string
		labels     []string
	}{
		{"b.epd", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n", []string{"b.epd:1 e4"}},
		{"b.pgn", "[Opening \"Ruy Lopez\"]\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n[Event \"no moves\"]\n*\n", []string{"b.pgn:1 Ruy Lopez"}},
		{"pgn.txt", "\n%escape\n1. d4 d5 *\n", []string{"pgn.txt:3"}},
		{"tags.book", "[Event \"x\"]\n1. c4 *\n", []string{"tags.book:1"}},
		{"epd.txt", "8/8/8/4k3/8/8/3RK3/r7 w - - 0 60\n", []string{"epd.txt:1"}},
		{"digits.book", "8/8/8/4k3/8/8/3RK3/r7 w - -\n", []string{"digits.book:1"}},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, tc.name)
		writeFile(t, path, tc.text)
		games, err := Load(path)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var labels []string
		for _, g := range games {
			labels = append(labels, g.Label())
		}
		if !slices.Equal(labels, tc.labels) {
			t.Errorf("%s: openings %q, want %q", tc.name, labels, tc.labels)
		}
	}
}

func TestLoadErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, text, want string }{
		{"bad.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnot a position at all\n", "bad.epd:2"},
		{"over.epd", "7k/5QQ1/8/8/8/8/8/K7 b - -\n", "over.epd:1: the game is already over"},
		{"mate.pgn", "1. e4 *\n\n1. f3 e5 2. g4 Qh4# 0-1\n", "mate.pgn:3: the game is already over"},
		{"illegal.pgn", "[Event \"x\"]\n\n1. e4 e5\n2. Ke3 *\n", "illegal.pgn:4"},
		{"empty.epd", "# nothing\n", "no openings"},
		{"empty.pgn", "[Event \"x\"]\n*\n", "no openings"},
		{"missing.pgn", "", "no such file"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if tt.name != "missing.pgn" {
			writeFile(t, path, tt.text)
		}
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestReadGamesKeepsTheMainlineComments(t *testing.T) {
	src := "{before the moves} 1. e4 {+0.30/10 0.1s} e5 {book} {second}\n" +
		"2. Nf3 (2. f4 {in a variation}) Nc6 {-0.10/9\n 0.2s} 1-0\n"
	games, err := ReadGames(strings.NewReader(src), "c.pgn")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"+0.30/10 0.1s", "book second", "", "-0.10/9 0.2s"}
	if len(games) != 1 || !slices.Equal(games[0].Comments, want) {
		t.Fatalf("comments %q, want %q", games[0].Comments, want)
	}
}

// TestReadEachSkipsAMalformedGameAndGoesOn: each fault fails only its
// game, named by its number and start line, and the next game reads.
func TestReadEachSkipsAMalformedGameAndGoesOn(t *testing.T) {
	src := `[Event "1 good"]
1. e4 e5 1-0

[Event "2 illegal move"]
1. e4 e5 2. Ke3 Nc6 3. Nf3 0-1

[Event "3 bad FEN"]
[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]
[Round "3"]
1. e4 *

[Event "4 bad tag
1. d4 d5 1/2-1/2

[Event "5 open variation"]
1. c4 (1. d4 d5
[Event "6 good after it"]
1. Nf3 Nf6 0-1
1. e4 e5 ) 2. Nf3 *
1. d4 {open comment
`
	type seen struct {
		event  string
		err    string
		start  int
		number int
	}
	var got []seen
	err := ReadEach(strings.NewReader(src), "m.pgn", func(g *Game, bad *GameError) error {
		if bad != nil {
			got = append(got, seen{err: bad.Error(), start: bad.Start, number: bad.Game})
		} else {
			got = append(got, seen{event: g.Tags["Event"] + " " + strings.Join(uciMoves(g.Moves), " ")})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{event: "1 good e2e4 e7e5"},
		{err: "m.pgn:5: game 2: move 3 (Ke3)", start: 4, number: 2},
		{err: "m.pgn:8: game 3: FEN tag", start: 7, number: 3},
		{err: "m.pgn:12: game 4: tag [Event \"4 bad tag: unterminated value", start: 12, number: 4},
		{err: "m.pgn:17: game 5: a variation is left open", start: 15, number: 5},
		{event: "6 good after it g1f3 g8f6"},
		{err: "m.pgn:19: game 7: ')' without '('", start: 19, number: 7},
		{err: "m.pgn:20: game 8: unterminated comment", start: 20, number: 8},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d games, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if !strings.HasPrefix(g.err, w.err) || g.event != w.event || g.start != w.start || g.number != w.number {
			t.Errorf("game %d: %+v, want %+v", i+1, g, w)
		}
	}
}

// TestReadEachReadsInChunks: the file is read a chunk at a time, cut at
// blank lines; games, comments and variations that run across a cut read
// as from one piece, and so do the faults' lines.
func TestReadEachReadsInChunks(t *testing.T) {
	src := "[Event \"a\"]\n\n1. e4 {a comment\n\nover a blank line} e5 (1... c5\n\n2. Nf3) 2. Nf3 {x} 1-0\n\n" +
		"[Event \"b\"]\n\n1. d4 d5 2. Kd3 *\n\n%escape\n\n1. c4 {\n\n} e5 ; {not a comment\n\n2. Nc3 1/2-1/2\n\n" +
		"1. f4 {never closed\n\n"
	read := func() string {
		var b strings.Builder
		err := ReadEach(strings.NewReader(src), "c.pgn", func(g *Game, bad *GameError) error {
			if bad != nil {
				fmt.Fprintf(&b, "%v (from line %d)\n", bad, bad.Start)
			} else {
				fmt.Fprintf(&b, "%s %q %q %s\n", g.Source, uciMoves(g.Moves), g.Comments, g.Result)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	whole := read()
	defer func(n int) { chunkBytes = n }(chunkBytes)
	chunkBytes = 1
	if cut := read(); cut != whole {
		t.Errorf("read in chunks:\n%s\nread whole:\n%s", cut, whole)
	}
	want := `c.pgn:1 ["e2e4" "e7e5" "g1f3"] ["a comment over a blank line" "" "x"] 1-0
c.pgn:11: game 2: move 3 (Kd3)`
	if !strings.HasPrefix(whole, want) || !strings.Contains(whole, "c.pgn:21: game 4: unterminated comment (from line 21)") ||
		!strings.Contains(whole, `c.pgn:15 ["c2c4" "e7e5" "b1c3"] ["" "" ""] 1/2-1/2`) {
		t.Errorf("read:\n%s", whole)
	}
}

// TestReadGamesTakesLongAndUCINotation: fastchess writes SAN, LAN or UCI
// moves (-pgnout notation=).
func TestReadGamesTakesLongAndUCINotation(t *testing.T) {
	src := "[FEN \"r3k3/6P1/8/8/8/8/8/4K2R w Kq - 0 1\"]\n\n1. e1g1 {+1.00/5 0.1s} e8c8 2. g7g8q Rxg8 3. Kg1-h2 *\n"
	games, err := ReadGames(strings.NewReader(src), "u.pgn")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(uciMoves(games[0].Moves), " "); got != "e1g1 e8c8 g7g8q d8g8 g1h2" {
		t.Errorf("moves %s", got)
	}
}
