//go:build !(goexperiment.simd && amd64)

package nnue

// Without GOEXPERIMENT=simd on amd64 the kernels are the pure-Go ones.

// simdEnabled reports whether the vector kernels are in use.
func simdEnabled() bool { return false }

func addRow(v, w []int16)                   { scalarAddRow(v, w) }
func subRow(v, w []int16)                   { scalarSubRow(v, w) }
func addSub(dst, src, a, s []int16)         { scalarAddSub(dst, src, a, s) }
func addSubSub(dst, src, a, s0, s1 []int16) { scalarAddSubSub(dst, src, a, s0, s1) }
func addAddSubSub(dst, src, a0, a1, s0, s1 []int16) {
	scalarAddAddSubSub(dst, src, a0, a1, s0, s1)
}
func output(us, them, w []int16) int64 { return scalarOutput(us, them, w) }

// setSIMD asks for the vector kernels (on) or the pure-Go ones and reports
// whether the vector kernels are now in use: never, in this build.
func setSIMD(on bool) bool { return false }
