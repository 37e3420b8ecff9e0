package pgn

import (
	"strings"
	"testing"
	"time"
)

func TestParseEvalReadsCutechessAndFastchessComments(t *testing.T) {
	tests := []struct {
		comment string
		want    Eval
	}{
		// cutechess-cli: score/depth time, the time with 0 to 3 decimals.
		{"+0.35/12 0.51s", Eval{Scored: true, CP: 35, Depth: 12, Time: 510 * time.Millisecond}},
		{"-1.20/9 2s", Eval{Scored: true, CP: -120, Depth: 9, Time: 2 * time.Second}},
		{"0.00/15 0.052s", Eval{Scored: true, Depth: 15, Time: 52 * time.Millisecond}},
		{"+M5/30 1.2s", Eval{Scored: true, Mate: 5, Depth: 30, Time: 1200 * time.Millisecond}},
		{"-M6/24 0.8s", Eval{Scored: true, Mate: -6, Depth: 24, Time: 800 * time.Millisecond}},
		{"book", Eval{Book: true}},
		// fastchess: the same, then comma-separated fields.
		{"+0.35/12 0.510s, n=123456, sd=18, pv=\"e2e4 e7e5\"", Eval{Scored: true, CP: 35, Depth: 12, Time: 510 * time.Millisecond, Nodes: 123456}},
		{"-0.07/1 0.000s, tl=9.812s, latency=0.001s, n=40, White mates", Eval{Scored: true, CP: -7, Depth: 1, Nodes: 40}},
		{"+M1/3 0.002s, Black's turn", Eval{Scored: true, Mate: 1, Depth: 3, Time: 2 * time.Millisecond}},
		// bin/match's last move: the score comment, then the termination.
		{"+1.25/7 0.010s checkmate", Eval{Scored: true, CP: 125, Depth: 7, Time: 10 * time.Millisecond}},
		// No score.
		{"", Eval{}},
		{"?/9 0.05s", Eval{}},
		{"/12 0.500s", Eval{}},
		{"ERR/12 0.500s", Eval{}},
		{"0.5s", Eval{}},
		{"a fine move", Eval{}},
		{"White mates", Eval{}},
	}
	for _, tc := range tests {
		got, err := ParseEval(tc.comment)
		if err != nil || got != tc.want {
			t.Errorf("ParseEval(%q) = %+v, %v; want %+v", tc.comment, got, err, tc.want)
		}
	}
}

func TestParseEvalRefusesScoresThatCannotBe(t *testing.T) {
	for _, c := range []string{"+M0/5 0.1s", "-M/5", "+0.35/x 0.1s", "+1.2.3/5", "+301.00/9 0.1s", "+0.35/-1"} {
		if e, err := ParseEval(c); err == nil || !strings.Contains(err.Error(), "score") {
			t.Errorf("ParseEval(%q) = %+v, %v; want an error naming the score", c, e, err)
		}
	}
}
