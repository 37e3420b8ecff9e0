package uci

import (
	"bytes"
	"fmt"
	"regexp"
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
		{"go depth x", "depth needs a non-negative whole number"},
		{"go movetime", "movetime needs a value"},
		{"go mate 0", "mate needs a number of moves from 1"},
		{"setoption name Hash value lots", "not a whole number"},
		{"setoption name NoSuchThing value 1", "unknown option"},
	}
	for _, c := range cases {
		out := run(t, "position startpos moves e2e4", c.cmd, "d", "isready")
		if !strings.Contains(out, "info string") || !strings.Contains(out, c.want) {
			t.Errorf("%q: want an info string containing %q, got:\n%s", c.cmd, c.want, out)
		}
		// A malformed go still answers, so that a GUI does not wait.
		if strings.HasPrefix(c.cmd, "go ") && !strings.Contains(out, "bestmove 0000\n") {
			t.Errorf("%q: want bestmove 0000 after the error, got:\n%s", c.cmd, out)
		}
		// The position is untouched by a bad command of another kind.
		if !strings.Contains(out, "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1") || !strings.HasSuffix(out, "readyok\n") {
			t.Errorf("%q: engine did not carry on with its position:\n%s", c.cmd, out)
		}
	}
}

// A failed position command leaves no position to search: go refuses with
// an info string naming the problem and bestmove 0000, until a valid
// position arrives.
func TestBadPositionRefusesToSearch(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{"position startpos moves e2e4 e7e5 e1e2 e8e7 e2e5", `move "e2e5" is not legal`},
		{"position startpos moves e2e4 e7e9", `move "e7e9": want UCI notation`},
		{"position startpos moves e2e4 e7e5x", `move "e7e5x": promotion piece`},
		{"position fen 8/8/8/8/8/8/8/8 w - - 0 1", "kings"},
		{"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", `bad FEN side field: want "w" or "b"`},
		{"position fen rnbqkbnr/pppppppp w", "want 6 space-separated fields"},
		{"position sideways", "startpos"},
		{"position startpos e2e4", `want "moves"`},
		{"position", "startpos"},
	}
	for _, c := range cases {
		out := run(t, "position startpos moves d2d4", c.cmd, "go depth 3", "d", "go perft 1", "isready")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		want := []string{"info string position: ", "info string go: no valid position to search (position: ", "bestmove 0000",
			"info string d: no valid position: position: ", "info string go: no valid position to search (position: ", "readyok"}
		if len(lines) != len(want) {
			t.Errorf("%q: want %d lines, got:\n%s", c.cmd, len(want), out)
			continue
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("%q: line %d is %q, want it to start with %q", c.cmd, i+1, lines[i], w)
			}
		}
		for _, i := range []int{0, 1, 3, 4} {
			if !strings.Contains(lines[i], c.want) {
				t.Errorf("%q: line %q does not name the problem (%q)", c.cmd, lines[i], c.want)
			}
		}
		if strings.Contains(out, "info depth") || strings.Contains(out, "Nodes searched") {
			t.Errorf("%q: searched without a valid position:\n%s", c.cmd, out)
		}
	}
	// A valid position ends the refusal; so does ucinewgame (the start position).
	for _, next := range []string{"position fen 7k/8/6K1/8/8/8/8/R7 w - - 0 1", "ucinewgame"} {
		out := run(t, "position startpos moves e2e5", next, "go depth 2")
		if !strings.Contains(out, "info depth 2 ") || !strings.Contains(out, "bestmove ") || strings.Contains(out, "bestmove 0000") {
			t.Errorf("%q after a bad position: want a search, got:\n%s", next, out)
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

// TestStopRightAfterGoIsNeverLost sends stop (or ponderhit) the moment go
// returns, before the search can have begun: each must still end the
// search (a stop lost to a search that had not started would leave go
// infinite running for ever, and the GUI waiting).
func TestStopRightAfterGoIsNeverLost(t *testing.T) {
	for _, cmds := range [][2]string{{"go infinite", "stop"}, {"go ponder wtime 100 btime 100", "ponderhit"}} {
		var out syncBuffer
		s := NewSession(&out)
		s.Handle("position startpos")
		for i := range 50 {
			// A lost stop blocks in stop itself (it waits for the bestmove).
			done := make(chan struct{})
			go func() { s.Handle(cmds[0]); s.Handle(cmds[1]); s.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("%s then %s, try %d: no bestmove within 5 s", cmds[0], cmds[1], i+1)
			}
		}
		if n := strings.Count(out.String(), "bestmove "); n != 50 {
			t.Errorf("%s then %s: %d bestmoves for 50 searches", cmds[0], cmds[1], n)
		}
	}
}

// TestClockAtOrBelowZero checks that a clock read as zero or less (a GUI
// that allows a margin past it) is searched as next to no time: a legal
// move at once, not a refusal and not an unlimited search.
func TestClockAtOrBelowZero(t *testing.T) {
	for _, clock := range []string{"wtime -25 btime 1000", "wtime 0 btime 0", "wtime -1 btime -1 winc 0 binc 0"} {
		var out syncBuffer
		s := NewSession(&out)
		s.Handle("position startpos")
		s.Handle("go " + clock)
		done := make(chan struct{})
		go func() { s.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.Handle("stop")
			t.Fatalf("go %s: no bestmove within 5 s", clock)
		}
		if got := out.String(); !strings.Contains(got, "bestmove ") || strings.Contains(got, "bestmove 0000") || strings.Contains(got, "info string") {
			t.Errorf("go %s:\n%s", clock, got)
		}
	}
	out := run(t, "position startpos", "go wtime x btime 10")
	if !strings.Contains(out, `info string go: wtime needs a whole number of milliseconds, got "x"`) || !strings.Contains(out, "bestmove 0000") {
		t.Errorf("go wtime x:\n%s", out)
	}
}

// The mate positions and their mating moves were confirmed with Stockfish
// (see engine/search's TestSearchFindsMatesAtExactDistance).
func TestGoMateFindsTheMate(t *testing.T) {
	cases := []struct {
		fen   string
		n     int
		score string
		best  string
	}{
		{"r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", 2, "mate 2", "d5f6"},
		// WAC 1: the quiet Qg6 is found by the main search only near depth 18.
		{"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", 2, "mate 2", "g3g6"},
		{"r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3, "mate 3", "f6a6"},
		{"r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3, "mate 3", "f8c5"},
		// Asked for more moves than needed: the shortest mate is found.
		{"r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 5, "mate 3", "f8c5"},
	}
	for _, c := range cases {
		out := run(t, "position fen "+c.fen, fmt.Sprintf("go mate %d", c.n))
		if !strings.Contains(out, " score "+c.score+" ") || !strings.HasSuffix(out, "bestmove "+c.best+"\n") &&
			!strings.Contains(out, "bestmove "+c.best+" ponder ") {
			t.Errorf("%s go mate %d: want score %s and bestmove %s, got:\n%s", c.fen, c.n, c.score, c.best, out)
		}
		if strings.Contains(out, "no mate") {
			t.Errorf("%s go mate %d: says no mate:\n%s", c.fen, c.n, out)
		}
	}
}

func TestGoMateWithoutMate(t *testing.T) {
	start := time.Now()
	out := run(t, "position startpos", "go mate 1")
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("go mate 1 from the start took %v", el)
	}
	if strings.Contains(out, "score mate") || !strings.Contains(out, "info string go mate 1: there is no mate in 1") ||
		!regexp.MustCompile(`\nbestmove [a-h][1-8][a-h][1-8]`).MatchString(out) {
		t.Errorf("go mate 1 from the start: want no mate score, a note and a bestmove, got:\n%s", out)
	}
	// A mate in 3 is not a mate in 2.
	out = run(t, "position fen r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", "go mate 2")
	if strings.Contains(out, "score mate 1 ") || strings.Contains(out, "score mate 2 ") || !strings.Contains(out, "there is no mate in 2") ||
		!strings.Contains(out, "bestmove ") {
		t.Errorf("go mate 2 in a mate in 3: got:\n%s", out)
	}
}

func TestGoMateHonoursStopAndMovetime(t *testing.T) {
	// A mate in 12 from the start would take hours: movetime ends it.
	start := time.Now()
	out := run(t, "position startpos", "go mate 12 movetime 300")
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("go mate 12 movetime 300 took %v", el)
	}
	if !strings.Contains(out, "no mate found; the search ended having proved none in ") || !strings.Contains(out, "\nbestmove ") ||
		strings.Contains(out, "bestmove 0000") {
		t.Errorf("go mate 12 movetime 300: got:\n%s", out)
	}
	var buf syncBuffer
	s := NewSession(&buf)
	s.Handle("position startpos")
	s.Handle("go mate 12")
	time.Sleep(200 * time.Millisecond)
	start = time.Now()
	s.Handle("stop")
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("stop took %v", el)
	}
	if out := buf.String(); !strings.Contains(out, "\nbestmove ") || strings.Contains(out, "bestmove 0000") {
		t.Errorf("go mate 12 then stop: got:\n%s", out)
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

// TestGoSoftNodes: go softnodes N searches until an iteration ends past N
// nodes: the last info line is a complete depth with at least N nodes, and
// a bestmove follows. A bad count is an info string and bestmove 0000.
func TestGoSoftNodes(t *testing.T) {
	out := run(t, "position startpos", "go softnodes 20000")
	if !strings.Contains(out, "bestmove ") || strings.Contains(out, "bestmove 0000") {
		t.Fatalf("go softnodes 20000: want a bestmove, got:\n%s", out)
	}
	m := regexp.MustCompile(`info depth (\d+) .* nodes (\d+) `).FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("go softnodes 20000: no info line in:\n%s", out)
	}
	last := m[len(m)-1]
	var depth, nodes int
	fmt.Sscan(last[1], &depth)
	fmt.Sscan(last[2], &nodes)
	if nodes < 20000 || nodes > 2_000_000 || depth < 2 {
		t.Errorf("go softnodes 20000: last info depth %d, %d nodes; want at least 20000 nodes:\n%s", depth, nodes, out)
	}
	out = run(t, "position startpos", "go softnodes x")
	if !strings.Contains(out, "info string go: softnodes needs a non-negative whole number") || !strings.Contains(out, "bestmove 0000") {
		t.Errorf("go softnodes x: want an info string and bestmove 0000, got:\n%s", out)
	}
}
