//go:build goexperiment.simd && amd64

package nnue

import (
	"simd/archsimd"
	"unsafe"
)

// The AVX2 kernels (GOEXPERIMENT=simd on amd64): 16 int16 lanes at a time,
// and the output layer's products summed in pairs by DotProductPairs
// (vpmaddwd). The processor is checked once; without AVX2 the pure-Go
// kernels run.

// useSIMD says whether the vector kernels run; tests switch it off to
// compare both paths.
var useSIMD = archsimd.X86.AVX2()

// simdEnabled reports whether the vector kernels are in use.
func simdEnabled() bool { return useSIMD }

const lanes = 16

// The rows are a multiple of lanes long (ValidHidden). Each kernel first
// checks that its rows are as long as its first, a multiple of lanes
// (badRows otherwise); within that length, load and store address the lanes
// at i without a bounds check per vector (with one, as the width is no
// longer a constant, the network's search spent 7% more instructions).

// badRows panics: a kernel's rows are not all as long as its first, or
// that length is not a multiple of lanes, so at would leave them.
func badRows() { panic("nnue: rows of different lengths, or not a multiple of 16 long") }

// at returns the lanes of s from index i; i+lanes <= len(s).
func at(s []int16, i int) *[lanes]int16 {
	return (*[lanes]int16)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), 2*i))
}

func load(s []int16, i int) archsimd.Int16x16 { return archsimd.LoadInt16x16(at(s, i)) }

func store(v archsimd.Int16x16, s []int16, i int) { v.Store(at(s, i)) }

func addRow(v, w []int16) {
	if !useSIMD {
		scalarAddRow(v, w)
		return
	}
	if len(w) != len(v) || len(v)%lanes != 0 {
		badRows()
	}
	for i := 0; i+lanes <= len(v); i += lanes {
		store(load(v, i).Add(load(w, i)), v, i)
	}
}

func subRow(v, w []int16) {
	if !useSIMD {
		scalarSubRow(v, w)
		return
	}
	if len(w) != len(v) || len(v)%lanes != 0 {
		badRows()
	}
	for i := 0; i+lanes <= len(v); i += lanes {
		store(load(v, i).Sub(load(w, i)), v, i)
	}
}

func addSub(dst, src, a, s []int16) {
	if !useSIMD {
		scalarAddSub(dst, src, a, s)
		return
	}
	if n := len(dst); len(src) != n || len(a) != n || len(s) != n || n%lanes != 0 {
		badRows()
	}
	for i := 0; i+lanes <= len(dst); i += lanes {
		store(load(src, i).Add(load(a, i)).Sub(load(s, i)), dst, i)
	}
}

func addSubSub(dst, src, a, s0, s1 []int16) {
	if !useSIMD {
		scalarAddSubSub(dst, src, a, s0, s1)
		return
	}
	if n := len(dst); len(src) != n || len(a) != n || len(s0) != n || len(s1) != n || n%lanes != 0 {
		badRows()
	}
	for i := 0; i+lanes <= len(dst); i += lanes {
		store(load(src, i).Add(load(a, i)).Sub(load(s0, i)).Sub(load(s1, i)), dst, i)
	}
}

func addAddSubSub(dst, src, a0, a1, s0, s1 []int16) {
	if !useSIMD {
		scalarAddAddSubSub(dst, src, a0, a1, s0, s1)
		return
	}
	if n := len(dst); len(src) != n || len(a0) != n || len(a1) != n || len(s0) != n || len(s1) != n || n%lanes != 0 {
		badRows()
	}
	for i := 0; i+lanes <= len(dst); i += lanes {
		v := load(src, i).Add(load(a0, i)).Add(load(a1, i)).Sub(load(s0, i)).Sub(load(s1, i))
		store(v, dst, i)
	}
}

// output is scalarOutput with vectors. With c = clamp(x, 0, QA) and |w| <=
// 127 (Parse checks it), c·w fits int16; DotProductPairs then sums
// (c·w)·c in pairs into int32 lanes, each lane taking h/4 products of at
// most 255²·127 for accumulators h wide: below 2³¹ up to MaxHidden (256
// products), so the sum is exact, finished in int64.
func output(us, them, w []int16) int64 {
	if !useSIMD {
		return scalarOutput(us, them, w)
	}
	h := len(us)
	if len(them) != h || len(w) != 2*h || h%lanes != 0 {
		badRows()
	}
	wu, wt := w[:h], w[h:]
	zero := archsimd.BroadcastInt16x16(0)
	qa := archsimd.BroadcastInt16x16(QA)
	var sum archsimd.Int32x8
	for i := 0; i+lanes <= h; i += lanes {
		c := load(us, i).Max(zero).Min(qa)
		sum = sum.Add(c.Mul(load(wu, i)).DotProductPairs(c))
	}
	for i := 0; i+lanes <= h; i += lanes {
		c := load(them, i).Max(zero).Min(qa)
		sum = sum.Add(c.Mul(load(wt, i)).DotProductPairs(c))
	}
	var parts [8]int32
	sum.Store(&parts)
	var s int64
	for _, p := range parts {
		s += int64(p)
	}
	return s
}

// setSIMD asks for the vector kernels (on) or the pure-Go ones and reports
// whether the vector kernels are now in use: only where the processor has
// AVX2.
func setSIMD(on bool) bool {
	useSIMD = on && archsimd.X86.AVX2()
	return useSIMD
}
