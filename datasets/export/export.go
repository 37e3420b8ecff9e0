// Package export writes a dataset's rows in the formats other programs
// read: EPD lines ("FEN [1.0]", what texel-style tuners take) and NumPy
// .npy shards with bit-packed planes, for trainers that memory-map arrays.
// Every export takes the read-time filters (datasets.Filter) and writes the
// rows they keep.
package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"chessforge/datasets"
)

// Progress is told how many more rows have been read (those a filter
// dropped included); nil shows nothing.
type Progress func(rows int)

// KeyFilter is the metadata key under which an export records the read-time
// filters it applied (datasets.Filter's String), when any is on.
const KeyFilter = "chessforge.export.filter"

// EPDOptions configures EPD.
type EPDOptions struct {
	Filter   datasets.Filter // read-time filters: the rows they drop are not exported
	Progress Progress        // told of the rows read
}

// EPD writes one line per row of the dataset at src to the file out (the
// rows opts.Filter keeps): the row's FEN, a space and the game's result
// for White in brackets, "[1.0]", "[0.5]" or "[0.0]". out is written under
// a temporary name and renamed when complete. It returns the lines written.
func EPD(src, out string, opts EPDOptions) (int64, error) {
	progress := opts.Progress
	r, err := datasets.Open(src, &datasets.ReaderOptions{Filter: opts.Filter, Columns: []string{datasets.ColFEN, datasets.ColResult}})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	f, err := os.Create(out + datasets.TempSuffix)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	fail := func(err error) (int64, error) {
		f.Close()
		os.Remove(out + datasets.TempSuffix)
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	var b datasets.Batch
	var n int64
	for {
		err := r.ReadBatch(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		for i := 0; i < b.Len; i++ {
			res, err := resultText(b.Result[i])
			if err != nil {
				return fail(fmt.Errorf("export: %s: row %d (%s): %w", b.File, n+int64(i), b.FEN[i], err))
			}
			bw.WriteString(b.FEN[i])
			bw.WriteString(res)
		}
		n += int64(b.Len)
		if progress != nil {
			progress(b.Scanned)
		}
	}
	if err := bw.Flush(); err != nil {
		return fail(fmt.Errorf("export: %s: %w", out, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("export: %s: %w", out, err))
	}
	if err := f.Close(); err != nil {
		os.Remove(out + datasets.TempSuffix)
		return 0, fmt.Errorf("export: %s: %w", out, err)
	}
	if err := os.Rename(out+datasets.TempSuffix, out); err != nil {
		os.Remove(out + datasets.TempSuffix)
		return 0, fmt.Errorf("export: %w", err)
	}
	return n, nil
}

func resultText(r float32) (string, error) {
	switch r {
	case 1:
		return " [1.0]\n", nil
	case 0.5:
		return " [0.5]\n", nil
	case 0:
		return " [0.0]\n", nil
	}
	return "", fmt.Errorf("result %v is not 0, 0.5 or 1", r)
}
