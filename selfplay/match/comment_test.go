package match

import (
	"testing"
	"time"

	"chessforge/engine/pgn"
	"chessforge/selfplay/match/uciclient"
)

// TestMoveCommentReadsBackAsItsScore: the comment bin/match writes after a
// move reads back (pgn.ParseEval, as cutechess-cli and fastchess write it)
// as the engine's score, a mate as its distance in plies.
func TestMoveCommentReadsBackAsItsScore(t *testing.T) {
	for _, tc := range []struct {
		score uciclient.Score
		want  string
		mate  int // plies, as cutechess writes them
	}{
		{uciclient.Score{Valid: true, CP: 31}, "+0.31/9 0.052s", 0},
		{uciclient.Score{Valid: true, CP: -120}, "-1.20/9 0.052s", 0},
		{uciclient.Score{Valid: true, CP: 0}, "+0.00/9 0.052s", 0},
		{uciclient.Score{Valid: true, CP: 32000 - 5, Mate: 3}, "+M5/9 0.052s", 5},
		{uciclient.Score{Valid: true, CP: 32000 - 1, Mate: 1}, "+M1/9 0.052s", 1},
		{uciclient.Score{Valid: true, CP: -32000 + 4, Mate: -2}, "-M4/9 0.052s", -4},
	} {
		c := moveComment(uciclient.Result{Score: tc.score, Depth: 9, Elapsed: 52 * time.Millisecond})
		if c != tc.want {
			t.Errorf("score %+v: comment %q, want %q", tc.score, c, tc.want)
		}
		e, err := pgn.ParseEval(c)
		if err != nil || !e.Scored || e.Depth != 9 || e.Mate != tc.mate || (tc.mate == 0 && e.CP != tc.score.CP) {
			t.Errorf("%q reads back as %+v, %v", c, e, err)
		}
	}
	if c := moveComment(uciclient.Result{Depth: 3}); c != "?/3 0.000s" {
		t.Errorf("no score: %q", c)
	}
	if e, err := pgn.ParseEval("?/3 0.000s"); err != nil || e.Scored {
		t.Errorf("no score reads back as %+v, %v", e, err)
	}
}
