package match

import (
	"slices"
	"testing"

	"chessforge/engine/pgn"
)

// builtinOpenings returns the built-in openings or fails the test.
func builtinOpenings(t *testing.T) []pgn.Opening {
	t.Helper()
	b, err := BuiltinOpenings()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBuiltinOpeningsAreLegalAndDistinct(t *testing.T) {
	books := builtinOpenings(t)
	if len(books) < 30 || len(books) > 50 {
		t.Fatalf("%d built-in openings, want 30 to 50", len(books))
	}
	seen := map[string]string{}
	for _, o := range books {
		pos, err := o.End()
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

func TestOrderAndRandomAreReproducible(t *testing.T) {
	if !slices.Equal(openingOrder(20, 7), openingOrder(20, 7)) {
		t.Error("openingOrder differs for the same seed")
	}
	if slices.Equal(openingOrder(20, 7), openingOrder(20, 8)) {
		t.Error("openingOrder is the same for two seeds")
	}
	a, b := RandomOpenings(10, 8, 3), RandomOpenings(10, 8, 3)
	for i := range a {
		if !slices.Equal(a[i].Moves, b[i].Moves) {
			t.Fatalf("RandomOpenings differs for the same seed at %d", i)
		}
		if len(a[i].Moves) != 8 {
			t.Errorf("opening %d has %d plies, want 8", i, len(a[i].Moves))
		}
		if _, err := a[i].End(); err != nil {
			t.Error(err)
		}
	}
}

func TestExtendAddsRandomPliesAfterTheLines(t *testing.T) {
	base := builtinOpenings(t)[:3]
	ext := ExtendOpenings(base, 8, 2, 9)
	if len(ext) != 8 {
		t.Fatalf("got %d openings, want 8", len(ext))
	}
	seen := map[string]bool{}
	for i, o := range ext {
		pos, err := o.End()
		if err != nil {
			t.Fatal(err)
		}
		b := base[i%3]
		want := len(b.Moves)
		if i >= 3 {
			want += 2
			if added := " + " + o.Moves[len(b.Moves)].String() + " " + o.Moves[len(b.Moves)+1].String(); o.Name != b.Name+added {
				t.Errorf("opening %d is named %q, want %q", i, o.Name, b.Name+added)
			}
		}
		if len(o.Moves) != want || !slices.Equal(o.Moves[:len(b.Moves)], b.Moves) {
			t.Errorf("opening %d (%s): moves %v, want %s plus %d", i, o.Name, o.Moves, b.Name, want-len(b.Moves))
		}
		if seen[pos.FEN()] {
			t.Errorf("opening %d (%s) repeats a position", i, o.Name)
		}
		seen[pos.FEN()] = true
	}
	again := ExtendOpenings(base, 8, 2, 9)
	for i := range ext {
		if !slices.Equal(ext[i].Moves, again[i].Moves) {
			t.Fatalf("ExtendOpenings differs for the same seed at %d", i)
		}
	}
	if got := ExtendOpenings(base, 2, 2, 9); len(got) != 2 {
		t.Errorf("ExtendOpenings to fewer openings: got %d, want 2", len(got))
	}
}
