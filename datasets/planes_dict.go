package datasets

import (
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
func planesIndices(dst []uint8, pl *encoder.Planes) error {
	dst = dst[:len(pl)]
	for i, v := range pl {
		switch math.Float32bits(v) {
		case 0:
			dst[i] = 0
		case 0x3f800000: // 1.0
			dst[i] = 1
		case 0x3f000000: // 0.5
			dst[i] = 2
		default:
			h := int(v*100 + 0.5)
			if v < 0 || v > 1 || encoder.HalfmoveValue(h) != v {
				return fmt.Errorf("planes value %v at plane %d, square %d is not a SPEC §1 value", v, i/64, i%64)
			}
			dst[i] = halfmoveIndex[h]
		}
	}
	return nil
}
