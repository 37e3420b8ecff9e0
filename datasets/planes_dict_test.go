package datasets

import (
	"strings"
	"testing"

	"chessforge/encoder"
)

// TestPlanesIndicesMatchValueByValue checks planesIndices against the
// dictionary value by value, and that a value outside it is an error naming
// its plane and square.
func TestPlanesIndicesMatchValueByValue(t *testing.T) {
	dst := make([]uint8, encoder.InputSize)
	for n, r := range oddPlanesRows(t, 200) {
		if err := chessDict.planesIndices(dst, &r.Planes, encoder.InputSize); err != nil {
			t.Fatalf("row %d: %v", n, err)
		}
		for i, v := range r.Planes {
			if chessDict.values[dst[i]] != v {
				t.Fatalf("row %d value %d: %v has index %d (%v)", n, i, v, dst[i], chessDict.values[dst[i]])
			}
		}
	}
	bad := float32(0.333)
	for _, tc := range []struct {
		name    string
		squares []int // set to bad
		want    string
	}{
		{"a whole rank", []int{1088, 1089, 1090, 1091, 1092, 1093, 1094, 1095}, "plane 17, square 0"},
		{"one square", []int{70}, "plane 1, square 6"},
		{"the last square", []int{1151}, "plane 17, square 63"},
	} {
		var pl encoder.Planes
		for _, sq := range tc.squares {
			pl[sq] = bad
		}
		err := chessDict.planesIndices(dst, &pl, encoder.InputSize)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
}
