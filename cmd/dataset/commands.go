package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/datasets/export"
	"chessforge/datasets/reshard"
	"chessforge/datasets/stats"
	"chessforge/datasets/stockfish"
	"chessforge/datasets/verify"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/dama"
	"chessforge/internal/outlock"
)

// errMismatches is verify's failure: the report is printed, exit status 1.
var errMismatches = errors.New("mismatches")

// quietSetting is the flag -quiet, which every command that shows a
// progress bar has.
type quietSetting struct {
	Quiet bool `json:"quiet" usage:"no progress bar"`
}

// infoSettings are the flags of info.
type infoSettings struct {
	quietSetting
}

func runInfo(args []string, out, errw io.Writer) error {
	var set infoSettings
	path, err := onePathSettings(flag.NewFlagSet("info", flag.ContinueOnError), &set, args)
	if err != nil {
		return err
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	b := newBar(errw, set.Quiet, total, "counting games")
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
	quietSetting
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

// headSettings are the flags of head.
type headSettings struct {
	N     int `json:"n" usage:"rows to show"`
	Board int `json:"board" usage:"which of the rows shown (from 0) to draw as a board; -1 for none"`
}

func runHead(args []string, out, errw io.Writer) error {
	set := headSettings{N: 10}
	path, err := onePathSettings(flag.NewFlagSet("head", flag.ContinueOnError), &set, args)
	if err != nil {
		return err
	}
	n, boardRow := set.N, set.Board
	if n < 1 {
		return usagef("-n %d: want at least 1 row", n)
	}
	r, err := datasets.Open(path, &datasets.ReaderOptions{BatchRows: min(n, datasets.DefaultBatchRows), Columns: []string{
		datasets.ColGameID, datasets.ColPly, datasets.ColFEN, datasets.ColMove, datasets.ColBestMove,
		datasets.ColPolicy, datasets.ColScoreCP, datasets.ColResult}})
	if err != nil {
		return err
	}
	defer r.Close()
	var rows []datasets.Row
	for len(rows) < n {
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
	if boardRow >= 0 && boardRow < len(rows) {
		row := rows[boardRow]
		side, diagram, err := boardText(r.Layout(), row.FEN)
		if err != nil {
			return fmt.Errorf("row %d: %w", boardRow, err)
		}
		fmt.Fprintf(out, "\nrow %d (game %d, ply %d), %s to move, played %s, best %s, score %s, result %.1f:\n",
			boardRow, row.GameID, row.Ply, side, row.Move, row.BestMove, scoreText(row.ScoreCP), row.Result)
		fmt.Fprint(out, diagram)
		if !strings.HasSuffix(diagram, "\n") {
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

// verifySettings are the flags of verify.
type verifySettings struct {
	quietSetting
	Show int `json:"show" usage:"mismatches to list"`
}

func runVerify(args []string, out, errw io.Writer) error {
	set := verifySettings{Show: verify.DefaultKeep}
	path, err := onePathSettings(flag.NewFlagSet("verify", flag.ContinueOnError), &set, args)
	if err != nil {
		return err
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	b := newBar(errw, set.Quiet, total, "verifying")
	start := time.Now()
	rep, err := verify.Dataset(path, verify.Options{Keep: max(set.Show, 1), Progress: b.Add})
	b.Finish()
	if err != nil {
		return err
	}
	for _, m := range rep.First[:min(len(rep.First), max(set.Show, 0))] {
		fmt.Fprintln(out, m)
	}
	if rep.Mismatches > int64(len(rep.First)) {
		fmt.Fprintf(out, "... %d more\n", rep.Mismatches-int64(len(rep.First)))
	}
	fmt.Fprintf(out, "replayed %d games, each as one chain of contiguous rows, in %.1f s", rep.Games, time.Since(start).Seconds())
	if rep.PartialHistory > 0 {
		planes := "repetition plane is"
		if rep.Layout == encoder.Dama {
			planes = "repetition and quiet-ply planes are" // the PDN FEN has no quiet-ply counter
		}
		fmt.Fprintf(out, "; %d rows lack the game's earlier positions (a write window, or a break reported above): their %s checked as a lower bound", rep.PartialHistory, planes)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "verify: %d rows, %d mismatches\n", rep.Rows, rep.Mismatches)
	if rep.Mismatches > 0 {
		return errMismatches
	}
	return nil
}

// splitSettings are the flags of split.
type splitSettings struct {
	quietSetting
	Val  float64 `json:"val" usage:"share of games for validation, in [0, 1]"`
	Seed uint64  `json:"seed" usage:"changes which games go to validation"`
	Out  string  `json:"out" usage:"output directory (created): train.parquet and val.parquet"`
}

func runSplit(args []string, out, errw io.Writer) (err error) {
	set := splitSettings{Val: 0.1}
	path, err := onePathSettings(flag.NewFlagSet("split", flag.ContinueOnError), &set, args)
	if err != nil {
		return err
	}
	if set.Out == "" {
		return usagef("-out DIR is required")
	}
	if set.Val < 0 || set.Val > 1 {
		return usagef("-val %v is not in [0, 1]", set.Val)
	}
	for _, name := range []string{reshard.TrainFile, reshard.ValidationFile} {
		if err := configs.NotAnInput(filepath.Join(set.Out, name), path); err != nil {
			return fmt.Errorf("-out %s: %w", set.Out, err)
		}
	}
	if err := configs.NewOutputDir(set.Out); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	release, err := lockOutput(set.Out, set.Out)
	if err != nil {
		return err
	}
	defer func() { release(err) }()
	b := newBar(errw, set.Quiet, total, "splitting")
	start := time.Now()
	rep, err := reshard.Split(path, set.Out, reshard.SplitOptions{Val: set.Val, Seed: set.Seed, Progress: b.Add})
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

// mergeSettings are the flags of merge.
type mergeSettings struct {
	quietSetting
	Out   string `json:"out" usage:"output .parquet file"`
	Dedup bool   `json:"dedup" usage:"drop the leading rows of each game whose positions came earlier (games stay whole)"`
}

func runMerge(args []string, out, errw io.Writer) (err error) {
	var set mergeSettings
	paths, err := parseSettings(flag.NewFlagSet("merge", flag.ContinueOnError), &set, args, somePaths)
	if err != nil {
		return err
	}
	if set.Out == "" {
		return usagef("-out FILE is required")
	}
	if err := checkOutputFile(set.Out, paths...); err != nil {
		return err
	}
	total, err := totalRows(paths...)
	if err != nil {
		return err
	}
	release, err := lockOutput(set.Out, filepath.Dir(set.Out))
	if err != nil {
		return err
	}
	defer func() { release(err) }()
	b := newBar(errw, set.Quiet, total, "merging")
	start := time.Now()
	rep, err := reshard.Merge(paths, set.Out, reshard.MergeOptions{Dedup: set.Dedup, Progress: b.Add})
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
	quietSetting
	datasets.Filter
}

func runExport(args []string, out, errw io.Writer) (err error) {
	set := exportSettings{ShardRows: export.DefaultShardRows}
	path, err := onePathSettings(flag.NewFlagSet("export", flag.ContinueOnError), &set, args)
	if err != nil {
		return err
	}
	switch set.Format {
	case "epd", "npy", "plain", "binpack":
	default:
		return usagef("-format %q: want epd, npy, plain or binpack", set.Format)
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
	if set.Format == "npy" {
		err = checkOutputDir(set.Out, path)
	} else {
		err = checkOutputFile(set.Out, path)
	}
	if err != nil {
		return err
	}
	total, err := totalRows(path)
	if err != nil {
		return err
	}
	release, err := lockOutput(set.Out, filepath.Dir(filepath.Clean(set.Out)))
	if err != nil {
		return err
	}
	defer func() { release(err) }()
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
			l, _ := m.Layout() // NPY checked it
			detail = fmt.Sprintf("%s (%d shards, %d bytes per position)", set.Out, len(m.Shards), export.RowBytes(l))
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

// boardText reads a row's FEN in its layout's game and returns the side to
// move and the board diagram.
func boardText(l *encoder.Layout, fen string) (side, diagram string, err error) {
	if l == encoder.Dama {
		pos, err := dama.ParseFEN(fen)
		if err != nil {
			return "", "", err
		}
		return pos.SideToMove().String(), pos.String(), nil
	}
	pos, err := board.ParseFEN(fen)
	if err != nil {
		return "", "", err
	}
	return pos.SideToMove().String(), pos.String(), nil
}

// checkOutputFile checks, before any work starts, the output file out of
// a command reading inputs: none of them (configs.NotAnInput), and a file
// whose directory exists and takes new files.
func checkOutputFile(out string, inputs ...string) error {
	if err := configs.NotAnInput(out, inputs...); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	if err := configs.OutputFile(out); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	return nil
}

// checkOutputDir checks, before any work starts and without making it, the
// output directory out of a NumPy export of inputs: it holds none of them,
// nothing but an earlier export, and can be made or written.
func checkOutputDir(out string, inputs ...string) error {
	if err := configs.NotAnInputDir(out, inputs...); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	if err := export.CheckNPYDir(out); err != nil {
		return configs.AsUsage(fmt.Errorf("-out %w", err))
	}
	if err := configs.NewOutputDir(out); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	return nil
}

// lockOutput takes the lock of the output out once the command's checks
// are done, making first the directory dir that out's lock file and
// temporaries need (out's own for a directory output, or the one above).
// A live writer of out refuses it at once (an *outlock.HeldError naming
// the process). The command calls release with its error when done: it
// drops the lock and, when the command failed, removes the directories
// made for it.
func lockOutput(out, dir string) (release func(error), err error) {
	undo, err := configs.MakeDirs(filepath.Dir(filepath.Clean(out)))
	if err != nil {
		return nil, fmt.Errorf("-out %w", err)
	}
	l, err := outlock.Acquire(out)
	if err != nil {
		undo()
		return nil, err
	}
	undoDir := func() {}
	if dir != filepath.Dir(filepath.Clean(out)) {
		if undoDir, err = configs.MakeDirs(dir); err != nil {
			l.Release()
			undo()
			return nil, fmt.Errorf("-out %w", err)
		}
	}
	return func(err error) {
		l.Release()
		if err != nil {
			undoDir()
			undo()
		}
	}, nil
}
