package pgn

import (
	"testing"

	"chessforge/engine/board"
)

func TestRuleResultLosesCheckmateForTheSideToMoveAndDrawsTheRest(t *testing.T) {
	tests := []struct {
		o           board.Outcome
		toMove      board.Color
		result      string
		termination string
	}{
		{board.Checkmate, board.White, BlackWins, "checkmate"},
		{board.Checkmate, board.Black, WhiteWins, "checkmate"},
		{board.Stalemate, board.White, Draw, "stalemate"},
		{board.ThreefoldRepetition, board.Black, Draw, "threefold"},
		{board.FiftyMoveRule, board.White, Draw, "fifty-move"},
		{board.InsufficientMaterial, board.Black, Draw, "insufficient material"},
		{board.Ongoing, board.White, Unfinished, "ongoing"},
	}
	for _, tc := range tests {
		result, term := RuleResult(tc.o, tc.toMove)
		if result != tc.result || term != tc.termination {
			t.Errorf("RuleResult(%v, %v) = %q, %q; want %q, %q", tc.o, tc.toMove, result, term, tc.result, tc.termination)
		}
	}
}

func TestRuleResultOfAPlayedCheckmate(t *testing.T) {
	// Fool's mate: White is mated.
	pos := board.NewPosition()
	for _, s := range []string{"f2f3", "e7e5", "g2g4", "d8h4"} {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		pos.MakeMove(m)
	}
	if result, term := RuleResult(pos.Outcome(), pos.SideToMove()); result != BlackWins || term != "checkmate" {
		t.Errorf("fool's mate: %q %q", result, term)
	}
}

func TestPointsAndResultOfAgree(t *testing.T) {
	for _, r := range []string{WhiteWins, BlackWins, Draw} {
		p, ok := Points(r)
		if !ok || ResultOf(p) != r {
			t.Errorf("Points(%q) = %v, %v; ResultOf gives %q back", r, p, ok, ResultOf(p))
		}
	}
	if _, ok := Points(Unfinished); ok {
		t.Error("Points(*): want ok false")
	}
	if Win(board.White) != WhiteWins || Win(board.Black) != BlackWins {
		t.Error("Win gives the wrong marker")
	}
}
