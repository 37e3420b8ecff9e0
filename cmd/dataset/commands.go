package main

import (
	"chessforge/configs"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"chessforge/datasets"
	"chessforge/datasets/export"
	"chessforge/datasets/reshard"
	"chessforge/datasets/stats"
	"chessforge/datasets/stockfish"
	"chessforge/datasets/verify"
	"chessforge/engine/board"
)

// errMismatches is verify's failure: the report is printed, exit status 1.
var errMismatches = errors.New("mismatches")

func runInfo(args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	quiet := fs.Bool("quiet", false, "no progress bar")
	path, err := onePath(fs, args)
	if err != nil {
		return err
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	b := newBar(errw, *quiet, total, "counting games")
	in, err := stats.Describe(path, b.Add)
	b.Finish()
	if err != nil {
		return err
	}
	in.Print(out)
	return nil
}

// statsSettings are the flags of stats.
type statsSettings struct {
	Quiet bool `json:"quiet" usage:"no progress bar"`
	datasets.Filter
}

func runStats(args []string, out, errw io.Writer) error {
	var set statsSettings
	path, err := onePathSettings(flag.NewFlagSet("stats", flag.ContinueOnError), &set, args)
	if err != nil {
		return err
	}
	if err := set.Filter.Validate(); err != nil {
		return usagef("%v", err)
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	b := newBar(errw, set.Quiet, total, "reading")
	s, err := stats.Compute(path, stats.Options{Filter: set.Filter, Progress: b.Add})
	b.Finish()
	if err != nil {
		return err
	}
	s.Print(out)
	return nil
}

func runHead(args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("head", flag.ContinueOnError)
	n := fs.Int("n", 10, "rows to show")
	boardRow := fs.Int("board", 0, "which of the rows shown (from 0) to draw as a board; -1 for none")
	path, err := onePath(fs, args)
	if err != nil {
		return err
	}
	if *n < 1 {
		return usagef("-n %d: want at least 1 row", *n)
	}
	r, err := datasets.Open(path, &datasets.ReaderOptions{BatchRows: min(*n, datasets.DefaultBatchRows), Columns: []string{
		datasets.ColGameID, datasets.ColPly, datasets.ColFEN, datasets.ColMove, datasets.ColBestMove,
		datasets.ColPolicy, datasets.ColScoreCP, datasets.ColResult}})
	if err != nil {
		return err
	}
	defer r.Close()
	var rows []datasets.Row
	for len(rows) < *n {
		var row datasets.Row
		err := r.Read(&row)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(out, "%-4s %19s %4s  %-72s %-6s %-6s %6s %7s %6s\n", "row", "game", "ply", "fen", "move", "best", "policy", "score", "result")
	for i, row := range rows {
		fmt.Fprintf(out, "%-4d %19d %4d  %-72s %-6s %-6s %6d %7s %6s\n", i, row.GameID, row.Ply, row.FEN,
			row.Move, row.BestMove, row.Policy, scoreText(row.ScoreCP), strconv.FormatFloat(float64(row.Result), 'f', 1, 32))
	}
	if *boardRow >= 0 && *boardRow < len(rows) {
		row := rows[*boardRow]
		pos, err := board.ParseFEN(row.FEN)
		if err != nil {
			return fmt.Errorf("row %d: %w", *boardRow, err)
		}
		fmt.Fprintf(out, "\nrow %d (game %d, ply %d), %s to move, played %s, best %s, score %s, result %.1f:\n",
			*boardRow, row.GameID, row.Ply, pos.SideToMove(), row.Move, row.BestMove, scoreText(row.ScoreCP), row.Result)
		fmt.Fprint(out, pos.String())
		if !strings.HasSuffix(pos.String(), "\n") {
			fmt.Fprintln(out)
		}
	}
	return nil
}

// scoreText shows a score in centipawns, or a mate as #N / #-N (plies).
func scoreText(s int32) string {
	switch {
	case s >= stats.MateThreshold:
		return fmt.Sprintf("#%d", 32000-s)
	case s <= -stats.MateThreshold:
		return fmt.Sprintf("#-%d", 32000+s)
	}
	return strconv.Itoa(int(s))
}

func runVerify(args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	quiet := fs.Bool("quiet", false, "no progress bar")
	show := fs.Int("show", verify.DefaultKeep, "mismatches to list")
	path, err := onePath(fs, args)
	if err != nil {
		return err
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	b := newBar(errw, *quiet, total, "verifying")
	start := time.Now()
	rep, err := verify.Dataset(path, verify.Options{Keep: max(*show, 1), Progress: b.Add})
	b.Finish()
	if err != nil {
		return err
	}
	for _, m := range rep.First[:min(len(rep.First), max(*show, 0))] {
		fmt.Fprintln(out, m)
	}
	if rep.Mismatches > int64(len(rep.First)) {
		fmt.Fprintf(out, "... %d more\n", rep.Mismatches-int64(len(rep.First)))
	}
	fmt.Fprintf(out, "replayed %d games, each as one chain of contiguous rows, in %.1f s", rep.Games, time.Since(start).Seconds())
	if rep.PartialHistory > 0 {
		fmt.Fprintf(out, "; %d rows lack the game's earlier positions (a write window, or a break reported above): their repetition plane is checked as a lower bound", rep.PartialHistory)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "verify: %d rows, %d mismatches\n", rep.Rows, rep.Mismatches)
	if rep.Mismatches > 0 {
		return errMismatches
	}
	return nil
}

func runSplit(args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("split", flag.ContinueOnError)
	quiet := fs.Bool("quiet", false, "no progress bar")
	val := fs.Float64("val", 0.1, "share of games for validation, in [0, 1]")
	seed := fs.Uint64("seed", 0, "changes which games go to validation")
	dir := fs.String("out", "", "output directory (created): train.parquet and val.parquet")
	path, err := onePath(fs, args)
	if err != nil {
		return err
	}
	if *dir == "" {
		return usagef("-out DIR is required")
	}
	if *val < 0 || *val > 1 {
		return usagef("-val %v is not in [0, 1]", *val)
	}
	if err := configs.OutputDir(*dir); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	b := newBar(errw, *quiet, total, "splitting")
	start := time.Now()
	rep, err := reshard.Split(path, *dir, reshard.SplitOptions{Val: *val, Seed: *seed, Progress: b.Add})
	b.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %d games, %d rows\n", rep.Train, rep.TrainGames, rep.TrainRows)
	fmt.Fprintf(out, "%s: %d games, %d rows\n", rep.Validation, rep.ValidationGames, rep.ValidationRows)
	fmt.Fprintf(out, "split: %d rows, train %d games, validation %d games, %.1f s\n",
		rep.TrainRows+rep.ValidationRows, rep.TrainGames, rep.ValidationGames, time.Since(start).Seconds())
	return nil
}

func runMerge(args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	quiet := fs.Bool("quiet", false, "no progress bar")
	file := fs.String("out", "", "output .parquet file")
	dedup := fs.Bool("dedup", false, "drop the leading rows of each game whose positions came earlier (games stay whole)")
	paths, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("want at least one dataset PATH")
	}
	if *file == "" {
		return usagef("-out FILE is required")
	}
	if err := configs.OutputFile(*file); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	total, err := totalRows(paths...)
	if err != nil {
		return err
	}
	b := newBar(errw, *quiet, total, "merging")
	start := time.Now()
	rep, err := reshard.Merge(paths, *file, reshard.MergeOptions{Dedup: *dedup, Progress: b.Add})
	b.Finish()
	if err != nil {
		return err
	}
	if rep.SharedGameIDs > 0 {
		fmt.Fprintf(out, "warning: %d game ids occur in more than one source file; game_id is no longer unique per game\n", rep.SharedGameIDs)
	}
	fmt.Fprintf(out, "merge: %d files, %d rows read, %d written, %d duplicates dropped, %.1f s\n",
		rep.Files, rep.Rows, rep.Written, rep.Dropped, time.Since(start).Seconds())
	return nil
}

// exportSettings are the flags of export.
type exportSettings struct {
	Format    string `json:"format" usage:"epd (FEN [result] lines), npy (NumPy shards), plain or binpack (Stockfish's training data)"`
	Out       string `json:"out" usage:"output file (epd, plain, binpack) or directory (npy)"`
	ShardRows int    `json:"shard-rows" usage:"rows per NumPy shard"`
	Quiet     bool   `json:"quiet" usage:"no progress bar"`
	datasets.Filter
}

func runExport(args []string, out, errw io.Writer) error {
	set := exportSettings{ShardRows: export.DefaultShardRows}
	path, err := onePathSettings(flag.NewFlagSet("export", flag.ContinueOnError), &set, args)
	if err != nil {
		return err
	}
	if set.Out == "" {
		return usagef("-out is required")
	}
	if set.ShardRows < 1 {
		return usagef("-shard-rows %d: want at least 1", set.ShardRows)
	}
	if err := set.Filter.Validate(); err != nil {
		return usagef("%v", err)
	}
	if (set.Format == "plain" || set.Format == "binpack") && set.Filter.Active() {
		return usagef("-format %s keeps whole games (nnue-pytorch and bullet filter when they load): drop the read-time filters (%s)", set.Format, set.Filter)
	}
	checkOut := configs.OutputFile
	if set.Format == "npy" {
		checkOut = configs.OutputDir
	}
	if err := checkOut(set.Out); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	b := newBar(errw, set.Quiet, total, "exporting")
	start := time.Now()
	var rows int64
	var detail string
	switch set.Format {
	case "epd":
		rows, err = export.EPD(path, set.Out, export.EPDOptions{Filter: set.Filter, Progress: b.Add})
		detail = set.Out
	case "npy":
		var m *export.Manifest
		m, err = export.NPY(path, set.Out, export.NPYOptions{ShardRows: set.ShardRows, Filter: set.Filter, Progress: b.Add})
		if m != nil {
			rows = m.Rows
			detail = fmt.Sprintf("%s (%d shards, %d bytes per position)", set.Out, len(m.Shards), export.BytesPerRow)
		}
	case "plain", "binpack":
		f, _ := stockfish.ParseFormat(set.Format)
		var rep *stockfish.ExportReport
		rep, err = stockfish.Export(path, set.Out, f, b.Add)
		if rep != nil {
			rows = rep.Rows
			detail = fmt.Sprintf("%s (%d bytes, %.2f bytes per position", set.Out, rep.Bytes, float64(rep.Bytes)/float64(max(rep.Rows, 1)))
			if f == stockfish.Binpack {
				detail += fmt.Sprintf(", %d chains", rep.Chains)
			}
			detail += ")"
		}
	default:
		b.Finish()
		return usagef("-format %q: want epd, npy, plain or binpack", set.Format)
	}
	b.Finish()
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	if set.Filter.Active() {
		fmt.Fprintf(out, "read-time filters %s: kept %d of %d rows\n", set.Filter, rows, total)
	}
	fmt.Fprintf(out, "export: %d rows to %s, %.2f s, %.0f positions/s\n", rows, detail, secs, float64(rows)/secs)
	return nil
}
