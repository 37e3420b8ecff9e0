package board

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// perftCase is a position with its known perft counts (index = depth) from the
// chessprogramming.org suite.
type perftCase struct {
	name  string
	fen   string
	nodes []uint64 // nodes[d] is perft(d)
	quick int      // depth run by default; the full list runs with CHESSFORGE_PERFT_FULL=1
}

var perftCases = []perftCase{
	{
		name:  "start",
		fen:   StartFEN,
		nodes: []uint64{1, 20, 400, 8902, 197281, 4865609, 119060324},
		quick: 4,
	},
	{
		name:  "kiwipete",
		fen:   "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		nodes: []uint64{1, 48, 2039, 97862, 4085603, 193690690},
		quick: 3,
	},
	{
		name:  "position3",
		fen:   "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		nodes: []uint64{1, 14, 191, 2812, 43238, 674624, 11030083, 178633661},
		quick: 5,
	},
	{
		name:  "position4",
		fen:   "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		nodes: []uint64{1, 6, 264, 9467, 422333, 15833292, 706045033},
		quick: 3,
	},
	{
		name:  "position4-mirrored",
		fen:   "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
		nodes: []uint64{1, 6, 264, 9467, 422333, 15833292, 706045033},
		quick: 3,
	},
	{
		name:  "position5",
		fen:   "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		nodes: []uint64{1, 44, 1486, 62379, 2103487, 89941194},
		quick: 3,
	},
	{
		name:  "position6",
		fen:   "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
		nodes: []uint64{1, 46, 2079, 89890, 3894594, 164075551},
		quick: 3,
	},
}

// TestPerftStandardPositions checks the leaf counts of the six standard perft
// positions (and position 4 mirrored) at every depth up to a quick limit, or
// to the full published depth when CHESSFORGE_PERFT_FULL=1 (make perft).
func TestPerftStandardPositions(t *testing.T) {
	full := os.Getenv("CHESSFORGE_PERFT_FULL") == "1"
	for _, tc := range perftCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseFEN(tc.fen)
			if err != nil {
				t.Fatal(err)
			}
			maxDepth := tc.quick
			if full {
				maxDepth = len(tc.nodes) - 1
			}
			if testing.Short() && maxDepth > 3 {
				maxDepth = 3
			}
			for d := 0; d <= maxDepth; d++ {
				start := time.Now()
				got := p.Perft(d)
				if got != tc.nodes[d] {
					t.Fatalf("perft(%d) = %d, want %d", d, got, tc.nodes[d])
				}
				if full {
					el := time.Since(start)
					t.Logf("perft(%d) = %d in %v (%.1f M nodes/s)", d, got, el.Round(time.Millisecond), float64(got)/el.Seconds()/1e6)
				}
			}
			if p.FEN() != canonicalFEN(tc.fen) || p.Hash() != p.computeHash() || p.Ply() != 0 {
				t.Fatalf("perft did not restore the position: %s", p.FEN())
			}
		})
	}
}

// canonicalFEN returns the FEN a position prints for fen.
func canonicalFEN(fen string) string {
	p, err := ParseFEN(fen)
	if err != nil {
		return "error: " + err.Error()
	}
	return p.FEN()
}

// TestPerftDivideSumsToPerft checks that Divide lists every legal root move
// once and that its counts add up to Perft.
func TestPerftDivideSumsToPerft(t *testing.T) {
	for _, tc := range perftCases {
		p, err := ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		div := p.Divide(2)
		if len(div) != int(tc.nodes[1]) {
			t.Errorf("%s: Divide lists %d moves, want %d", tc.name, len(div), tc.nodes[1])
		}
		var sum uint64
		seen := map[Move]bool{}
		for _, e := range div {
			if seen[e.Move] {
				t.Errorf("%s: move %s listed twice", tc.name, e.Move)
			}
			seen[e.Move] = true
			sum += e.Nodes
		}
		if sum != tc.nodes[2] {
			t.Errorf("%s: Divide(2) sums to %d, want %d", tc.name, sum, tc.nodes[2])
		}
	}
}

// BenchmarkPerft measures bulk-counting perft from the start position at
// depth 6 (119,060,324 leaves), single thread, and reports nodes per second;
// BenchmarkStockfishPerft measures Stockfish on the same tree in the same run.
func BenchmarkPerft(b *testing.B) {
	p := NewPosition()
	const depth = 6
	var nodes uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nodes += p.Perft(depth)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkStockfishPerft times Stockfish's `go perft 6` from the start
// position (process start-up excluded), the reference for BenchmarkPerft.
func BenchmarkStockfishPerft(b *testing.B) {
	path := stockfishPath
	if _, err := os.Stat(path); err != nil {
		b.Skipf("Stockfish not found at %s", path)
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		fmt.Fprintln(in, "quit")
		in.Close()
		cmd.Wait()
	}()
	out := bufio.NewScanner(outPipe)
	wait := func(prefix string) string {
		for out.Scan() {
			if strings.HasPrefix(out.Text(), prefix) {
				return out.Text()
			}
		}
		b.Fatalf("Stockfish ended before %q", prefix)
		return ""
	}
	fmt.Fprintln(in, "isready")
	wait("readyok")
	var nodes uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fmt.Fprintln(in, "position startpos")
		fmt.Fprintln(in, "go perft 6")
		line := wait("Nodes searched:")
		n, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "Nodes searched:")), 10, 64)
		if err != nil || n != 119060324 {
			b.Fatalf("Stockfish: %q", line)
		}
		nodes += n
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkPerftKiwipete measures perft on a position rich in castling, en
// passant and promotions (Kiwipete depth 4, 4,085,603 leaves).
func BenchmarkPerftKiwipete(b *testing.B) {
	p, err := ParseFEN(perftCases[1].fen)
	if err != nil {
		b.Fatal(err)
	}
	var nodes uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nodes += p.Perft(4)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
