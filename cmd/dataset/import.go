package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"chessforge/configs"
	"chessforge/datasets/stockfish"
)

// runImport turns a Stockfish .plain or .binpack file into a dataset.
func runImport(args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	quiet := fs.Bool("quiet", false, "no progress bar")
	format := fs.String("format", "", "plain or binpack (default: from FILE's extension)")
	dest := fs.String("out", "", "output dataset file (.parquet)")
	src, err := onePath(fs, args)
	if err != nil {
		return err
	}
	if *dest == "" {
		return usagef("-out DATASET is required")
	}
	f, ok := stockfish.FormatOf(src)
	if *format != "" {
		if f, err = stockfish.ParseFormat(*format); err != nil {
			return usagef("-format: %v", err)
		}
	} else if !ok {
		return usagef("-format is required: %s ends in neither .plain nor .binpack", src)
	}
	if err := configs.OutputFile(*dest); err != nil {
		return fmt.Errorf("-out %w", err)
	}
	b := newBar(errw, *quiet, -1, "importing") // the entries are not counted beforehand
	start := time.Now()
	rep, err := stockfish.Import(src, f, *dest, b.Add)
	b.Finish()
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(out, "import: %d rows in %d games from %s to %s, %.2f s, %.0f positions/s\n",
		rep.Rows, rep.Games, src, *dest, secs, float64(rep.Rows)/secs)
	return nil
}
