package board

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stockfishPath is where the Debian package installs Stockfish (off PATH).
const stockfishPath = "/usr/games/stockfish"

// stockfish is one running Stockfish process driven over UCI.
type stockfish struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startStockfish starts Stockfish, or skips the test when it is not
// installed, unless CI is set (CI installs it, so there its absence fails).
func startStockfish(t *testing.T) *stockfish {
	t.Helper()
	path := stockfishPath
	if _, err := os.Stat(path); err != nil {
		if lp, lerr := exec.LookPath("stockfish"); lerr == nil {
			path = lp
		} else if os.Getenv("CI") != "" {
			t.Fatalf("Stockfish not found at %s or on PATH; CI must install it (apt-get install stockfish)", stockfishPath)
		} else {
			t.Skipf("Stockfish not found at %s or on PATH; install the Debian package stockfish to run this cross-check", stockfishPath)
		}
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	sf := &stockfish{cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	t.Cleanup(func() {
		fmt.Fprintln(in, "quit")
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	sf.send(t, "uci")
	sf.waitFor(t, "uciok")
	sf.send(t, "isready")
	sf.waitFor(t, "readyok")
	return sf
}

func (sf *stockfish) send(t *testing.T, line string) {
	t.Helper()
	if _, err := fmt.Fprintln(sf.in, line); err != nil {
		t.Fatalf("write to Stockfish: %v", err)
	}
}

func (sf *stockfish) waitFor(t *testing.T, prefix string) string {
	t.Helper()
	for sf.out.Scan() {
		if line := sf.out.Text(); strings.HasPrefix(line, prefix) {
			return line
		}
	}
	t.Fatalf("Stockfish ended before %q: %v", prefix, sf.out.Err())
	return ""
}

// divide runs `go perft depth` on fen and returns the count below each root
// move (UCI notation) and the total Stockfish reports.
func (sf *stockfish) divide(t *testing.T, fen string, depth int) (map[string]uint64, uint64) {
	t.Helper()
	sf.send(t, "position fen "+fen)
	sf.send(t, fmt.Sprintf("go perft %d", depth))
	counts := map[string]uint64{}
	for sf.out.Scan() {
		line := strings.TrimSpace(sf.out.Text())
		if rest, ok := strings.CutPrefix(line, "Nodes searched:"); ok {
			total, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
			if err != nil {
				t.Fatalf("Stockfish line %q: %v", line, err)
			}
			return counts, total
		}
		mv, n, ok := strings.Cut(line, ": ")
		if !ok {
			continue // info lines, blank lines
		}
		c, err := strconv.ParseUint(n, 10, 64)
		if err != nil {
			t.Fatalf("Stockfish line %q: %v", line, err)
		}
		counts[mv] = c
	}
	t.Fatalf("Stockfish ended during perft of %s: %v", fen, sf.out.Err())
	return nil, 0
}

// sample is a position chosen for the cross-check, with the features that
// made it interesting.
type sample struct {
	fen  string
	tags string
}

// trickyFENs are hand-picked positions for the rules that random play seldom
// reaches: en passant that would uncover a check along the rank or a
// diagonal, en passant out of check, castling with attacked or occupied
// squares, promotions with and without capture, and the position with the
// most legal moves known (218).
var trickyFENs = []string{
	"8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1",
	"8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
	"8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
	"3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
	"8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1",
	"8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
	"8/5bk1/8/2Pp4/8/1K6/8/8 w - d6 0 1",
	"5k2/8/8/8/8/8/8/4K2R w K - 0 1",
	"3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
	"r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1",
	"r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1",
	"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
	"r3k2r/8/8/8/8/8/8/1R2K2R b Kkq - 0 1",
	"2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1",
	"4k3/1P6/8/8/8/8/K7/8 w - - 0 1",
	"8/P1k5/K7/8/8/8/8/8 w - - 0 1",
	"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
	"8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1",
	"K1k5/8/P7/8/8/8/8/8 w - - 0 1",
	"8/k1P5/8/1K6/8/8/8/8 w - - 0 1",
	"8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
}

// crossCheckSamples picks positions: the tricky ones, then from random
// playouts every position with an en-passant capture or a promotion
// available and, up to a quota each, positions with an en-passant square,
// castling available, the side to move in check, no legal move, and plain
// positions, up to limit in all.
func crossCheckSamples(t *testing.T, limit int) []sample {
	t.Helper()
	var out []sample
	seen := map[string]bool{}
	for _, fen := range trickyFENs {
		seen[canonicalFEN(fen)] = true
		out = append(out, sample{fen, "tricky"})
	}
	quota := map[string]int{"ep-capture": 60, "promotion": 70, "castling": 50,
		"check": 70, "ep-square": 40, "no-moves": 10, "plain": 80}
	var list MoveList
	ply := 0
	for _, pl := range randomPlayouts(t, 3, 300, 250) {
		pl.replay(t, func(p *Position) {
			ply++
			if len(out) >= limit {
				return
			}
			fen := p.FEN()
			if seen[fen] {
				return
			}
			p.GenerateLegal(&list)
			var tags []string
			has := func(f func(Move) bool) bool {
				for _, m := range list.Slice() {
					if f(m) {
						return true
					}
				}
				return false
			}
			if has(Move.IsEnPassant) {
				tags = append(tags, "ep-capture")
			}
			if has(Move.IsPromotion) {
				tags = append(tags, "promotion")
			}
			if has(Move.IsCastling) {
				tags = append(tags, "castling")
			}
			if p.InCheck() {
				tags = append(tags, "check")
			}
			if p.EnPassant() != NoSquare {
				tags = append(tags, "ep-square")
			}
			if list.N == 0 {
				tags = append(tags, "no-moves")
			}
			if len(tags) == 0 && ply%20 == 0 {
				tags = append(tags, "plain")
			}
			take := false
			for _, tag := range tags {
				if quota[tag] > 0 {
					take = true
				}
			}
			if !take {
				return
			}
			for _, tag := range tags {
				quota[tag]--
			}
			seen[fen] = true
			out = append(out, sample{fen, strings.Join(tags, ",")})
		})
	}
	return out
}

// TestPerftMatchesStockfish compares our perft divide with Stockfish's on a
// few hundred positions (the tricky ones and positions from random playouts
// with a fixed seed), root move by root move, at depth 3 for the tricky
// positions and every fourth other one, and 2 for the rest.
func TestPerftMatchesStockfish(t *testing.T) {
	sf := startStockfish(t)
	limit := 400
	if testing.Short() {
		limit = 60
	}
	samples := crossCheckSamples(t, limit)
	tagCount := map[string]int{}
	var nodes uint64
	for i, s := range samples {
		for _, tag := range strings.Split(s.tags, ",") {
			tagCount[tag]++
		}
		depth := 2
		if i%4 == 0 || s.tags == "tricky" {
			depth = 3
		}
		p, err := ParseFEN(s.fen)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		want, wantTotal := sf.divide(t, s.fen, depth)
		got := map[string]uint64{}
		var total uint64
		for _, e := range p.Divide(depth) {
			got[e.Move.String()] = e.Nodes
			total += e.Nodes
		}
		nodes += total
		if total != wantTotal || len(got) != len(want) {
			t.Errorf("%s (%s): perft(%d) = %d over %d moves, Stockfish %d over %d moves",
				s.fen, s.tags, depth, total, len(got), wantTotal, len(want))
		}
		var diffs []string
		for mv, n := range want {
			if g, ok := got[mv]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s missing (Stockfish %d)", mv, n))
			} else if g != n {
				diffs = append(diffs, fmt.Sprintf("%s: %d, Stockfish %d", mv, g, n))
			}
		}
		for mv, n := range got {
			if _, ok := want[mv]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: %d, not a Stockfish move", mv, n))
			}
		}
		if len(diffs) > 0 {
			sort.Strings(diffs)
			t.Errorf("%s (%s) divide(%d) differs: %s", s.fen, s.tags, depth, strings.Join(diffs, "; "))
		}
		if t.Failed() && i > 20 {
			t.FailNow()
		}
	}
	t.Logf("%d positions, %d leaves; features: %v", len(samples), nodes, tagCount)
	if !testing.Short() {
		for _, tag := range []string{"ep-capture", "castling", "promotion", "check", "ep-square", "no-moves"} {
			if tagCount[tag] < 5 {
				t.Errorf("only %d sampled positions with %s; the playouts no longer cover it", tagCount[tag], tag)
			}
		}
	}
}
