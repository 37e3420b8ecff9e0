package pgn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/engine/board"
)

func TestLoadOpeningsNamesEachByItsLabel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.pgn")
	text := "[Opening \"Two Knights\"]\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 *\n\n[FEN \"4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1\"]\n1. O-O Kd7 2. b8=Q *\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	book, err := LoadOpenings(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ fen, moves, name string }{
		{"", "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6", "b.pgn:1 Two Knights"},
		{"4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1 e8d7 b7b8q", "b.pgn:4"},
	}
	if len(book) != len(want) {
		t.Fatalf("got %d openings, want %d", len(book), len(want))
	}
	for i, w := range want {
		var moves []string
		for _, m := range book[i].Moves {
			moves = append(moves, m.String())
		}
		if book[i].FEN != w.fen || book[i].Name != w.name || strings.Join(moves, " ") != w.moves {
			t.Errorf("opening %d: %+v, want %+v", i+1, book[i], w)
		}
		if _, err := book[i].End(); err != nil {
			t.Error(err)
		}
	}
}

func TestOpeningEndRejectsIllegalMovesAndFinishedGames(t *testing.T) {
	pos := board.NewPosition()
	e4, err := pos.ParseUCIMove("e2e4")
	if err != nil {
		t.Fatal(err)
	}
	twice := Opening{Moves: []board.Move{e4, e4}, Name: "e4 twice"}
	if _, err := twice.End(); err == nil || !strings.Contains(err.Error(), "opening e4 twice: move 2") {
		t.Errorf("error %v, want one naming the opening and the move", err)
	}
	mated := Opening{FEN: "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", Name: "mated"}
	if _, err := mated.End(); err == nil || !strings.Contains(err.Error(), "already over (checkmate)") {
		t.Errorf("error %v, want one saying the game is over", err)
	}
	if pos, err := (&Opening{}).Start(); err != nil || pos.FEN() != board.StartFEN {
		t.Errorf("empty opening starts at %v, %v", pos, err)
	}
}
