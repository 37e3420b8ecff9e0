package selfplay

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkRun measures self-play at the budget of 5000 nodes a move
// with the default job settings, one game per iteration, on every core:
//
//	go test -run '^$' -bench Run -benchtime 40x ./selfplay/
//
// Compare nodes/s with `bin/engine bench`'s nps times the number of cores.
func BenchmarkRun(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Games = b.N
	cfg.Nodes = 5000
	cfg.Out = filepath.Join(b.TempDir(), "bench.parquet")
	cfg.PartGames = max(b.N, 1)
	b.ResetTimer()
	sum, err := Run(context.Background(), cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	secs := sum.Elapsed.Seconds()
	b.ReportMetric(float64(sum.Positions)/secs, "positions/s")
	b.ReportMetric(float64(sum.Searches)/secs, "searches/s")
	b.ReportMetric(float64(sum.Nodes)/secs, "nodes/s")
	b.ReportMetric(float64(sum.Games)/secs*3600, "games/hour")
}
