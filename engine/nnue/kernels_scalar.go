package nnue

// The pure-Go kernels. Every build has them; builds without the vector path
// use them alone, and the vector path's tests compare against them.

func scalarAddRow(v, w *[Hidden]int16) {
	for j := range v {
		v[j] += w[j]
	}
}

func scalarSubRow(v, w *[Hidden]int16) {
	for j := range v {
		v[j] -= w[j]
	}
}

func scalarAddSub(dst, src, a, s *[Hidden]int16) {
	for j := range dst {
		dst[j] = src[j] + a[j] - s[j]
	}
}

func scalarAddSubSub(dst, src, a, s0, s1 *[Hidden]int16) {
	for j := range dst {
		dst[j] = src[j] + a[j] - s0[j] - s1[j]
	}
}

func scalarAddAddSubSub(dst, src, a0, a1, s0, s1 *[Hidden]int16) {
	for j := range dst {
		dst[j] = src[j] + a0[j] + a1[j] - s0[j] - s1[j]
	}
}

// scalarOutput returns Σ screlu(us[j])·w[j] + Σ screlu(them[j])·w[Hidden+j]
// with screlu(x) = clamp(x, 0, QA)².
func scalarOutput(us, them *[Hidden]int16, w *[2 * Hidden]int16) int64 {
	var s int64
	for j, x := range us {
		c := int64(min(max(x, 0), QA))
		s += c * c * int64(w[j])
	}
	for j, x := range them {
		c := int64(min(max(x, 0), QA))
		s += c * c * int64(w[Hidden+j])
	}
	return s
}
