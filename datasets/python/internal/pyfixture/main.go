// Command pyfixture writes the Python tests' dataset: a directory of
// Parquet shards of random playouts (small row groups, so that DataLoader
// workers have several units to share), plus the columns the tests compare
// against, dumped from the Parquet files through the Go reader as raw
// little-endian arrays in row order:
//
//	DIR/data/part-K.parquet  the dataset
//	DIR/planes.f32           float32 [rows, 1152], the plane layout
//	DIR/policy.i32           int32 [rows]
//	DIR/score_cp.i32         int32 [rows]
//	DIR/result.f32           float32 [rows]
//	DIR/ply.i32              int32 [rows]
//	DIR/in_check.u8, DIR/best_is_capture.u8, DIR/best_is_promotion.u8
//	                         uint8 [rows], 1 true 0 false
//	DIR/fen.txt, DIR/best_move.txt  one line per row
//	DIR/dama/...             the same for a dataset of Italian draughts
//	                         playouts, its planes float32 [rows, 448]
//
//	go run ./datasets/python/internal/pyfixture -out DIR [-games N] [-seed S]
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/encoder"
)

func main() {
	out := flag.String("out", "", "output directory (created)")
	games := flag.Int("games", 20, "games per shard")
	shards := flag.Int("shards", 2, "Parquet files")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" || *games < 1 || *shards < 1 {
		fmt.Fprintln(os.Stderr, "pyfixture: -out is required; -games and -shards must be positive")
		os.Exit(2)
	}
	for _, g := range []struct{ dir, game string }{{*out, encoder.GameChess}, {filepath.Join(*out, "dama"), encoder.GameDama}} {
		if err := run(g.dir, g.game, *games, *shards, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "pyfixture:", err)
			os.Exit(1)
		}
	}
}

func run(out, game string, games, shards int, seed uint64) error {
	data := filepath.Join(out, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	var rows int64
	for s := 0; s < shards; s++ {
		n, err := fixture.Write(filepath.Join(data, fmt.Sprintf("part-%d.parquet", s)), fixture.Options{
			Game: game, Games: games, Seed: seed + uint64(s), FirstID: int64(s * games), MaxPlies: 120, RowGroupRows: 512,
		})
		if err != nil {
			return err
		}
		rows += n
	}
	names := []string{"planes.f32", "policy.i32", "score_cp.i32", "result.f32", "ply.i32",
		"in_check.u8", "best_is_capture.u8", "best_is_promotion.u8", "fen.txt", "best_move.txt"}
	dumps := map[string]*bufio.Writer{}
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, name := range names {
		f, err := os.Create(filepath.Join(out, name))
		if err != nil {
			return err
		}
		files = append(files, f)
		dumps[name] = bufio.NewWriter(f)
	}
	r, err := datasets.Open(data, &datasets.ReaderOptions{Columns: []string{
		datasets.ColPlanes, datasets.ColPolicy, datasets.ColScoreCP, datasets.ColResult, datasets.ColPly,
		datasets.ColInCheck, datasets.ColBestIsCapture, datasets.ColBestIsPromotion,
		datasets.ColFEN, datasets.ColBestMove}})
	if err != nil {
		return err
	}
	defer r.Close()
	var b datasets.Batch
	var buf []byte
	u32 := func(name string, v uint32) { dumps[name].Write(binary.LittleEndian.AppendUint32(buf[:0], v)) }
	u8 := func(name string, v bool) {
		if v {
			dumps[name].WriteByte(1)
		} else {
			dumps[name].WriteByte(0)
		}
	}
	for {
		err := r.ReadBatch(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		for _, v := range b.Planes {
			u32("planes.f32", math.Float32bits(v))
		}
		for i := 0; i < b.Len; i++ {
			u32("policy.i32", uint32(b.Policy[i]))
			u32("score_cp.i32", uint32(b.ScoreCP[i]))
			u32("result.f32", math.Float32bits(b.Result[i]))
			u32("ply.i32", uint32(b.Ply[i]))
			u8("in_check.u8", b.InCheck[i])
			u8("best_is_capture.u8", b.BestIsCapture[i])
			u8("best_is_promotion.u8", b.BestIsPromotion[i])
			fmt.Fprintln(dumps["fen.txt"], b.FEN[i])
			fmt.Fprintln(dumps["best_move.txt"], b.BestMove[i])
		}
	}
	for _, name := range names {
		if err := dumps[name].Flush(); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			return err
		}
	}
	files = nil
	fmt.Printf("pyfixture: %d rows in %d files under %s\n", rows, shards, data)
	return nil
}
