package tuner

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"chessforge/engine/eval"
)

// WriteReport writes the report of a fit into dir: errors.csv (the errors
// per iteration), curves.png (the training and validation curves) and
// changes.txt (the largest weight changes, top of them at most).
func WriteReport(dir string, res *Result, w0 []float64, top int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, res.History); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "errors.csv"), b.Bytes()); err != nil {
		return err
	}
	b.Reset()
	if err := WritePlot(&b, res.History); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "curves.png"), b.Bytes()); err != nil {
		return err
	}
	b.Reset()
	WriteChanges(&b, w0, res.W, top)
	return writeAtomic(filepath.Join(dir, "changes.txt"), b.Bytes())
}

// WriteCSV writes one line per iteration: iteration, training and
// validation mean squared errors, seconds since the start.
func WriteCSV(w io.Writer, hist []Iter) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"iteration", "train_mse", "val_mse", "seconds"})
	for _, it := range hist {
		cw.Write([]string{
			strconv.Itoa(it.N),
			strconv.FormatFloat(it.Train, 'g', 10, 64),
			strconv.FormatFloat(it.Val, 'g', 10, 64),
			strconv.FormatFloat(it.Elapsed.Seconds(), 'f', 3, 64),
		})
	}
	cw.Flush()
	return cw.Error()
}

// WritePlot draws the training and validation errors against the
// iteration as a PNG.
func WritePlot(w io.Writer, hist []Iter) error {
	p := plot.New()
	p.Title.Text = "Texel tuning"
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = "mean squared error"
	tr := make(plotter.XYs, len(hist))
	va := make(plotter.XYs, len(hist))
	for i, it := range hist {
		tr[i] = plotter.XY{X: float64(it.N), Y: it.Train}
		va[i] = plotter.XY{X: float64(it.N), Y: it.Val}
	}
	lt, err := plotter.NewLine(tr)
	if err != nil {
		return err
	}
	lv, err := plotter.NewLine(va)
	if err != nil {
		return err
	}
	lt.Color = plotColor(0)
	lv.Color = plotColor(1)
	lv.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	p.Add(lt, lv, plotter.NewGrid())
	p.Legend.Add("train", lt)
	p.Legend.Add("validation", lv)
	p.Legend.Top = true
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// Change is one weight's move.
type Change struct {
	Index         int
	Name          string
	Before, After float64
}

// Changes returns the weights that moved, largest move first (ties by
// index), at most top of them (all when top <= 0). Weights are compared
// rounded, as the generated file stores them.
func Changes(w0, w []float64, top int) []Change {
	var cs []Change
	for j := range w0 {
		a, b := math.Round(w0[j]), math.Round(w[j])
		if a != b {
			cs = append(cs, Change{j, eval.ParamName(j), a, b})
		}
	}
	sort.SliceStable(cs, func(i, k int) bool {
		return math.Abs(cs[i].After-cs[i].Before) > math.Abs(cs[k].After-cs[k].Before)
	})
	if top > 0 && len(cs) > top {
		cs = cs[:top]
	}
	return cs
}

// WriteChanges writes the table of the largest weight changes.
func WriteChanges(w io.Writer, w0, w1 []float64, top int) {
	all := Changes(w0, w1, 0)
	fmt.Fprintf(w, "%d of %d weights changed; the %d largest changes:\n\n", len(all), len(w0), min(len(all), top))
	fmt.Fprintf(w, "%-36s %8s %8s %8s\n", "weight", "before", "after", "change")
	for _, c := range Changes(w0, w1, top) {
		fmt.Fprintf(w, "%-36s %8.0f %8.0f %+8.0f\n", c.Name, c.Before, c.After, c.After-c.Before)
	}
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// plotColor returns the i-th line colour: blue, then orange.
func plotColor(i int) color.Color {
	if i == 0 {
		return color.RGBA{R: 31, G: 119, B: 180, A: 255}
	}
	return color.RGBA{R: 255, G: 127, B: 14, A: 255}
}
