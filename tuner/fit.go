package tuner

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/optimize"
)

// Methods the fitter offers.
const (
	LBFGS = "lbfgs" // gonum's limited-memory BFGS, full batch (the default)
	Adam  = "adam"  // Adam, full batch
)

// Config says what to fit and how.
type Config struct {
	K        float64 // sigmoid scale, held fixed (see FitK)
	Mask     []bool  // weights that may change (Model.Select); nil means all
	L2       float64 // penalty L2·Σ((w−w0)/100)² towards the starting weights
	Method   string  // LBFGS or Adam
	MaxIter  int     // iterations at most (0: 1000)
	Patience int     // stop after this many iterations without a better validation error (0: 20)
	MinGain  float64 // an improvement smaller than this does not count (0: 1e-9)
	LR       float64 // Adam's step size in centipawns (0: 1)
	Threads  int     // goroutines for the error and gradient (0: GOMAXPROCS)
	// Progress, when set, is called after every iteration.
	Progress func(Iter)
}

// Iter is one iteration's record.
type Iter struct {
	N          int           // iteration, 0 for the starting weights
	Train, Val float64       // mean squared errors (without the L2 term)
	Elapsed    time.Duration // since the fit began
}

// Result is the outcome of a fit.
type Result struct {
	W       []float64 // the weights with the best validation error
	Best    int       // the iteration they come from
	History []Iter
	Stop    string // why the fit stopped
}

// Fit minimises the training error over the free weights from w0, watching
// the validation error (train's when val is empty) after every iteration,
// and returns the weights with the best validation error.
func Fit(train, val *Set, w0 []float64, cfg Config) (*Result, error) {
	if n := train.Shape().Params(); len(w0) != n {
		return nil, fmt.Errorf("tuner: %d weights, want %d", len(w0), n)
	}
	if train.Len() == 0 {
		return nil, errors.New("tuner: no training positions")
	}
	if val.Len() > 0 && val.Shape() != train.Shape() {
		return nil, errors.New("tuner: the training and validation positions are of different evaluations")
	}
	if cfg.MaxIter <= 0 {
		cfg.MaxIter = 1000
	}
	if cfg.Patience <= 0 {
		cfg.Patience = 20
	}
	if cfg.MinGain <= 0 {
		cfg.MinGain = 1e-9
	}
	if cfg.LR <= 0 {
		cfg.LR = 1
	}
	var free []int
	for j := range w0 {
		if cfg.Mask == nil || cfg.Mask[j] {
			free = append(free, j)
		}
	}
	if len(free) == 0 {
		return nil, errors.New("tuner: no weights selected")
	}
	f := &fitter{
		cfg: cfg, free: free, w0: w0,
		train: NewObjective(train, cfg.K, cfg.Threads),
		w:     append([]float64(nil), w0...),
		g:     make([]float64, len(w0)),
		start: time.Now(),
		res:   &Result{W: append([]float64(nil), w0...)},
	}
	if val.Len() > 0 {
		f.val = NewObjective(val, cfg.K, cfg.Threads)
	} else {
		f.val = f.train
	}
	x := make([]float64, len(free))
	for i, j := range free {
		x[i] = w0[j]
	}
	f.observe(x)
	var err error
	switch cfg.Method {
	case LBFGS, "":
		err = f.lbfgs(x)
	case Adam:
		f.adam(x)
	default:
		return nil, fmt.Errorf("tuner: unknown method %q (want %s or %s)", cfg.Method, LBFGS, Adam)
	}
	return f.res, err
}

type fitter struct {
	cfg        Config
	free       []int
	w0, w, g   []float64
	train, val *Objective
	start      time.Time
	res        *Result
	sinceBest  int
	stop       bool

	// the training error (without L2) at the last point objective saw
	lastX     []float64
	lastTrain float64
	observed  []float64 // the last point observed
}

// expand writes the free weights x into the full vector f.w.
func (f *fitter) expand(x []float64) {
	for i, j := range f.free {
		f.w[j] = x[i]
	}
}

// objective returns the training error plus the L2 term at x and, when
// grad is not nil, its gradient over the free weights.
func (f *fitter) objective(x, grad []float64) float64 {
	f.expand(x)
	var v float64
	if grad == nil {
		v = f.train.Value(f.w)
	} else {
		v = f.train.ValueGrad(f.w, f.g)
	}
	f.lastX = append(f.lastX[:0], x...)
	f.lastTrain = v
	l2 := f.cfg.L2 / 1e4
	for i, j := range f.free {
		d := x[i] - f.w0[j]
		v += l2 * d * d
		if grad != nil {
			grad[i] = f.g[j] + 2*l2*d
		}
	}
	return v
}

// observe records an iteration at x, keeps the best weights by validation
// error and decides whether to stop.
func (f *fitter) observe(x []float64) {
	f.observed = append(f.observed[:0], x...)
	f.expand(x)
	it := Iter{N: len(f.res.History), Elapsed: time.Since(f.start)}
	if len(f.lastX) == len(x) && equal(f.lastX, x) {
		it.Train = f.lastTrain
	} else {
		it.Train = f.train.Value(f.w)
	}
	it.Val = it.Train
	if f.val != f.train {
		it.Val = f.val.Value(f.w)
	}
	f.res.History = append(f.res.History, it)
	best := f.res.History[f.res.Best].Val
	switch {
	case it.N == 0:
	case it.Val < best-f.cfg.MinGain:
		f.res.Best = it.N
		copy(f.res.W, f.w)
		f.sinceBest = 0
	default:
		f.sinceBest++
	}
	if f.sinceBest >= f.cfg.Patience {
		f.stop = true
		f.res.Stop = fmt.Sprintf("validation error did not improve for %d iterations", f.cfg.Patience)
	} else if it.N >= f.cfg.MaxIter {
		f.stop = true
		f.res.Stop = fmt.Sprintf("iteration limit %d", f.cfg.MaxIter)
	}
	if f.cfg.Progress != nil {
		f.cfg.Progress(it)
	}
}

// earlyStop is the status the validation watcher returns to gonum.
var earlyStop = optimize.NewStatus("EarlyStop", true, nil)

// converger hands every L-BFGS major iteration to the fitter.
type converger struct{ f *fitter }

func (c converger) Init(int) {}

func (c converger) Converged(loc *optimize.Location) optimize.Status {
	if equal(loc.X, c.f.observed) {
		return optimize.NotTerminated // gonum reports the starting point again
	}
	c.f.observe(loc.X)
	if c.f.stop {
		return earlyStop
	}
	return optimize.NotTerminated
}

// lbfgs runs gonum's L-BFGS. Func and Grad are usually asked at the same
// point one after the other; the value and gradient are computed together
// once and the second call reuses them.
func (f *fitter) lbfgs(x []float64) error {
	var cx, cg []float64
	var cv float64
	eval := func(x []float64) {
		if cx != nil && equal(cx, x) {
			return
		}
		if cg == nil {
			cg = make([]float64, len(x))
			cx = make([]float64, len(x))
		}
		cv = f.objective(x, cg)
		copy(cx, x)
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return cv },
		Grad: func(grad, x []float64) { eval(x); copy(grad, cg) },
	}
	settings := &optimize.Settings{Converger: converger{f}, MajorIterations: 0}
	res, err := optimize.Minimize(p, x, settings, &optimize.LBFGS{Store: 20})
	if f.res.Stop == "" && res != nil {
		f.res.Stop = "L-BFGS: " + res.Status.String()
	}
	if err != nil && res != nil && res.Status != earlyStop {
		// A line search that can make no more progress ends the fit;
		// the best weights so far stand.
		f.res.Stop = fmt.Sprintf("L-BFGS: %v (%v)", res.Status, err)
	}
	return nil
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// adam runs full-batch Adam with step size cfg.LR (centipawns).
func (f *fitter) adam(x []float64) {
	const b1, b2, eps = 0.9, 0.999, 1e-12
	m := make([]float64, len(x))
	v := make([]float64, len(x))
	g := make([]float64, len(x))
	for t := 1; !f.stop; t++ {
		f.objective(x, g)
		c1 := 1 - math.Pow(b1, float64(t))
		c2 := 1 - math.Pow(b2, float64(t))
		for i := range x {
			m[i] = b1*m[i] + (1-b1)*g[i]
			v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
			x[i] -= f.cfg.LR * (m[i] / c1) / (math.Sqrt(v[i]/c2) + eps)
		}
		f.observe(x)
	}
}
