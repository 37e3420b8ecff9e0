package datasets

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkWrite encodes and writes the positions of random-and-greedy
// playouts (the cost self-play pays per position outside search: FEN,
// planes, policy, Parquet) and reports positions/s and bytes per position.
func BenchmarkWrite(b *testing.B) {
	games := playGames(5, 400, 160)
	path := filepath.Join(b.TempDir(), "bench.parquet")
	b.ResetTimer()
	cpu0 := cpuSeconds()
	var rows, size int64
	for i := 0; i < b.N; i++ {
		w, err := Create(path, testOptions())
		if err != nil {
			b.Fatal(err)
		}
		var row Row
		for _, g := range games {
			gameRows(b, g, &row, func(r *Row) {
				if err := w.Write(r); err != nil {
					b.Fatal(err)
				}
			})
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		rows += w.Rows()
		st, _ := os.Stat(path)
		size = st.Size()
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(rows)/(cpuSeconds()-cpu0), "positions/cpu-s")
	b.ReportMetric(float64(size)/float64(rows/int64(b.N)), "bytes/position")
}

// cpuSeconds returns the CPU time the process has used, user and system:
// positions per CPU-second is the per-core rate, whatever else the machine
// is running.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
