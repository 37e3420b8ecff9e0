package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"chessforge/datasets"
)

// bar is a progress bar of rows on standard error; a nil *bar shows
// nothing.
type bar struct {
	pb *progressbar.ProgressBar
	w  io.Writer
}

// newBar starts a bar of total rows, or returns nil when quiet.
func newBar(w io.Writer, quiet bool, total int64, desc string) *bar {
	if quiet || w == nil {
		return nil
	}
	pb := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("rows"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(25),
		progressbar.OptionThrottle(200*time.Millisecond),
	)
	return &bar{pb: pb, w: w}
}

// add is a progress callback: n more rows done.
func (b *bar) add(n int) {
	if b != nil {
		b.pb.Add(n)
	}
}

// done ends the bar's line.
func (b *bar) done() {
	if b != nil {
		b.pb.Finish()
		fmt.Fprintln(b.w)
	}
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
