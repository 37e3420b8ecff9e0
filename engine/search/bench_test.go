package search

import (
	"io"
	"testing"
)

// BenchmarkBench runs the bench positions at depth 11 and reports nodes per
// second; `bin/engine bench` is the same at DefaultBenchDepth.
func BenchmarkBench(b *testing.B) {
	var nodes uint64
	for range b.N {
		nodes += Bench(11, io.Discard).Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
