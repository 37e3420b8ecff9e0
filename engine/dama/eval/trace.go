package eval

import "chessforge/engine/dama"

// Tracer records the coefficients of one evaluation: every term goes
// through the helper that applies its weight, which also counts it here,
// so the trace is the evaluation itself, never a second copy of it. A
// Tracer can be reused for many positions; it is not safe for concurrent
// use.
type Tracer struct {
	n     [2][NumFeatures]int32
	phase int
}

// Coef is one entry of a sparse coefficient vector.
type Coef struct {
	Index int32 // feature index, 0 <= Index < NumFeatures
	N     int32 // count
}

// Coefs is a position's evaluation as data: with any weight vector w
// (layout as Weights.Vector), Eval(w) is the evaluation from White's
// side, and with a weight set's own vector it equals that set's Evaluate
// (negated for Black to move) to the centi-man, truncated.
type Coefs struct {
	// Linear holds White's count minus Black's for every feature whose
	// difference is not zero, by ascending index.
	Linear []Coef
	// Phase is the number of pieces on the board, at most PhaseMax.
	Phase int
	// SideToMove is the colour to move.
	SideToMove dama.Color
	// Value is the evaluation (White's side) the traced run returned.
	Value int
}

// Trace evaluates p with weights w and returns its coefficient vector,
// reusing t's buffers.
func (t *Tracer) Trace(p *dama.Position, w Weights) *Coefs {
	*t = Tracer{}
	e := evaluator{w: w.t, tr: t}
	c := &Coefs{Value: e.evaluate(p), SideToMove: p.SideToMove(), Phase: t.phase}
	for f := range NumFeatures {
		if n := t.n[dama.White][f] - t.n[dama.Black][f]; n != 0 {
			c.Linear = append(c.Linear, Coef{int32(f), n})
		}
	}
	return c
}

// Trace evaluates p with the compiled-in weights and returns its
// coefficient vector.
func Trace(p *dama.Position) *Coefs { return new(Tracer).Trace(p, defaultWeights) }

// Eval returns the evaluation from White's side under weights w (length
// NumParams), unrounded:
//
//	mg = Σ Linear·w_mg,  eg = Σ Linear·w_eg
//	v  = (mg·Phase + eg·(PhaseMax−Phase)) / PhaseMax, clamped to ±MaxEval
//
// Weights.Evaluate computes the same in integers, truncating the division
// toward zero (and negates it for Black to move).
func (c *Coefs) Eval(w []float64) float64 {
	var mg, eg float64
	for _, t := range c.Linear {
		mg += float64(t.N) * w[t.Index]
		eg += float64(t.N) * w[NumFeatures+int(t.Index)]
	}
	v := (mg*float64(c.Phase) + eg*float64(PhaseMax-c.Phase)) / PhaseMax
	return max(-MaxEval, min(MaxEval, v))
}
