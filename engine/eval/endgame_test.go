package eval

import (
	"testing"

	"chessforge/engine/board"
)

// Endgame's drive and drawish-material scales leave positions with pawns
// on both sides alone, scale drawish material as Evaluate does, give
// nothing for a rook pawn, alone or with the wrong bishop, against a king
// in its corner, and add the mate drive against a lone king.
func TestEndgame(t *testing.T) {
	for _, c := range []struct {
		name, fen string
		v, want   int
	}{
		{"pawns on both sides", board.StartFEN, 437, 437},
		{"pawns on both sides, losing", board.StartFEN, -2500, -2500},
		{"rook against knight: 16/128", "8/8/3k4/8/4n3/8/8/R3K3 w - - 0 1", 400, 50},
		{"rook against knight, the weak side to move", "8/8/3k4/8/4n3/8/8/R3K3 b - - 0 1", -400, -50},
		{"a bishop alone cannot win", "8/8/3k4/8/8/8/8/3BK3 w - - 0 1", 300, 0},
		{"h-pawn, light bishop, king on h8", "7k/8/6KP/8/8/8/8/3B4 w - - 0 1", 500, 0},
		{"h-pawn, light bishop, king on g8", "6k1/8/7P/4K3/8/8/8/3B4 w - - 0 1", 500, 0},
		{"h-pawn, dark bishop, king on h8", "7k/8/6KP/8/8/8/8/2B5 w - - 0 1", 500, 500},
		{"h-pawn alone, king on h8", "7k/8/6KP/8/8/8/8/8 w - - 0 1", 300, 0},
		{"h-pawn alone, king on f8", "5k2/8/6KP/8/8/8/8/8 w - - 0 1", 300, 300},
		{"g-pawn alone, king on g8", "6k1/8/5KP1/8/8/8/8/8 w - - 0 1", 300, 300},
		{"h-pawn, light bishop, king far away", "k7/8/6KP/8/8/8/8/3B4 w - - 0 1", 500, 500},
		{"a-pawns, dark bishop, black, king on a1", "8/8/8/3b4/p7/p7/8/K1k5 b - - 0 1", 500, 0},
		{"a-pawn and a b-pawn", "8/8/8/3b4/p7/1p6/8/K1k5 b - - 0 1", 500, 500},
		{"a rook beside the wrong bishop", "8/8/8/3b4/p7/p7/8/K1k1r3 b - - 0 1", 500, 500},
	} {
		p := mustFEN(t, c.fen)
		got := c.v
		if PawnlessSide(p) {
			got = endgame(p, c.v)
		}
		if got != c.want {
			t.Errorf("%s (%s): drive and scales of %d: %d, want %d", c.name, c.fen, c.v, got, c.want)
		}
		if e := Endgame(p, c.v); e != c.want {
			t.Errorf("%s (%s): Endgame(%d) = %d, want %d", c.name, c.fen, c.v, e, c.want)
		}
	}
	// The wrong bishop is known to Evaluate too.
	if v := Evaluate(mustFEN(t, "7k/8/6KP/8/8/8/8/3B4 w - - 0 1")); v != 0 {
		t.Errorf("Evaluate scores the rook pawn with the wrong bishop %d, want 0", v)
	}
	if v := Evaluate(mustFEN(t, "7k/8/6KP/8/8/8/8/2B5 w - - 0 1")); v < 200 {
		t.Errorf("Evaluate scores the rook pawn with the right bishop %d, want a win", v)
	}
}

// Against a lone king the side ahead gains from driving it to the edge
// (to the bishop's corner with bishop and knight) and from bringing its
// own king closer; the side to move sees the same drive from its side.
func TestEndgameMateDrive(t *testing.T) {
	drive := func(fen string) int {
		return endgame(mustFEN(t, fen), 1000) - 1000
	}
	centre, edge := drive("8/8/8/3k4/8/8/8/Q3K3 w - - 0 1"), drive("3k4/8/8/8/8/8/8/Q3K3 w - - 0 1")
	if !(0 < centre && centre < edge) {
		t.Errorf("KQK: drive %d with the king in the centre, %d on the edge; want 0 < centre < edge", centre, edge)
	}
	if near := drive("3k4/8/3K4/8/8/8/8/Q7 w - - 0 1"); near <= edge {
		t.Errorf("KQK: drive %d with the kings near, %d far apart", near, edge)
	}
	// A dark-squared bishop (c1) mates in a1 or h8, not in a8.
	a8, h8 := drive("k7/8/8/8/8/3K4/8/2B1N3 w - - 0 1"), drive("7k/8/8/8/8/3K4/8/2B1N3 w - - 0 1")
	if a8 >= h8 {
		t.Errorf("KBNK, dark bishop: drive %d with the king on a8, %d on h8; want more on h8", a8, h8)
	}
	if got := endgame(mustFEN(t, "3k4/8/8/8/8/8/8/Q3K3 b - - 0 1"), -1000) + 1000; got != -edge {
		t.Errorf("KQK with the lone king to move: drive %d, want %d", got, -edge)
	}
}
