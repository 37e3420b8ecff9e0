package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"chessforge/datasets/pgnimport"
	"chessforge/datasets/stockfish"
)

// importSettings are the flags of import.
type importSettings struct {
	quietSetting
	Format string `json:"format" usage:"plain, binpack or pgn (default: from FILE's extension)"`
	Out    string `json:"out" usage:"output dataset file (.parquet)"`
}

// runImport turns a Stockfish .plain or .binpack file, or a PGN file of
// played games, into a dataset.
func runImport(args []string, out, errw io.Writer) (err error) {
	var set importSettings
	src, err := onePathSettings(flag.NewFlagSet("import", flag.ContinueOnError), &set, args)
	if err != nil {
		return err
	}
	dest := set.Out
	if dest == "" {
		return usagef("-out DATASET is required")
	}
	isPGN := strings.EqualFold(filepath.Ext(src), ".pgn")
	f, ok := stockfish.FormatOf(src)
	switch {
	case set.Format == "pgn":
		isPGN = true
	case set.Format != "":
		if f, err = stockfish.ParseFormat(set.Format); err != nil {
			return usagef("-format %q: want plain, binpack or pgn", set.Format)
		}
		isPGN = false
	case !ok && !isPGN:
		return usagef("-format is required: %s ends in none of .plain, .binpack and .pgn", src)
	}
	if err := checkOutputFile(dest, src); err != nil {
		return err
	}
	release, err := lockOutput(dest, filepath.Dir(filepath.Clean(dest)))
	if err != nil {
		return err
	}
	defer func() { release(err) }()
	if isPGN {
		return importPGN(src, dest, set.Quiet, out, errw)
	}
	b := newBar(errw, set.Quiet, -1, "importing") // the entries are not counted beforehand
	start := time.Now()
	rep, err := stockfish.Import(src, f, dest, b.Add)
	b.Finish()
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(out, "import: %d rows in %d games from %s to %s, %.2f s, %.0f positions/s\n",
		rep.Rows, rep.Games, src, dest, secs, float64(rep.Rows)/secs)
	return nil
}

// importPGN imports the games of a PGN file, naming each game skipped on
// errw once the progress bar is done.
func importPGN(src, dest string, quiet bool, out, errw io.Writer) error {
	b := newBar(errw, quiet, -1, "importing")
	var skipped []string
	start := time.Now()
	rep, err := pgnimport.Import(src, dest, pgnimport.Options{
		Progress: b.Add,
		Skipped:  func(s *pgnimport.Skip) { skipped = append(skipped, s.Error()) },
	})
	b.Finish()
	for _, s := range skipped {
		fmt.Fprintf(errw, "import: skipped %s\n", s)
	}
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(out, "import: %d rows in %d games from %s to %s (%d games skipped, %d without a score), %.2f s, %.0f positions/s\n",
		rep.Rows, rep.Imported, src, dest, rep.Skipped, rep.Unscored, secs, float64(rep.Rows)/secs)
	return nil
}
