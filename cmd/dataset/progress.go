package main

import (
	"io"
	"time"

	"chessforge/configs/progress"
	"chessforge/datasets"
)

// newBar starts a progress bar of total rows on w, or returns nil (a bar
// that draws nothing) when quiet.
func newBar(w io.Writer, quiet bool, total int64, desc string) *progress.Bar {
	if quiet {
		return nil
	}
	return progress.New(w, total, desc, progress.Style{
		Width: 25, Throttle: 200 * time.Millisecond, Elapsed: true, Unit: "rows", EndLine: true,
	})
}

// totalRows returns the rows of the datasets at paths, from their footers.
func totalRows(paths ...string) (int64, error) {
	var n int64
	for _, p := range paths {
		infos, err := datasets.Stat(p)
		if err != nil {
			return 0, err
		}
		for _, in := range infos {
			n += in.Rows
		}
	}
	return n, nil
}
