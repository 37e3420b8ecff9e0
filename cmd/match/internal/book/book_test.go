package book

import (
	"slices"
	"strings"
	"testing"
)

func TestBuiltinOpeningsAreLegalAndDistinct(t *testing.T) {
	books := Builtin()
	if len(books) < 30 || len(books) > 50 {
		t.Fatalf("%d built-in openings, want 30 to 50", len(books))
	}
	seen := map[string]string{}
	for _, o := range books {
		pos, err := o.Position()
		if err != nil {
			t.Errorf("%s: %v", o.Name, err)
			continue
		}
		if len(o.Moves) < 6 {
			t.Errorf("%s: only %d plies", o.Name, len(o.Moves))
		}
		if prev, ok := seen[pos.FEN()]; ok {
			t.Errorf("%s reaches the same position as %s", o.Name, prev)
		}
		seen[pos.FEN()] = o.Name
	}
}

func TestReadEPD(t *testing.T) {
	src := `# a comment
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1

r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; id "two knights";
`
	books, err := ReadEPD(strings.NewReader(src), "t.epd")
	if err != nil {
		t.Fatal(err)
	}
	if len(books) != 2 {
		t.Fatalf("got %d openings, want 2", len(books))
	}
	if books[0].FEN != "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1" || books[0].Name != "t.epd:2" {
		t.Errorf("first: %+v", books[0])
	}
	if books[1].FEN != "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -" || books[1].Name != "two knights" {
		t.Errorf("second: %+v", books[1])
	}
}

func TestReadEPDErrorsNameTheLine(t *testing.T) {
	tests := []struct{ src, want string }{
		{"8/8/8/8/8/8/8/8 w - -\n", "t.epd:1"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nfoo bar\n", "t.epd:2: want at least 4 FEN fields"},
		// Black is mated: no game left to play.
		{"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n", "already over"},
	}
	for _, tc := range tests {
		_, err := ReadEPD(strings.NewReader(tc.src), "t.epd")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.src, err, tc.want)
		}
	}
}

func TestReadPGNMainlines(t *testing.T) {
	src := `[Event "one"]
[Site "?"]

1. e4 e5 2. Nf3 {a comment
over two lines} Nc6 (2... d6 3. d4) 3. Bb5 $1 a6 1-0

[Event "two"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]

1. e4 Kd7 2. e5 *

1. d4 d5 2. c4 dxc4 3. e4 ; rest of line
e5 4. dxe5?! Qxd1+ 5. Kxd1 1/2-1/2
[Event "castling and promotion"]
[FEN "4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1"]
1. O-O Kd7 2. b8Q 0-1
`
	books, err := ReadPGN(strings.NewReader(src), "t.pgn")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"},
		{"e2e4", "e8d7", "e4e5"},
		{"d2d4", "d7d5", "c2c4", "d5c4", "e2e4", "e7e5", "d4e5", "d8d1", "e1d1"},
		{"e1g1", "e8d7", "b7b8q"},
	}
	if len(books) != len(want) {
		t.Fatalf("got %d openings, want %d: %+v", len(books), len(want), books)
	}
	for i := range want {
		if !slices.Equal(books[i].Moves, want[i]) {
			t.Errorf("game %d: moves %v, want %v", i+1, books[i].Moves, want[i])
		}
	}
	if books[1].FEN != "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1" || books[0].FEN != "" {
		t.Errorf("FEN tags: %q, %q", books[0].FEN, books[1].FEN)
	}
}

func TestReadPGNRejectsIllegalMoveWithLine(t *testing.T) {
	src := "[Event \"x\"]\n\n1. e4 e5\n2. Ke3 Nc6 *\n"
	_, err := ReadPGN(strings.NewReader(src), "bad.pgn")
	if err == nil || !strings.Contains(err.Error(), "bad.pgn:4: game 1: move 3 (Ke3)") {
		t.Errorf("error %v, want one naming bad.pgn:4, game 1, move 3 (Ke3)", err)
	}
}

func TestOrderAndRandomAreReproducible(t *testing.T) {
	if !slices.Equal(Order(20, 7), Order(20, 7)) {
		t.Error("Order differs for the same seed")
	}
	if slices.Equal(Order(20, 7), Order(20, 8)) {
		t.Error("Order is the same for two seeds")
	}
	a, b := Random(10, 8, 3), Random(10, 8, 3)
	for i := range a {
		if !slices.Equal(a[i].Moves, b[i].Moves) {
			t.Fatalf("Random differs for the same seed at %d", i)
		}
		if len(a[i].Moves) != 8 {
			t.Errorf("opening %d has %d plies, want 8", i, len(a[i].Moves))
		}
		if _, err := a[i].Position(); err != nil {
			t.Error(err)
		}
	}
}

func TestExtendAddsRandomPliesAfterTheLines(t *testing.T) {
	base := Builtin()[:3]
	ext := Extend(base, 8, 2, 9)
	if len(ext) != 8 {
		t.Fatalf("got %d openings, want 8", len(ext))
	}
	seen := map[string]bool{}
	for i, o := range ext {
		pos, err := o.Position()
		if err != nil {
			t.Fatal(err)
		}
		b := base[i%3]
		want := len(b.Moves)
		if i >= 3 {
			want += 2
		}
		if len(o.Moves) != want || !slices.Equal(o.Moves[:len(b.Moves)], b.Moves) {
			t.Errorf("opening %d (%s): moves %v, want %s plus %d", i, o.Name, o.Moves, b.Name, want-len(b.Moves))
		}
		if seen[pos.FEN()] {
			t.Errorf("opening %d (%s) repeats a position", i, o.Name)
		}
		seen[pos.FEN()] = true
	}
	again := Extend(base, 8, 2, 9)
	for i := range ext {
		if !slices.Equal(ext[i].Moves, again[i].Moves) {
			t.Fatalf("Extend differs for the same seed at %d", i)
		}
	}
	if got := Extend(base, 2, 2, 9); len(got) != 2 {
		t.Errorf("Extend to fewer openings: got %d, want 2", len(got))
	}
}
