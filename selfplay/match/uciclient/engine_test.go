package uciclient

import (
	"context"
	"errors"
	"strings"
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
		// The text protocol's bare score, in hundredths of a man.
		{"info depth 5 score -140 nodes 900 pv 22-18", Score{Valid: true, CP: -140}, true},
		{"info depth 5 score 31991", Score{Valid: true, CP: 31991}, true},
		{"info depth 5 score", Score{}, false},
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

// textEngine is a shell script speaking the text protocol: it answers any
// line it does not know with "error: ...", newgame with nothing, and go with
// an info line and a fixed move (go nodes; any other go is refused), and
// logs every line it reads to stderr.
const textEngine = `while read -r cmd rest; do
  echo "got $cmd $rest" >&2
  case "$cmd" in
    position|newgame) ;;
    go) case "$rest" in
          nodes*) echo "info depth 3 score 25 nodes 40 pv 22-18"; echo "bestmove 22-18" ;;
          *) echo "error: go: unknown limit" ;;
        esac ;;
    quit) exit 0 ;;
    *) echo "error: unknown command $cmd" ;;
  esac
done`

func TestStartTextDrivesTheTextProtocol(t *testing.T) {
	e, err := StartText([]string{"sh", "-c", textEngine}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Name != "sh -c "+textEngine {
		t.Errorf("name %q, want the command line", e.Name)
	}
	ctx := context.Background()
	if err := e.NewGame(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	res, err := e.Go(ctx, "startpos moves 23-19", "nodes 100", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.BestMove != "22-18" || res.Score != (Score{Valid: true, CP: 25}) || res.Depth != 3 {
		t.Errorf("result %+v", res)
	}
	// A command the engine refuses is an error at once, not a wait.
	if _, err := e.Go(ctx, "startpos", "wtime 100", 5*time.Second); err == nil || err.Error() != `the engine answered "error: go: unknown limit"` {
		t.Errorf("a refused go: error %v", err)
	}
	e.Close()
	log := e.stderr.String()
	for _, want := range []string{"got isready", "got newgame", "got position startpos moves 23-19", "got go nodes 100", "got quit"} {
		if !strings.Contains(log, want) {
			t.Errorf("the engine did not get %q; it got:\n%s", want, log)
		}
	}
	if strings.Contains(log, "uci") {
		t.Errorf("the text protocol sent a UCI command:\n%s", log)
	}
}

func TestStartTextReportsASilentEngine(t *testing.T) {
	_, err := StartText([]string{"sh", "-c", "exec sleep 5"}, 200*time.Millisecond)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Waiting != "readyok" {
		t.Errorf("error %v, want a timeout awaiting readyok", err)
	}
}
