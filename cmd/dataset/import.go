package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"chessforge/datasets/stockfish"
)

// importSettings are the flags of import.
type importSettings struct {
	quietSetting
	Format string `json:"format" usage:"plain or binpack (default: from FILE's extension)"`
	Out    string `json:"out" usage:"output dataset file (.parquet)"`
}

// runImport turns a Stockfish .plain or .binpack file into a dataset.
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
	f, ok := stockfish.FormatOf(src)
	if set.Format != "" {
		if f, err = stockfish.ParseFormat(set.Format); err != nil {
			return usagef("-format: %v", err)
		}
	} else if !ok {
		return usagef("-format is required: %s ends in neither .plain nor .binpack", src)
	}
	if err := checkOutputFile(dest, src); err != nil {
		return err
	}
	release, err := lockOutput(dest, filepath.Dir(filepath.Clean(dest)))
	if err != nil {
		return err
	}
	defer func() { release(err) }()
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
