package search

import (
	"io"
	"testing"
	"time"

	"chessforge/engine/board"
)

// BenchmarkBench runs the bench positions at depth 11 and reports nodes per
// second; `bin/engine bench` is the same at DefaultBenchDepth.
func BenchmarkBench(b *testing.B) {
	var nodes uint64
	for range b.N {
		nodes += Bench(11, nil, io.Discard).Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkDepth18 is the speed figure: `go depth 18` from the start
// position with a 64 MiB table and one thread, from a fresh engine each time.
// Besides nodes per second of search time it reports nodes per CPU-second
// of the search alone (the table's allocation excluded), which is steadier
// on a shared machine.
func BenchmarkDepth18(b *testing.B) {
	var nodes uint64
	var searching, cpu time.Duration
	for range b.N {
		e := New(Options{HashMB: 64, Threads: 1, MultiPV: 1})
		before := processCPU()
		r := e.Search(board.NewPosition(), Limits{Depth: 18}, nil)
		cpu += processCPU() - before
		nodes += r.Nodes
		searching += r.Time
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
	b.ReportMetric(float64(nodes)/searching.Seconds(), "nodes/s")
	if cpu > 0 {
		b.ReportMetric(float64(nodes)/cpu.Seconds(), "nodes/cpu-s")
	}
}
