package verify

import (
	"path/filepath"
	"testing"

	"chessforge/datasets/fixture"
)

// BenchmarkVerify reports positions/s verified (reading included).
func BenchmarkVerify(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.parquet")
	n, err := fixture.Write(path, fixture.Options{Games: 80, Seed: 1, MaxPlies: 160})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Dataset(path, Options{})
		if err != nil || rep.Mismatches != 0 {
			b.Fatal(err, rep.First)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}
