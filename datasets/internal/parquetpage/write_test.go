package parquetpage

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"chessforge/encoder"
)

// decodeHybrid7 decodes n values of Parquet's RLE/bit-packed hybrid with
// bit width 7, as the format's specification describes it, and returns
// them with the bytes it did not use.
func decodeHybrid7(t *testing.T, src []byte, n int) ([]uint8, []byte) {
	t.Helper()
	var out []uint8
	for len(out) < n {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			t.Fatalf("bad run header after %d values", len(out))
		}
		src = src[k:]
		if h&1 == 0 { // a run: count, then the value in one byte
			if len(src) < 1 {
				t.Fatalf("run of %d without its value", h>>1)
			}
			for range h >> 1 {
				out = append(out, src[0])
			}
			src = src[1:]
			continue
		}
		groups := int(h >> 1) // bit-packed: groups of 8 values in 7 bytes
		if len(src) < 7*groups {
			t.Fatalf("%d bit-packed groups in %d bytes", groups, len(src))
		}
		for i := range 8 * groups {
			var v uint8
			for b := range 7 {
				bit := i*7 + b
				v |= (src[bit/8] >> (bit % 8) & 1) << b
			}
			out = append(out, v)
		}
		src = src[7*groups:]
	}
	if len(out) != n {
		t.Fatalf("decoded %d values, want %d", len(out), n)
	}
	return out, src
}

func TestAppendIndicesDecodesToItsInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	runs := func(n, maxRun int) []uint8 {
		var s []uint8
		for len(s) < n {
			v, r := uint8(rng.IntN(maxDict)), 1+rng.IntN(maxRun)
			for range r {
				s = append(s, v)
			}
		}
		return s[:n]
	}
	random := make([]uint8, 8*200) // a bit-packed stretch longer than 63 groups
	for i := range random {
		random[i] = uint8(rng.IntN(maxDict))
	}
	for _, tc := range []struct {
		name string
		idx  []uint8
	}{
		{"zeros", make([]uint8, encoder.InputSize)},
		{"largest index", slices.Repeat([]uint8{maxDict - 1}, 64)},
		{"one group", []uint8{0, 1, 2, 3, 100, 99, 98, 97}},
		{"random", random},
		{"short runs", runs(4096, 5)},
		{"long runs", runs(4096, 300)},
		{"run then group", append(make([]uint8, 24), 1, 0, 0, 0, 0, 0, 0, 0)},
		{"group then run", append([]uint8{5, 5, 5, 5, 5, 5, 5, 6}, slices.Repeat([]uint8{7}, 1000)...)},
	} {
		enc := appendIndices([]byte{0xaa}, tc.idx)
		if enc[0] != 0xaa {
			t.Fatalf("%s: overwrote what dst held", tc.name)
		}
		got, rest := decodeHybrid7(t, enc[1:], len(tc.idx))
		if !slices.Equal(got, tc.idx) || len(rest) != 0 {
			t.Errorf("%s: decodes to %d values differing from the input, %d bytes left", tc.name, len(got), len(rest))
		}
	}
}

func TestRowRepLevelsDecode(t *testing.T) {
	for _, l := range encoder.Layouts() {
		t.Run(l.Game, func(t *testing.T) { testRowRepLevelsDecode(t, l.InputSize()) })
	}
}

func testRowRepLevelsDecode(t *testing.T, size int) {
	// Bit width 1 decodes like width 7 with only the lowest bit kept; decode by hand.
	src := rowRepLevels(size)
	var out []uint8
	for len(src) > 0 {
		h, k := binary.Uvarint(src)
		src = src[k:]
		if h&1 == 0 {
			out = append(out, slices.Repeat([]uint8{src[0]}, int(h>>1))...)
			src = src[1:]
			continue
		}
		for i := range 8 * int(h>>1) {
			out = append(out, src[i/8]>>(i%8)&1)
		}
		src = src[h>>1:]
	}
	want := slices.Repeat([]uint8{1}, size)
	want[0] = 0
	if !slices.Equal(out, want) {
		t.Errorf("one row's repetition levels decode to %d values, want 0 then %d ones", len(out), size-1)
	}
}
