package uciclient

import (
	"errors"
	"testing"
	"time"
)

func TestParseScore(t *testing.T) {
	tests := []struct {
		line string
		want Score
		ok   bool
	}{
		{"info depth 9 seldepth 12 score cp 31 nodes 1000 pv e2e4", Score{Valid: true, CP: 31}, true},
		{"info depth 9 score cp -120 lowerbound nodes 5", Score{Valid: true, CP: -120}, true},
		// Mate in 3 moves for the mover is 5 plies away: 32000 - 5.
		{"info depth 20 score mate 3 pv a1a8", Score{Valid: true, CP: 31995, Mate: 3}, true},
		// Mated in 2 moves is 4 plies away: -(32000 - 4).
		{"info depth 20 score mate -2", Score{Valid: true, CP: -31996, Mate: -2}, true},
		{"info depth 1 score mate 0", Score{Valid: true, CP: -32000}, true},
		{"info string score cp 50", Score{}, false},
		{"info depth 3 nodes 10", Score{}, false},
		{"bestmove e2e4", Score{}, false},
		{"info score cp x", Score{}, false},
	}
	for _, tc := range tests {
		got, ok := parseScore(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseScore(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestInfoInt(t *testing.T) {
	if d, ok := infoInt("info depth 7 seldepth 9 score cp 3", "depth"); !ok || d != 7 {
		t.Errorf("depth = %d, %v", d, ok)
	}
	if _, ok := infoInt("info string depth 7", "depth"); ok {
		t.Error("an info string must not give a depth")
	}
	if _, ok := infoInt("info nodes 5", "depth"); ok {
		t.Error("no depth in the line, but one was found")
	}
}

func TestStartRejectsAMissingProgramAndEmptyCommand(t *testing.T) {
	if _, err := Start(nil, nil, 0); err == nil {
		t.Error("empty command: want an error")
	}
	if _, err := Start([]string{"/nonexistent/engine"}, nil, 0); err == nil {
		t.Error("missing program: want an error")
	}
}

func TestStartReportsAnEngineThatExitsAtOnce(t *testing.T) {
	// /bin/true reads nothing and exits: the handshake must fail with a
	// CrashError, not hang.
	_, err := Start([]string{"/bin/true"}, nil, 5*time.Second)
	var ce *CrashError
	if !errors.As(err, &ce) || ce.Status != "exit status 0" {
		t.Errorf("error %v, want a crash with exit status 0", err)
	}
}
