package book

import (
	"os"
	"path/filepath"
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

func TestLoadGivesUCIMovesAndNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.pgn")
	text := "[Opening \"Two Knights\"]\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 *\n\n[FEN \"4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1\"]\n1. O-O Kd7 2. b8=Q *\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	books, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Opening{
		{Moves: strings.Fields("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"), Name: "b.pgn:1 Two Knights"},
		{FEN: "4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1", Moves: strings.Fields("e1g1 e8d7 b7b8q"), Name: "b.pgn:4"},
	}
	if len(books) != len(want) {
		t.Fatalf("got %d openings, want %d", len(books), len(want))
	}
	for i, w := range want {
		if books[i].FEN != w.FEN || books[i].Name != w.Name || !slices.Equal(books[i].Moves, w.Moves) {
			t.Errorf("opening %d: %+v, want %+v", i+1, books[i], w)
		}
		if _, err := books[i].Position(); err != nil {
			t.Error(err)
		}
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
