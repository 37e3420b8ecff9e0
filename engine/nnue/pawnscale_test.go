package nnue

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"chessforge/engine/board"
)

// A score is scaled by the table's entry for the pawns of the side it
// favours, whichever side is to move: four or more share the last entry.
func TestScaleByPawns(t *testing.T) {
	n := Random(5, DefaultHidden, 1)
	table := [PawnGroups]int{40, 50, 70, 100, 120}
	if err := n.SetPawnScale(table); err != nil {
		t.Fatal(err)
	}
	parse := func(fen string) *board.Position {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// White: one pawn (a2); Black: five.
	const fen = "4k3/ppppp3/8/8/8/8/P7/4K2R %s - - 0 1"
	for _, c := range []struct {
		stm       string
		v, want   int
		favourite string
	}{
		{"w", 400, 400 * 50 / 128, "White, to move, one pawn"},
		{"w", -400, -400 * 120 / 128, "Black, not to move, five pawns"},
		{"b", -400, -400 * 50 / 128, "White, not to move, one pawn"},
		{"b", 400, 400 * 120 / 128, "Black, to move, five pawns"},
		{"w", 0, 0, "nobody"},
	} {
		if got := n.ScaleByPawns(parse(fmt.Sprintf(fen, c.stm)), c.v); got != c.want {
			t.Errorf("%s to move, score %d favouring %s: %d, want %d", c.stm, c.v, c.favourite, got, c.want)
		}
	}
	for pawns, fen := range []string{"4k3/pppp4/8/8/8/8/8/4K2R w - - 0 1", "4k3/pppp4/8/8/8/8/P7/4K2R w - - 0 1",
		"4k3/pppp4/8/8/8/8/PP6/4K2R w - - 0 1", "4k3/pppp4/8/8/8/8/PPP5/4K2R w - - 0 1",
		"4k3/pppp4/8/8/8/8/PPPP4/4K2R w - - 0 1", "4k3/pppp4/8/8/8/8/PPPPPPPP/4K2R w - - 0 1"} {
		if got, want := n.ScaleByPawns(parse(fen), 1000), 1000*table[min(pawns, 4)]/PawnScaleOne; got != want {
			t.Errorf("%s: %d, want %d", fen, got, want)
		}
	}
	start := parse(board.StartFEN)
	if allocs := testing.AllocsPerRun(100, func() { n.ScaleByPawns(start, 300) }); allocs != 0 {
		t.Errorf("ScaleByPawns allocates %v times per run", allocs)
	}
}

// Entries above the unit raise a score, up to twice it at PawnScaleMax,
// and such a table is written and read back as it is.
func TestPawnTableAboveOneRaisesTheScore(t *testing.T) {
	n := Random(8, DefaultHidden, 1)
	table := [PawnGroups]int{130, 130, 150, 200, PawnScaleMax}
	if err := n.SetPawnScale(table); err != nil {
		t.Fatal(err)
	}
	n.Seal()
	p, err := board.ParseFEN(board.StartFEN)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ v, want int }{{300, 600}, {-9999, -19998}, {1, 2}} {
		if got := n.ScaleByPawns(p, c.v); got != c.want {
			t.Errorf("ScaleByPawns(start, %d) with table %v: %d, want %d", c.v, table, got, c.want)
		}
	}
	m, err := Parse(encode(t, n), "raised.nnue")
	if err != nil {
		t.Fatal(err)
	}
	if m.PawnScale() != table || m.ID() != n.ID() {
		t.Errorf("read back: table %v id %s; want %v, %s", m.PawnScale(), m.ID(), table, n.ID())
	}
}

// The table is part of the hashed payload: the same weights with another
// table are another network, with another id.
func TestPawnTableNamesTheNetwork(t *testing.T) {
	a, b := Random(6, DefaultHidden, 4), Random(6, DefaultHidden, 4)
	if a.ID() != b.ID() || a.PawnScale() != legacyPawnScale {
		t.Fatalf("Random(6, DefaultHidden, 4) twice: ids %s and %s, table %v", a.ID(), b.ID(), a.PawnScale())
	}
	if err := b.SetPawnScale([PawnGroups]int{58, 58, 91, 120, 127}); err != nil {
		t.Fatal(err)
	}
	b.Seal()
	if a.ID() == b.ID() {
		t.Errorf("another pawn table, the same id %s", a.ID())
	}
	m, err := Parse(encode(t, b), "b.nnue")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID() != b.ID() || m.PawnScale() != b.PawnScale() {
		t.Errorf("read back: id %s, table %v; want %s, %v", m.ID(), m.PawnScale(), b.ID(), b.PawnScale())
	}
}

// A table with an entry below 1, above PawnScaleMax, or below the entry
// before it is refused when set, when written and when read (with a hash
// that matches it), and the error names the file and the entry.
func TestBadPawnTables(t *testing.T) {
	good := Random(7, DefaultHidden, 2)
	data := encode(t, good)
	provLen := int(binary.LittleEndian.Uint32(data[72:]))
	for _, c := range []struct {
		table [PawnGroups]int
		want  string
	}{
		{[PawnGroups]int{0, 58, 91, 120, 128}, "entry 0 is 0, want 1 to 256"},
		{[PawnGroups]int{58, 58, 91, 120, 257}, "entry 4 is 257, want 1 to 256"},
		{[PawnGroups]int{58, 58, 91, 90, 128}, "entry 3 (90) is below entry 2 (91)"},
		{[PawnGroups]int{58, 58, 91, 120, 65535}, "entry 4 is 65535"},
	} {
		n := Random(7, DefaultHidden, 2)
		if err := n.SetPawnScale(c.table); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetPawnScale(%v): %v, want an error saying %q", c.table, err, c.want)
		}
		if n.PawnScale() != legacyPawnScale {
			t.Errorf("a refused table changed the network's: %v", n.PawnScale())
		}
		n.pawnScale = c.table
		if err := n.Write(new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write with table %v: %v, want an error saying %q", c.table, err, c.want)
		}
		bad := bytes.Clone(data)
		payload := bad[headerSize+provLen:]
		for i, s := range c.table {
			binary.LittleEndian.PutUint16(payload[len(payload)-2*PawnGroups+2*i:], uint16(s))
		}
		rehash(bad)
		_, err := Parse(bad, "table.nnue")
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "table.nnue: pawn table") ||
			!strings.Contains(err.Error(), c.want) {
			t.Errorf("reading table %v: %v, want the file's name and %q", c.table, err, c.want)
		}
	}
}
