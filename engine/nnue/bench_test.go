package nnue

import (
	"testing"

	"chessforge/engine/board"
)

// benchPaths runs f once per kernel path, as paths does for tests.
func benchPaths(b *testing.B, f func(b *testing.B)) {
	defer setSIMD(true)
	setSIMD(false)
	b.Run("scalar", f)
	if setSIMD(true) {
		b.Run("simd", f)
	}
}

// BenchmarkUpdate measures one quiet move's accumulator update, both
// perspectives.
func BenchmarkUpdate(b *testing.B) {
	n := Random(1, DefaultHidden, 8)
	p := board.NewPosition()
	m, _ := p.ParseUCIMove("g1f3")
	d := DeltaOf(p, m)
	src, dst := n.NewAccumulator(), n.NewAccumulator()
	n.Refresh(src, p)
	after := p.Clone()
	after.MakeMove(m)
	benchPaths(b, func(b *testing.B) {
		for b.Loop() {
			n.Apply(dst, src, &d, after)
		}
	})
}

// BenchmarkOutput measures the output layer: SCReLU and the dot product.
func BenchmarkOutput(b *testing.B) {
	n := Random(1, DefaultHidden, 8)
	a := n.NewAccumulator()
	n.Refresh(a, board.NewPosition())
	benchPaths(b, func(b *testing.B) {
		for b.Loop() {
			n.Output(a, board.White, 32)
		}
	})
}
