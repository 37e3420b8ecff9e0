package search

import (
	"fmt"
	"io"
	"time"

	"chessforge/engine/board"
	"chessforge/engine/nnue"
)

// DefaultBenchDepth is the depth of `bench` without an argument.
const DefaultBenchDepth = 13

// benchFENs is a fixed set of varied positions: openings, middlegames with
// tactics, and endgames.
var benchFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
	"4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
	"r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
	"r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
	"r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
	"4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
	"2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
	"r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
	"3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
	"r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
	"4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
	"3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
	"6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
	"3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
	"2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1",
	"8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
	"7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
	"8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
	"8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
	"8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
	"6k1/p3q2p/1nr3pB/8/3Q1P2/6P1/PP5P/3R2K1 b - - 0 1",
	"r2r1n2/pp2bk2/2p1p2p/3q4/3PN1QP/2P3R1/P4PP1/5RK1 w - - 0 1",
}

// BenchResult is the outcome of a bench run.
type BenchResult struct {
	Nodes uint64
	Time  time.Duration
}

// NPS returns nodes per second.
func (r BenchResult) NPS() uint64 {
	if r.Time <= 0 {
		return 0
	}
	return uint64(float64(r.Nodes) / r.Time.Seconds())
}

// Bench searches the fixed positions to depth with one thread and a 16 MiB
// table, evaluating with network net (nil: the hand-crafted evaluation),
// printing one line per position to w. Its node total is a signature of the
// search and evaluation: it changes only when they do.
func Bench(depth int, net *nnue.Network, w io.Writer) BenchResult {
	e := New(Options{HashMB: 16, Threads: 1, MultiPV: 1})
	e.SetNetwork(net)
	var r BenchResult
	for i, fen := range benchFENs {
		p, err := board.ParseFEN(fen)
		if err != nil {
			panic(fmt.Sprintf("bench position %d: %v", i+1, err)) // the list is constant and tested
		}
		res := e.Search(p, Limits{Depth: depth}, nil)
		r.Nodes += res.Nodes
		r.Time += res.Time
		fmt.Fprintf(w, "position %2d/%d  %-8s %9d nodes  %s\n", i+1, len(benchFENs), res.BestMove, res.Nodes, fen)
	}
	return r
}
