package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"chessforge/encoder"
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
		rows += benchWrite(b, path, testOptions(), games)
		st, _ := os.Stat(path)
		size = st.Size()
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(rows)/(cpuSeconds()-cpu0), "positions/cpu-s")
	b.ReportMetric(float64(size)/float64(rows/int64(b.N)), "bytes/position")
	logColumnBytes(b, path)
}

// benchWrite writes the games' positions to a new dataset at path,
// building each row from its position as self-play does, and returns the
// number of rows written.
func benchWrite(b *testing.B, path string, opts WriterOptions, games []testGame) int64 {
	b.Helper()
	w, err := Create(path, opts)
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
	return w.Rows()
}

// logColumnBytes logs each column's share of the bytes per position.
func logColumnBytes(b *testing.B, path string) {
	infos, err := Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	in := infos[0]
	line := ""
	for _, c := range ColumnNames() {
		line += fmt.Sprintf(" %s %.2f", c, float64(in.ColumnBytes[c])/float64(in.Rows))
	}
	b.Logf("%d rows, %d row groups, bytes/position by column:%s", in.Rows, in.RowGroups, line)
}

// BenchmarkWriteSettings compares zstd levels and row group sizes on the
// same positions, reporting bytes per position and positions/cpu-s.
func BenchmarkWriteSettings(b *testing.B) {
	games := playGames(5, 400, 160)
	for _, level := range []int{1, 3, 7, 12} {
		for _, group := range []int{8192, 32768, 131072} {
			b.Run(fmt.Sprintf("zstd%d/group%d", level, group), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "s.parquet")
				opts := testOptions()
				opts.CompressionLevel, opts.RowGroupRows = level, group
				cpu0 := cpuSeconds()
				var rows int64
				for i := 0; i < b.N; i++ {
					rows += benchWrite(b, path, opts, games)
				}
				st, _ := os.Stat(path)
				b.ReportMetric(float64(st.Size())/float64(rows/int64(b.N)), "bytes/position")
				b.ReportMetric(float64(rows)/(cpuSeconds()-cpu0), "positions/cpu-s")
			})
		}
	}
}

// cpuSeconds returns the CPU time the process has used, user and system:
// positions per CPU-second is the per-core rate, whatever else the machine
// is running.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkRead reads back a file of playout positions, every column, and
// reports positions/s.
func BenchmarkRead(b *testing.B) {
	benchRead(b, nil, Filter{})
}

// BenchmarkReadFiltered reads every column through the read-time filters
// (max-score, skip-in-check, skip-captures, min-ply) and reports the rows
// scanned per second: the filter's cost over BenchmarkRead.
func BenchmarkReadFiltered(b *testing.B) {
	benchRead(b, nil, Filter{MinPly: 8, MaxScore: 300, SkipInCheck: true, SkipCaptures: true})
}

// BenchmarkReadWithoutPlanes reads every column but planes, as the tools
// that need no network input do.
func BenchmarkReadWithoutPlanes(b *testing.B) {
	var cols []string
	for _, c := range ColumnNames() {
		if c != ColPlanes {
			cols = append(cols, c)
		}
	}
	benchRead(b, cols, Filter{})
}

func benchRead(b *testing.B, cols []string, filter Filter) {
	path := filepath.Join(b.TempDir(), "read.parquet")
	w, err := Create(path, testOptions())
	if err != nil {
		b.Fatal(err)
	}
	var row Row
	for _, g := range playGames(8, 300, 160) {
		gameRows(b, g, &row, func(r *Row) {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		})
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuSeconds()
	var rows int64
	var batch Batch
	for i := 0; i < b.N; i++ {
		rd, err := Open(path, &ReaderOptions{Columns: cols, Filter: filter})
		if err != nil {
			b.Fatal(err)
		}
		for {
			err := rd.ReadBatch(&batch)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rows += int64(batch.Len)
		}
		rows += rd.Dropped() // positions scanned: kept and dropped
		rd.Close()
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(rows)/(cpuSeconds()-cpu0), "positions/cpu-s")
}

// BenchmarkPlanesIndices maps the planes of playout positions to their
// dictionary indices, the writer's per-row check and conversion.
func BenchmarkPlanesIndices(b *testing.B) {
	var rows []Row
	var row Row
	for _, g := range playGames(5, 4, 160) {
		gameRows(b, g, &row, func(r *Row) { rows = append(rows, *r) })
	}
	dst := make([]uint8, encoder.InputSize)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := chessDict.planesIndices(dst, &rows[i%len(rows)].Planes, encoder.InputSize); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteDama writes the rows of random draughts games (planes,
// policy and Parquet; the rows are made before the timer starts) and
// reports positions/s and bytes per position.
func BenchmarkWriteDama(b *testing.B) {
	rows := damaRows(b, 9, 300, 200)
	path := filepath.Join(b.TempDir(), "dama.parquet")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		writeRows(b, path, damaOptions(), rows)
	}
	st, _ := os.Stat(path)
	b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(st.Size())/float64(len(rows)), "bytes/position")
}

// BenchmarkReadDama reads a file of random draughts games back, every
// column.
func BenchmarkReadDama(b *testing.B) {
	rows := damaRows(b, 9, 300, 200)
	path := filepath.Join(b.TempDir(), "dama.parquet")
	writeRows(b, path, damaOptions(), rows)
	b.ResetTimer()
	var batch Batch
	for i := 0; i < b.N; i++ {
		rd, err := Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if err := rd.ReadBatch(&batch); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		rd.Close()
	}
	b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "positions/s")
}
