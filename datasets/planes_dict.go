package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"chessforge/encoder"
)

// The planes column is dictionary encoded with a fixed dictionary of every
// value the file's layout allows: 0, 1, 0.5, and the clock plane's steps
// n/D for n from 1 to D-1 (D the layout's ClockDivisor: 100 for chess's
// halfmove clock, 80 for draughts' quiet plies; D/2 being 0.5). The writer
// maps each value to its index as it buffers the row, which checks the
// values and spares the Parquet encoder from hashing the row's floats.

// planesDict is a layout's dictionary.
type planesDict struct {
	layout *encoder.Layout
	values []float32 // the dictionary's values, index by index
	clock  []uint8   // clock[n] is the index of layout.ClockValue(n), n = 0…D
}

// newPlanesDict builds layout l's dictionary.
func newPlanesDict(l *encoder.Layout) *planesDict {
	d := &planesDict{layout: l, values: []float32{0, 1, 0.5}}
	for n := 1; n < l.ClockDivisor; n++ {
		if 2*n != l.ClockDivisor {
			d.values = append(d.values, l.ClockValue(n))
		}
	}
	d.clock = make([]uint8, l.ClockDivisor+1)
	for n := range d.clock {
		for i, v := range d.values {
			if v == l.ClockValue(n) {
				d.clock[n] = uint8(i)
			}
		}
	}
	return d
}

// planesDicts holds every layout's dictionary, built once.
var planesDicts = func() map[*encoder.Layout]*planesDict {
	m := map[*encoder.Layout]*planesDict{}
	for _, l := range encoder.Layouts() {
		m[l] = newPlanesDict(l)
	}
	return m
}()

// planesIndices writes the dictionary index of each of the first n values
// of pl (one row: the layout's InputSize values, a multiple of 8) into dst.
// Most eight-square ranks hold one value (no piece on them, or a
// whole-plane feature) and are converted whole.
func (d *planesDict) planesIndices(dst []uint8, pl *encoder.Planes, n int) error {
	if len(dst) < n || n%8 != 0 {
		return fmt.Errorf("planes: %d values for %d indices, want whole ranks of 8", n, len(dst))
	}
	dst = dst[:n]
	for i := 0; i < n && i <= len(pl)-8; i += 8 {
		p := (*[8]float32)(pl[i : i+8])
		x := math.Float32bits(p[0])
		if (x^math.Float32bits(p[1]))|(x^math.Float32bits(p[2]))|(x^math.Float32bits(p[3]))|(x^math.Float32bits(p[4]))|
			(x^math.Float32bits(p[5]))|(x^math.Float32bits(p[6]))|(x^math.Float32bits(p[7])) == 0 {
			var k uint8 // 0 for 0.0, the most common value
			if x != 0 {
				if err := d.index(&k, p[0]); err != nil {
					return d.badValue(p[0], i)
				}
			}
			binary.LittleEndian.PutUint64(dst[i:], uint64(k)*0x0101010101010101)
			continue
		}
		for k, v := range p {
			if err := d.index(&dst[i+k], v); err != nil {
				return d.badValue(v, i+k)
			}
		}
	}
	return nil
}

// badValue is the error for value v at index i of a row.
func (d *planesDict) badValue(v float32, i int) error {
	return fmt.Errorf("planes value %v at plane %d, square %d is not a value of planes %s", v, i/encoder.PlaneSize, i%encoder.PlaneSize, d.layout.Planes)
}

// index sets *dst to the dictionary index of v, or fails if v is not in
// the dictionary.
func (d *planesDict) index(dst *uint8, v float32) error {
	switch math.Float32bits(v) {
	case 0:
		*dst = 0
	case 0x3f800000: // 1.0
		*dst = 1
	case 0x3f000000: // 0.5
		*dst = 2
	default:
		n := int(v*float32(d.layout.ClockDivisor) + 0.5)
		if v < 0 || v > 1 || d.layout.ClockValue(n) != v {
			return errors.New("not a value of the layout")
		}
		*dst = d.clock[n]
	}
	return nil
}
