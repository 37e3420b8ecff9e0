package nnue

// The pure-Go kernels. Every build has them; builds without the vector path
// use them alone, and the vector path's tests compare against them. Every
// row passed with dst (or v) is as long as it: the network's width.

func scalarAddRow(v, w []int16) {
	w = w[:len(v)]
	for j := range v {
		v[j] += w[j]
	}
}

func scalarSubRow(v, w []int16) {
	w = w[:len(v)]
	for j := range v {
		v[j] -= w[j]
	}
}

func scalarAddSub(dst, src, a, s []int16) {
	src, a, s = src[:len(dst)], a[:len(dst)], s[:len(dst)]
	for j := range dst {
		dst[j] = src[j] + a[j] - s[j]
	}
}

func scalarAddSubSub(dst, src, a, s0, s1 []int16) {
	src, a, s0, s1 = src[:len(dst)], a[:len(dst)], s0[:len(dst)], s1[:len(dst)]
	for j := range dst {
		dst[j] = src[j] + a[j] - s0[j] - s1[j]
	}
}

func scalarAddAddSubSub(dst, src, a0, a1, s0, s1 []int16) {
	src, a0, a1, s0, s1 = src[:len(dst)], a0[:len(dst)], a1[:len(dst)], s0[:len(dst)], s1[:len(dst)]
	for j := range dst {
		dst[j] = src[j] + a0[j] + a1[j] - s0[j] - s1[j]
	}
}

// scalarOutput returns Σ screlu(us[j])·w[j] + Σ screlu(them[j])·w[h+j]
// with screlu(x) = clamp(x, 0, QA)² and h = len(us) = len(them), len(w) =
// 2h.
func scalarOutput(us, them, w []int16) int64 {
	h := len(us)
	wu, wt := w[:h], w[h:2*h]
	them = them[:h]
	var s int64
	for j, x := range us {
		c := int64(min(max(x, 0), QA))
		s += c * c * int64(wu[j])
	}
	for j, x := range them {
		c := int64(min(max(x, 0), QA))
		s += c * c * int64(wt[j])
	}
	return s
}
