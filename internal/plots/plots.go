// Package plots holds what the project's gonum plots share: tick labels
// as whole numbers.
package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// WholeTicks are gonum's default ticks labelled as whole numbers (its
// labels carry decimals on some ranges, "250.00"). It is a plot.Ticker
// through plot.TickerFunc.
func WholeTicks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(math.Round(t.Value), 'f', 0, 64)
		}
	}
	return ticks
}
