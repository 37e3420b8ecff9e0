package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"chessforge/encoder"
)

// The planes column is dictionary encoded with a fixed dictionary of every
// value SPEC §1 allows: 0, 1, 0.5, and the halfmove steps h/100 for h from
// 1 to 99 (50 being 0.5). The writer maps each value to its index as it
// buffers the row, which checks the values and spares the Parquet encoder
// from hashing 1152 floats per row.

// planesDict holds the dictionary's values, index by index.
var planesDict = func() []float32 {
	d := []float32{0, 1, 0.5}
	for h := 1; h < 100; h++ {
		if h != 50 {
			d = append(d, encoder.HalfmoveValue(h))
		}
	}
	return d
}()

// halfmoveIndex[h] is the dictionary index of encoder.HalfmoveValue(h).
var halfmoveIndex = func() (t [101]uint8) {
	for h := range t {
		v := encoder.HalfmoveValue(h)
		for i, d := range planesDict {
			if d == v {
				t[h] = uint8(i)
			}
		}
	}
	return t
}()

// planesIndices writes the dictionary index of every value of pl into dst.
// Most eight-square ranks hold one value (no piece on them, or a
// whole-plane feature) and are converted whole.
func planesIndices(dst []uint8, pl *encoder.Planes) error {
	dst = dst[:len(pl)]
	for i := 0; i < len(pl); i += 8 {
		p := (*[8]float32)(pl[i : i+8])
		x := math.Float32bits(p[0])
		if (x^math.Float32bits(p[1]))|(x^math.Float32bits(p[2]))|(x^math.Float32bits(p[3]))|(x^math.Float32bits(p[4]))|
			(x^math.Float32bits(p[5]))|(x^math.Float32bits(p[6]))|(x^math.Float32bits(p[7])) == 0 {
			var d uint8
			if err := planeIndex(&d, p[0]); err != nil {
				return fmt.Errorf("planes value %v at plane %d, square %d is not a SPEC §1 value", p[0], i/64, i%64)
			}
			binary.LittleEndian.PutUint64(dst[i:], uint64(d)*0x0101010101010101)
			continue
		}
		for k, v := range p {
			if err := planeIndex(&dst[i+k], v); err != nil {
				return fmt.Errorf("planes value %v at plane %d, square %d is not a SPEC §1 value", v, (i+k)/64, (i+k)%64)
			}
		}
	}
	return nil
}

// planeIndex sets *dst to the dictionary index of v, or fails if v is not
// in the dictionary.
func planeIndex(dst *uint8, v float32) error {
	switch math.Float32bits(v) {
	case 0:
		*dst = 0
	case 0x3f800000: // 1.0
		*dst = 1
	case 0x3f000000: // 0.5
		*dst = 2
	default:
		h := int(v*100 + 0.5)
		if v < 0 || v > 1 || encoder.HalfmoveValue(h) != v {
			return errors.New("not a SPEC §1 value")
		}
		*dst = halfmoveIndex[h]
	}
	return nil
}
