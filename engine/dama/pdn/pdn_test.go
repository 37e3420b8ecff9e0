package pdn

import (
	"bytes"
	"strings"
	"testing"

	"chessforge/engine/dama"
	"chessforge/engine/pgn"
)

func TestResultWritesPGNMarkersAsPDNs(t *testing.T) {
	for pgnResult, want := range map[string]string{
		pgn.WhiteWins: "2-0", pgn.BlackWins: "0-2", pgn.Draw: "1-1", pgn.Unfinished: "*", "": "*",
	} {
		if got := Result(pgnResult); got != want {
			t.Errorf("Result(%q) = %q, want %q", pgnResult, got, want)
		}
	}
}

func TestWriteFromTheStartingPosition(t *testing.T) {
	g := &Game{
		// A FEN or GameType tag is Write's to make.
		Tags:   map[string]string{"Event": "e", "Round": "1", "Termination": "forty-move", "FEN": "x", "GameType": "x"},
		FEN:    dama.StartPosition().FEN(),
		Moves:  []string{"22-19", "10-13", "19-14"},
		Result: pgn.WhiteWins,
	}
	want := `[Event "e"]
[Site "?"]
[Date "????.??.??"]
[Round "1"]
[White "?"]
[Black "?"]
[Result "2-0"]
[GameType "22"]
[Termination "forty-move"]

1. 22-19 10-13 2. 19-14 2-0

`
	var b bytes.Buffer
	if err := Write(&b, g); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteFromAPositionBlackMovesIn(t *testing.T) {
	g := &Game{
		FEN:          "B:W21,22:B1.",
		Moves:        []string{"1-5", "22-18"},
		Comments:     []string{"book"},
		FinalComment: "adjudication: draw",
		Result:       pgn.Draw,
	}
	var b bytes.Buffer
	if err := Write(&b, g); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "[GameType \"22\"]\n[FEN \"B:W21,22:B1\"]\n\n") ||
		!strings.HasSuffix(out, "\n\n1... 1-5 {book} 2. 22-18 {adjudication: draw} 1-1\n\n") {
		t.Errorf("got\n%s", out)
	}
}

func TestWriteRejectsABadStartPosition(t *testing.T) {
	var b bytes.Buffer
	err := Write(&b, &Game{FEN: "X:W21:B1"})
	if err == nil || !strings.Contains(err.Error(), "side-to-move") || b.Len() > 0 {
		t.Errorf("error %v, wrote %q", err, b.String())
	}
}
