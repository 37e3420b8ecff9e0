package uci

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the session's search goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func run(t *testing.T, cmds ...string) string {
	t.Helper()
	var out syncBuffer
	s := NewSession(&out)
	for _, c := range cmds {
		s.Handle(c)
	}
	s.Wait()
	return out.String()
}

func TestHandshake(t *testing.T) {
	out := run(t, "uci", "isready")
	for _, want := range []string{"id name chessforge", "id author", "option name Hash type spin",
		"option name Threads type spin", "option name MultiPV type spin", "option name Move Overhead type spin",
		"option name Clear Hash type button", "uciok", "readyok"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestPerftDivideMatchesStockfishFormat(t *testing.T) {
	out := run(t, "position startpos moves e2e4", "go perft 3")
	if !strings.Contains(out, "\ne7e5: 835\n") {
		t.Errorf("want divide line e7e5: 835:\n%s", out)
	}
	if !strings.Contains(out, "\nNodes searched: 13160\n") {
		t.Errorf("want Nodes searched: 13160 after 1.e4 at depth 3, got:\n%s", out)
	}
	lines := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Count(l, ": ") == 1 && !strings.HasPrefix(l, "Nodes") {
			lines++
		}
	}
	if lines != 20 {
		t.Errorf("%d divide lines, want 20", lines)
	}
}

func TestPositionWithFENAndMoves(t *testing.T) {
	out := run(t, "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1 e8c8", "d")
	if !strings.Contains(out, "Fen: 2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2") {
		t.Errorf("wrong position after castling both ways:\n%s", out)
	}
}

func TestBadInputGetsInfoStringAndEngineCarriesOn(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{"frobnicate", "unknown command"},
		{"position fen 8/8/8/8/8/8/8/8 w - - 0 1", "kings"},
		{"position startpos moves e2e5", "not legal"},
		{"position sideways", "startpos"},
		{"go depth x", "depth needs a non-negative whole number"},
		{"go movetime", "movetime needs a value"},
		{"setoption name Hash value lots", "not a whole number"},
		{"setoption name NoSuchThing value 1", "unknown option"},
	}
	for _, c := range cases {
		out := run(t, "position startpos moves e2e4", c.cmd, "d", "isready")
		if !strings.Contains(out, "info string") || !strings.Contains(out, c.want) {
			t.Errorf("%q: want an info string containing %q, got:\n%s", c.cmd, c.want, out)
		}
		// The earlier position survives a bad position command.
		if !strings.Contains(out, "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1") || !strings.HasSuffix(out, "readyok\n") {
			t.Errorf("%q: engine did not carry on with its position:\n%s", c.cmd, out)
		}
	}
}

func TestGoDepthPrintsInfoAndBestmove(t *testing.T) {
	out := run(t, "setoption name MultiPV value 2", "position startpos", "go depth 5")
	for _, want := range []string{"info depth 5 seldepth", "multipv 2", "score cp", "nodes", "nps", "hashfull", "time", " pv ", "bestmove "} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestGoInfiniteWaitsForStop(t *testing.T) {
	var out syncBuffer
	s := NewSession(&out)
	s.Handle("position fen 7k/8/6K1/8/8/8/8/R7 w - - 0 1")
	s.Handle("go infinite")
	// Mate in 1 is found at once, but bestmove must wait for stop.
	time.Sleep(200 * time.Millisecond)
	if strings.Contains(out.String(), "bestmove") {
		t.Fatalf("bestmove before stop in infinite mode:\n%s", out.String())
	}
	s.Handle("stop")
	if !strings.Contains(out.String(), "bestmove a1a8") {
		t.Errorf("want bestmove a1a8 right after stop, got:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "score mate 1") {
		t.Errorf("want score mate 1:\n%s", out.String())
	}
}

func TestPonderHitReleasesSearch(t *testing.T) {
	var out syncBuffer
	s := NewSession(&out)
	s.Handle("position startpos")
	s.Handle("go ponder wtime 1000 btime 1000")
	time.Sleep(100 * time.Millisecond)
	if strings.Contains(out.String(), "bestmove") {
		t.Fatal("bestmove while pondering")
	}
	s.Handle("ponderhit")
	done := make(chan struct{})
	go func() { s.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("no bestmove within the clock after ponderhit")
	}
	if !strings.Contains(out.String(), "bestmove") {
		t.Errorf("no bestmove:\n%s", out.String())
	}
}

func TestFormatScore(t *testing.T) {
	cases := map[int]string{31999: "mate 1", 31997: "mate 2", -31998: "mate -1", -31996: "mate -2", 35: "cp 35", -120: "cp -120"}
	for s, want := range cases {
		if got := FormatScore(s); got != want {
			t.Errorf("FormatScore(%d) = %q, want %q", s, got, want)
		}
	}
}
