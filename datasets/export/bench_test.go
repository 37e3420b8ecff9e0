package export

import (
	"os"
	"path/filepath"
	"testing"

	"chessforge/datasets/fixture"
	"chessforge/encoder"
	"chessforge/engine/board"
)

// benchData writes a playout dataset of about 10,000 rows once per
// benchmark.
func benchData(b *testing.B) (string, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.parquet")
	n, err := fixture.Write(path, fixture.Options{Games: 80, Seed: 1, MaxPlies: 160})
	if err != nil {
		b.Fatal(err)
	}
	return path, n
}

// BenchmarkExportNPY reports positions/s of the whole export: reading the
// Parquet rows (planes included), packing and writing the shards.
func BenchmarkExportNPY(b *testing.B) {
	src, n := benchData(b)
	out := filepath.Join(b.TempDir(), "npy")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		os.RemoveAll(out)
		if _, err := NPY(src, out, NPYOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(BytesPerRow), "bytes/position")
}

// BenchmarkExportEPD reports positions/s of the EPD export.
func BenchmarkExportEPD(b *testing.B) {
	src, n := benchData(b)
	out := filepath.Join(b.TempDir(), "out.epd")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := EPD(src, out, EPDOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}

// BenchmarkPack measures packing one row's planes.
func BenchmarkPack(b *testing.B) {
	var pl encoder.Planes
	encoder.EncodeTo(&pl, board.NewPosition())
	packed := make([]byte, PackedBytes)
	scalars := make([]float32, NumScalars)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := Pack(packed, scalars, pl[:]); err != nil {
			b.Fatal(err)
		}
	}
}
