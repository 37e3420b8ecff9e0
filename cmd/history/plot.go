package main

import (
	"bytes"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"chessforge/internal/plots"
	"chessforge/internal/record"
)

// The plots' size and colours (those of tuner's plots).
const plotWidth, plotHeight = 8 * vg.Inch, 4.5 * vg.Inch

var (
	blue   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	orange = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	green  = color.RGBA{R: 44, G: 160, B: 44, A: 255}
)

// points are plotted values with their intervals.
type points struct {
	plotter.XYs
	plotter.YErrors
}

func (p *points) add(x, y, ci float64) {
	p.XYs = append(p.XYs, plotter.XY{X: x, Y: y})
	p.YErrors = append(p.YErrors, struct{ Low, High float64 }{ci, ci})
}

// ci is a match's interval half-width, 0 when it gives none.
func ci(m *record.Record) float64 {
	if m.EloCI == nil {
		return 0
	}
	return *m.EloCI
}

// x is a record's date as a plot's x: seconds since 1970.
func x(r *record.Record) float64 { return float64(when(r).Unix()) }

// lineagePlot draws the lineage against time: each kept network's Elo
// against its parent (its gate match, with the 95% interval), the lineage's Elo
// over the hand-crafted evaluation, and every match of a network against
// UCI_Elo 2850, with its interval.
func (h *history) lineagePlot() ([]byte, error) {
	p := plot.New()
	p.Title.Text = "The network lineage's Elo"
	p.X.Label.Text = "date"
	p.Y.Label.Text = "Elo"
	p.Y.Tick.Marker = plot.TickerFunc(plots.WholeTicks)
	p.X.Tick.Marker = plot.TimeTicks{Format: "2006-01-02"}
	leg := plot.NewLegend()

	var gates, stockfish points
	var cum plotter.XYs
	// The lineage is oldest first; the networks not kept are in the page's
	// table, not here.
	for _, n := range h.lineage() {
		if g := h.gate(n); g != nil {
			gates.add(x(n), *g.Elo, ci(g))
		}
		c, _ := h.cumulative(n)
		cum = append(cum, plotter.XY{X: x(n), Y: c})
	}
	for _, m := range h.stockfish2850() {
		stockfish.add(x(m), *m.Elo, ci(m))
	}
	reverse(&stockfish)

	p.Add(plotter.NewGrid())
	if err := addPoints(p, &leg, &gates, blue, draw.CircleGlyph{}, "each kept network against its parent (95% interval)"); err != nil {
		return nil, err
	}
	if len(cum) > 0 {
		l, s, err := plotter.NewLinePoints(cum)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = orange, vg.Points(1.5)
		s.Color, s.Shape = orange, draw.BoxGlyph{}
		p.Add(l, s)
		leg.Add("the lineage over the hand-crafted evaluation (its gates summed)", l, s)
	}
	if err := addPoints(p, &leg, &stockfish, green, draw.TriangleGlyph{}, "a network against Stockfish at UCI_Elo 2850 (95% interval)"); err != nil {
		return nil, err
	}
	frame(p, len(gates.XYs)+len(cum)+len(stockfish.XYs) == 0)
	return svg(p, leg)
}

// reverse puts points newest first into oldest first.
func reverse(p *points) {
	for i, j := 0, len(p.XYs)-1; i < j; i, j = i+1, j-1 {
		p.XYs[i], p.XYs[j] = p.XYs[j], p.XYs[i]
		p.YErrors[i], p.YErrors[j] = p.YErrors[j], p.YErrors[i]
	}
}

// addPoints adds points with error bars, and their legend entry.
func addPoints(p *plot.Plot, leg *plot.Legend, pts *points, c color.Color, shape draw.GlyphDrawer, label string) error {
	if len(pts.XYs) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.Color, s.Shape, s.Radius = c, shape, vg.Points(3)
	e, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	e.Color = c
	p.Add(e, s)
	leg.Add(label, s)
	return nil
}

// frame gives an empty plot a range, and the ranges of the others a
// margin, so that no point sits on the frame: half a day or 5% of the
// dates each side, whichever is more, and 10% of the Elo range.
func frame(p *plot.Plot, empty bool) {
	if empty {
		p.X.Tick.Marker = plot.ConstantTicks(nil)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		p.Title.Text += " (nothing recorded yet)"
		return
	}
	mx := max(43200, (p.X.Max-p.X.Min)*0.05)
	p.X.Min, p.X.Max = p.X.Min-mx, p.X.Max+mx
	my := max(5, (p.Y.Max-p.Y.Min)*0.1)
	p.Y.Min, p.Y.Max = p.Y.Min-my, p.Y.Max+my
}

// trainingPlot draws the embedded network's train and validation loss per
// epoch.
func (h *history) trainingPlot() ([]byte, error) {
	p := plot.New()
	p.X.Label.Text = "epoch"
	p.Y.Label.Text = "loss"
	leg := plot.NewLegend()
	e := h.embedded()
	var train, val plotter.XYs
	if e != nil {
		p.Title.Text = "Training of the embedded network " + e.Network
		for _, ep := range e.Epochs {
			train = append(train, plotter.XY{X: float64(ep.Epoch), Y: *ep.TrainLoss})
			if ep.ValLoss != nil {
				val = append(val, plotter.XY{X: float64(ep.Epoch), Y: *ep.ValLoss})
			}
		}
	} else {
		p.Title.Text = "Training of the embedded network"
	}
	p.Add(plotter.NewGrid())
	for i, c := range []struct {
		xys   plotter.XYs
		color color.Color
		label string
	}{{train, blue, "train"}, {val, orange, "validation"}} {
		if len(c.xys) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(c.xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, s.Color = c.color, vg.Points(1.5), c.color
		if i == 1 {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l, s)
		leg.Add(c.label, l, s)
	}
	if len(train) == 0 {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		p.X.Tick.Marker = plot.ConstantTicks(nil)
		p.Title.Text += " (no epochs recorded)"
	} else if p.X.Max == p.X.Min {
		p.X.Min, p.X.Max = p.X.Min-1, p.X.Max+1
	}
	if lo, hi := p.Y.Min, p.Y.Max; len(train) > 0 && hi > lo {
		m := (hi - lo) * 0.05
		p.Y.Min, p.Y.Max = math.Max(0, lo-m), hi+m
	}
	return svg(p, leg)
}

// svg renders a plot as SVG, with its legend below it, without embedded
// fonts: the same plot gives the same bytes.
func svg(p *plot.Plot, leg plot.Legend) ([]byte, error) {
	c := vgsvg.New(plotWidth, plotHeight)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	pad := vg.Points(8)
	leg.Top, leg.Left = true, true
	legH := leg.Rectangle(dc).Size().Y
	area := draw.Crop(dc, 0, 0, legH+2*pad, 0)
	p.Draw(area)
	data := p.DataCanvas(area)
	leg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: data.Min.X, Y: dc.Min.Y + pad},
		Max: vg.Point{X: dc.Max.X - pad, Y: dc.Min.Y + pad + legH},
	}})
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
