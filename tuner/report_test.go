package tuner

import (
	"bytes"
	"image/png"
	"testing"
)

// TestWritePlotDrawsAPNG draws the curves of a short fit: a PNG of 8×4.5
// inches at vgimg's 96 dpi; a best iteration outside the history is an
// error, not a panic.
func TestWritePlotDrawsAPNG(t *testing.T) {
	res := &Result{Best: 2}
	for i, v := range []float64{0.150, 0.140, 0.135, 0.137, 0.141} {
		res.History = append(res.History, Iter{N: i, Train: 0.12 - 0.01*float64(i), Val: v})
	}
	sum := &Summary{Positions: 1234, K: 1.1, Lambda: 0, Best: 2, ValBefore: 0.150, ValAfter: 0.1351}
	var b bytes.Buffer
	if err := WritePlot(&b, res, sum); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != 768 || r.Dy() != 432 {
		t.Errorf("plot of %v pixels, want 768×432", r)
	}
	res.Best = 5
	if err := WritePlot(&b, res, sum); err == nil {
		t.Error("a best iteration past the history is not an error")
	}
}
