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
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"chessforge/internal/atomicfile"
	"chessforge/internal/plots"
)

// WriteReport writes the report of a fit into dir: errors.csv (the errors
// per iteration), curves.png (the training and validation curves, see
// WritePlot) and changes.txt (the largest weight changes, top of them at
// most, named by model m). sum is the run's summary, which the plot's
// title quotes.
func WriteReport(dir string, m Model, res *Result, w0 []float64, top int, sum *Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, res.History); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "errors.csv"), b.Bytes(), 0o644); err != nil {
		return err
	}
	b.Reset()
	if err := WritePlot(&b, res, sum); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "curves.png"), b.Bytes(), 0o644); err != nil {
		return err
	}
	b.Reset()
	WriteChanges(&b, m, w0, res.W, top)
	return atomicfile.WriteFile(filepath.Join(dir, "changes.txt"), b.Bytes(), 0o644)
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
// iteration as a PNG: the title gives the positions, λ and K and the
// validation error before and after (sum's), a ring and a vertical line
// mark the iteration whose weights were kept (res.Best), and the legend
// stands to the right of the plot area, clear of the curves.
func WritePlot(w io.Writer, res *Result, sum *Summary) error {
	hist := res.History
	if len(hist) == 0 || res.Best < 0 || res.Best >= len(hist) {
		return fmt.Errorf("tuner: plot of %d iterations with the best at %d", len(hist), res.Best)
	}
	p := plot.New()
	verdict := ""
	if !sum.Better() {
		verdict = ", not below its start"
	}
	p.Title.Text = fmt.Sprintf("Texel tuning: %d positions, λ = %g, K = %.4f\nvalidation MSE %.6f -> %.6f%s (weights of iteration %d)",
		sum.Positions, sum.Lambda, sum.K, sum.ValBefore, sum.ValAfter, verdict, res.Best)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = "iteration"
	p.X.Tick.Marker = plot.TickerFunc(plots.WholeTicks)
	p.Y.Label.Text = "mean squared error"
	tr := make(plotter.XYs, len(hist))
	va := make(plotter.XYs, len(hist))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, it := range hist {
		tr[i] = plotter.XY{X: float64(it.N), Y: it.Train}
		va[i] = plotter.XY{X: float64(it.N), Y: it.Val}
		lo, hi = min(lo, it.Train, it.Val), max(hi, it.Train, it.Val)
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
	lt.Width, lv.Width = vg.Points(1.5), vg.Points(1.5)

	// A margin above and below, so that no curve runs along the frame.
	if m := (hi - lo) * 0.05; m > 0 {
		lo, hi = lo-m, hi+m
		p.Y.Min, p.Y.Max = lo, hi
	}

	// The best iteration: a ring on the validation curve and a dotted
	// vertical line from the bottom of the plot to its top.
	best := hist[res.Best]
	bx := float64(best.N)
	vline, err := plotter.NewLine(plotter.XYs{{X: bx, Y: lo}, {X: bx, Y: hi}})
	if err != nil {
		return err
	}
	vline.Color = color.Gray{Y: 90}
	vline.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
	ring, err := plotter.NewScatter(plotter.XYs{{X: bx, Y: best.Val}})
	if err != nil {
		return err
	}
	ring.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
	p.Add(plotter.NewGrid(), lt, lv, vline, ring)

	leg := plot.NewLegend()
	leg.Add("train", lt)
	leg.Add("validation", lv)
	leg.Add(fmt.Sprintf("best (iteration %d)", best.N), vline, ring)
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(6)

	const width, height = 8 * vg.Inch, 4.5 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	pad := vg.Points(10)
	legW := leg.Rectangle(dc).Size().X
	plotArea := draw.Crop(dc, 0, -(legW + 2*pad), 0, 0)
	p.Draw(plotArea)
	data := p.DataCanvas(plotArea)
	leg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: plotArea.Max.X + pad, Y: data.Min.Y},
		Max: vg.Point{X: dc.Max.X - pad, Y: data.Max.Y},
	}})
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// Change is one weight's move.
type Change struct {
	Index         int
	Name          string
	Before, After float64
}

// Changes returns the weights of model m that moved, largest move first
// (ties by index), at most top of them (all when top <= 0). Weights are
// compared rounded, as the generated file stores them.
func Changes(m Model, w0, w []float64, top int) []Change {
	var cs []Change
	for j := range w0 {
		a, b := math.Round(w0[j]), math.Round(w[j])
		if a != b {
			cs = append(cs, Change{j, m.ParamName(j), a, b})
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

// WriteChanges writes the table of the largest weight changes of model m.
func WriteChanges(w io.Writer, m Model, w0, w1 []float64, top int) {
	all := Changes(m, w0, w1, 0)
	fmt.Fprintf(w, "%d of %d weights changed; the %d largest changes:\n\n", len(all), len(w0), min(len(all), top))
	fmt.Fprintf(w, "%-36s %8s %8s %8s\n", "weight", "before", "after", "change")
	for _, c := range Changes(m, w0, w1, top) {
		fmt.Fprintf(w, "%-36s %8.0f %8.0f %+8.0f\n", c.Name, c.Before, c.After, c.After-c.Before)
	}
}

// plotColor returns the i-th line colour: blue, then orange.
func plotColor(i int) color.Color {
	if i == 0 {
		return color.RGBA{R: 31, G: 119, B: 180, A: 255}
	}
	return color.RGBA{R: 255, G: 127, B: 14, A: 255}
}
