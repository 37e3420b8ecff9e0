package genfens

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"chessforge/engine/board"
	"chessforge/engine/nnue"
)

func TestParse(t *testing.T) {
	r, err := Parse(strings.Fields("64 seed 7 book None"))
	if err != nil || r != (Request{N: 64, Seed: 7}) {
		t.Errorf("64 seed 7 book None: %+v, %v", r, err)
	}
	r, err = Parse(strings.Fields("3 seed 2147483647 book Books/UHO.epd"))
	if err != nil || r != (Request{N: 3, Seed: 2147483647, Book: "Books/UHO.epd"}) {
		t.Errorf("with a book: %+v, %v", r, err)
	}
	if r, err := Parse(strings.Fields("1 seed 0 book NONE")); err != nil || r.Book != "" {
		t.Errorf("NONE: %+v, %v", r, err)
	}
	for args, want := range map[string]string{
		"":                            `want "genfens N seed S book FILE|None", got "genfens"`,
		"4 seed 1":                    `got "genfens 4 seed 1"`,
		"4 sead 1 book None":          `got "genfens 4 sead 1 book None"`,
		"x seed 1 book None":          `N must be a whole number, at least 1, got "x"`,
		"0 seed 1 book None":          `got "0"`,
		"4 seed -1 book None":         `seed must be a whole number from 0 to 18446744073709551615, got "-1"`,
		"4 seed 1 book None plies 3":  `unexpected "plies 3" after the book`,
		"4 seed 1.5 book x.epd extra": `seed must be`,
	} {
		if _, err := Parse(strings.Fields(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want %q", args, err, want)
		}
	}
}

// generate runs Generate with the hand-crafted evaluation and returns the
// FENs.
func generate(t *testing.T, r Request) []string {
	t.Helper()
	var fens []string
	if err := Generate(r, nil, func(fen string) { fens = append(fens, fen) }); err != nil {
		t.Fatalf("%+v: %v", r, err)
	}
	return fens
}

// checkPositions checks that each FEN is a legal position, written as the
// board writes it (six fields), with a game still to play.
func checkPositions(t *testing.T, fens []string) {
	t.Helper()
	for _, fen := range fens {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Errorf("%q: %v", fen, err)
			continue
		}
		if len(strings.Fields(fen)) != 6 || p.FEN() != fen || !playable(p) {
			t.Errorf("%q: not a six-field FEN of a position still in play", fen)
		}
	}
}

func TestGenerateFromTheStartPosition(t *testing.T) {
	a := generate(t, Request{N: 20, Seed: 7})
	if len(a) != 20 {
		t.Fatalf("%d positions, want 20", len(a))
	}
	checkPositions(t, a)
	if b := generate(t, Request{N: 20, Seed: 7}); !slices.Equal(a, b) {
		t.Errorf("seed 7 twice gave different positions:\n%v\n%v", a, b)
	}
	c := generate(t, Request{N: 20, Seed: 8})
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same positions")
	}
	// A shorter run of the same seed is the start of the longer one.
	if d := generate(t, Request{N: 5, Seed: 7}); !slices.Equal(d, a[:5]) {
		t.Errorf("N 5 of seed 7: %v, want %v", d, a[:5])
	}
	// Eight or nine random plies: white or black to move, move 5.
	sides := map[string]bool{}
	for _, fen := range a {
		f := strings.Fields(fen)
		sides[f[1]] = true
		if f[5] != "5" {
			t.Errorf("%q: want move 5 after 8 or 9 plies", fen)
		}
	}
	if !sides["w"] || !sides["b"] {
		t.Errorf("sides to move %v, want both", sides)
	}
	// With the network the verdicts may differ, but not the rules.
	net, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	var withNet []string
	if err := Generate(Request{N: 5, Seed: 7}, net, func(fen string) { withNet = append(withNet, fen) }); err != nil || len(withNet) != 5 {
		t.Fatalf("with the network: %d positions, %v", len(withNet), err)
	}
	checkPositions(t, withNet)
}

func writeBook(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "book.epd")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Two book lines, both far from the start position: every position is
// two or three plies from one of them.
func TestGenerateFromABook(t *testing.T) {
	lines := []string{
		"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - hmvc 2; fmvn 3; c0 \"Italian\";",
		"rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
	}
	path := writeBook(t, "# an opening book\n\n"+lines[0]+"\r\n"+lines[1]) // CRLF, no final newline
	fens := generate(t, Request{N: 24, Seed: 1, Book: path})
	if len(fens) != 24 {
		t.Fatalf("%d positions, want 24", len(fens))
	}
	checkPositions(t, fens)
	reach := map[string]bool{} // placement and side after 2 or 3 plies from each line
	for _, l := range lines {
		p, err := ParseEPD(l)
		if err != nil {
			t.Fatal(err)
		}
		walk(p, 3, func(q *board.Position, ply int) {
			if ply >= 2 {
				reach[q.FEN()] = true
			}
		})
	}
	from := map[string]int{}
	for _, fen := range fens {
		if !reach[fen] {
			t.Errorf("%q is not 2 or 3 plies from a book line", fen)
		}
		from[strings.Fields(fen)[5]]++
	}
	if from["4"]+from["5"] == 0 || from["6"]+from["7"] == 0 {
		t.Errorf("move numbers %v: want positions from both lines (moves 4-5 and 6-7)", from)
	}
	if again := generate(t, Request{N: 24, Seed: 1, Book: path}); !slices.Equal(fens, again) {
		t.Errorf("the same seed and book gave other positions")
	}
}

// walk calls f on every position up to depth plies from p.
func walk(p *board.Position, depth int, f func(*board.Position, int)) {
	var rec func(ply int)
	rec = func(ply int) {
		f(p, ply)
		if ply == depth {
			return
		}
		var l board.MoveList
		p.GenerateLegal(&l)
		for _, m := range l.Slice() {
			p.MakeMove(m)
			rec(ply + 1)
			p.UnmakeMove()
		}
	}
	rec(0)
}

func TestGenerateFailures(t *testing.T) {
	defer func(n int) { maxTries = n }(maxTries)
	maxTries = 50 // each lopsided try costs a search
	missing := filepath.Join(t.TempDir(), "missing.epd")
	for name, c := range map[string]struct {
		book string
		want string
	}{
		"missing": {missing, "book: open " + missing},
		"empty":   {writeBook(t, "# nothing\n\n"), "no positions in it"},
		"bad":     {writeBook(t, "\n# a comment\nnot a position\n"), `line 3: "not a position": want an EPD position`},
		"bad FEN": {writeBook(t, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -\n"), "line 1: "},
		// White four queens up: every playout is lopsided.
		"lopsided": {writeBook(t, "4k3/p6p/8/8/8/8/8/QQQQK2R w K -\n"), "50 playouts in a row gave no position that is not over and within 400 cp of equal (0 of 2 made)"},
		// Checkmated already, with no move to play.
		"over": {writeBook(t, "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1\n"), "(0 of 2 made)"},
	} {
		err := Generate(Request{N: 2, Seed: 1, Book: c.book}, nil, func(string) {})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestParseEPD(t *testing.T) {
	for line, want := range map[string]string{
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1;":  "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -":                  "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
		"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 7 30":                                   "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 7 30",
		"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - c9 \"1-0\"; fmvn 12; hmvc 3; id \"x\";": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 3 12",
		"  r3k2r/8/8/8/8/8/8/R3K2R w KQkq - bm Kg1; \n":                           "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
	} {
		p, err := ParseEPD(line)
		if err != nil || p.FEN() != want {
			t.Errorf("ParseEPD(%q): %v, want %s", line, err, want)
			continue
		}
	}
}
