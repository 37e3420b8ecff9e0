package tuner

import (
	"math"
	"runtime"
	"sync"
)

// Objective is the mean squared error between a set's targets and the
// sigmoid of its evaluations, computed over partitions of the positions in
// parallel. Each partition accumulates into its own gradient buffer; the
// buffers are summed in a fixed order, so results do not depend on timing.
type Objective struct {
	Set *Set
	K   float64

	parts [][2]int    // position ranges, one per goroutine
	grads [][]float64 // per-partition gradient buffers
	sums  []float64
}

// NewObjective prepares the error of set s at sigmoid scale k, split across
// threads goroutines (0 means GOMAXPROCS).
func NewObjective(s *Set, k float64, threads int) *Objective {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if threads > s.Len() {
		threads = max(1, s.Len())
	}
	o := &Objective{Set: s, K: k, sums: make([]float64, threads)}
	n := s.Len()
	for t := 0; t < threads; t++ {
		o.parts = append(o.parts, [2]int{t * n / threads, (t + 1) * n / threads})
		o.grads = append(o.grads, make([]float64, s.shape.Params()))
	}
	return o
}

// Value returns the mean squared error under weights w.
func (o *Objective) Value(w []float64) float64 { return o.run(w, nil) }

// ValueGrad returns the mean squared error under w and writes its gradient
// with respect to w (length Shape.Params of the set) into grad.
func (o *Objective) ValueGrad(w, grad []float64) float64 { return o.run(w, grad) }

func (o *Objective) run(w, grad []float64) float64 {
	n := o.Set.Len()
	if n == 0 {
		clear(grad)
		return 0
	}
	var wg sync.WaitGroup
	for t := range o.parts {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			var g []float64
			if grad != nil {
				g = o.grads[t]
				clear(g)
			}
			o.sums[t] = o.partition(o.parts[t][0], o.parts[t][1], w, g, 2/float64(n))
		}(t)
	}
	wg.Wait()
	sum := 0.0
	for t := range o.parts {
		sum += o.sums[t]
	}
	if grad != nil {
		clear(grad)
		for t := range o.parts {
			for j, g := range o.grads[t] {
				grad[j] += g
			}
		}
	}
	return sum / float64(n)
}

// partition sums the squared errors of positions [lo, hi) and, when grad is
// not nil, adds the gradient of scale/2 times that sum to it (scale = 2/n
// gives the gradient of the mean). It allocates nothing.
func (o *Objective) partition(lo, hi int, w, grad []float64, scale float64) float64 {
	s := o.Set
	kc := o.K * ln10over400
	var p pass
	sum := 0.0
	for i := lo; i < hi; i++ {
		h := &s.hdr[i]
		v := s.eval(h, w, &p)
		sg := 1 / (1 + math.Exp(-kc*v))
		r := float64(h.target) - sg
		sum += r * r
		if grad != nil && !p.clamped {
			// d(r²)/dv = −2r·σ'(v), σ' = kc·σ(1−σ); scale carries 2/n.
			s.addGrad(h, &p, -scale*r*kc*sg*(1-sg), grad)
		}
	}
	return sum
}

// Evals writes every position's evaluation under w into v (length Len),
// in parallel.
func (o *Objective) Evals(w []float64, v []float64) {
	var wg sync.WaitGroup
	for _, pr := range o.parts {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			var p pass
			for i := lo; i < hi; i++ {
				v[i] = o.Set.eval(&o.Set.hdr[i], w, &p)
			}
		}(pr[0], pr[1])
	}
	wg.Wait()
}

// FitK returns the sigmoid scale k in [lo, hi] that minimises the mean
// squared error of set s under weights w, by golden-section search on the
// evaluations computed once, and the error there.
func FitK(s *Set, w []float64, lo, hi float64, threads int) (k, mse float64) {
	o := NewObjective(s, 1, threads)
	v := make([]float64, s.Len())
	o.Evals(w, v)
	errAt := func(k float64) float64 {
		kc := k * ln10over400
		sums := make([]float64, len(o.parts))
		var wg sync.WaitGroup
		for t, pr := range o.parts {
			wg.Add(1)
			go func(t, lo, hi int) {
				defer wg.Done()
				sum := 0.0
				for i := lo; i < hi; i++ {
					r := float64(s.hdr[i].target) - 1/(1+math.Exp(-kc*v[i]))
					sum += r * r
				}
				sums[t] = sum
			}(t, pr[0], pr[1])
		}
		wg.Wait()
		total := 0.0
		for _, x := range sums {
			total += x
		}
		return total / float64(max(1, s.Len()))
	}
	return GoldenSection(errAt, lo, hi, 1e-7)
}

// GoldenSection minimises a unimodal f on [a, b] to within tol and returns
// the argument and the value there.
func GoldenSection(f func(float64) float64, a, b, tol float64) (x, fx float64) {
	const invPhi = 0.6180339887498949 // 1/φ
	c := b - invPhi*(b-a)
	d := a + invPhi*(b-a)
	fc, fd := f(c), f(d)
	for b-a > tol {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - invPhi*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + invPhi*(b-a)
			fd = f(d)
		}
	}
	if fc < fd {
		return c, fc
	}
	return d, fd
}
