//go:build goexperiment.simd && amd64

package nnue

import "simd/archsimd"

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

func load(s *[Hidden]int16, i int) archsimd.Int16x16 {
	return archsimd.LoadInt16x16((*[lanes]int16)(s[i : i+lanes]))
}

func store(v archsimd.Int16x16, s *[Hidden]int16, i int) {
	v.Store((*[lanes]int16)(s[i : i+lanes]))
}

func addRow(v, w *[Hidden]int16) {
	if !useSIMD {
		scalarAddRow(v, w)
		return
	}
	for i := 0; i < Hidden; i += lanes {
		store(load(v, i).Add(load(w, i)), v, i)
	}
}

func subRow(v, w *[Hidden]int16) {
	if !useSIMD {
		scalarSubRow(v, w)
		return
	}
	for i := 0; i < Hidden; i += lanes {
		store(load(v, i).Sub(load(w, i)), v, i)
	}
}

func addSub(dst, src, a, s *[Hidden]int16) {
	if !useSIMD {
		scalarAddSub(dst, src, a, s)
		return
	}
	for i := 0; i < Hidden; i += lanes {
		store(load(src, i).Add(load(a, i)).Sub(load(s, i)), dst, i)
	}
}

func addSubSub(dst, src, a, s0, s1 *[Hidden]int16) {
	if !useSIMD {
		scalarAddSubSub(dst, src, a, s0, s1)
		return
	}
	for i := 0; i < Hidden; i += lanes {
		store(load(src, i).Add(load(a, i)).Sub(load(s0, i)).Sub(load(s1, i)), dst, i)
	}
}

func addAddSubSub(dst, src, a0, a1, s0, s1 *[Hidden]int16) {
	if !useSIMD {
		scalarAddAddSubSub(dst, src, a0, a1, s0, s1)
		return
	}
	for i := 0; i < Hidden; i += lanes {
		v := load(src, i).Add(load(a0, i)).Add(load(a1, i)).Sub(load(s0, i)).Sub(load(s1, i))
		store(v, dst, i)
	}
}

// output is scalarOutput with vectors. With c = clamp(x, 0, QA) and |w| <=
// 127 (Parse checks it), c·w fits int16; DotProductPairs then sums
// (c·w)·c in pairs into int32 lanes, each lane taking 64 products of at most
// 255²·127, below 2³¹: the sum is exact, finished in int64.
func output(us, them *[Hidden]int16, w *[2 * Hidden]int16) int64 {
	if !useSIMD {
		return scalarOutput(us, them, w)
	}
	zero := archsimd.BroadcastInt16x16(0)
	qa := archsimd.BroadcastInt16x16(QA)
	var sum archsimd.Int32x8
	for i := 0; i < Hidden; i += lanes {
		c := load(us, i).Max(zero).Min(qa)
		wv := archsimd.LoadInt16x16((*[lanes]int16)(w[i : i+lanes]))
		sum = sum.Add(c.Mul(wv).DotProductPairs(c))
	}
	for i := 0; i < Hidden; i += lanes {
		c := load(them, i).Max(zero).Min(qa)
		wv := archsimd.LoadInt16x16((*[lanes]int16)(w[Hidden+i : Hidden+i+lanes]))
		sum = sum.Add(c.Mul(wv).DotProductPairs(c))
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
