package selfplay

import (
	"errors"
	"io"

	"chessforge/datasets"
)

// copyRows writes every row of the dataset file src to w.
func copyRows(w *datasets.Writer, src string) (int64, error) {
	r, err := datasets.Open(src, nil)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var row datasets.Row
	var n int64
	for {
		err := r.Read(&row)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if err := w.Write(&row); err != nil {
			return n, err
		}
		n++
	}
}
