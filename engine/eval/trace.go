package eval

import "chessforge/engine/board"

// Tracer records the coefficients of one evaluation. The evaluation code
// adds every term through the same two helpers that apply the weights, so
// the trace is the evaluation itself, never a second copy of it. A Tracer
// can be reused for many positions; it is not safe for concurrent use.
type Tracer struct {
	lin   [2][NumFeatures]int32
	ks    [2][NumFeatures]int32
	phase int
	scale [2]int
	draw  bool
}

// Coef is one entry of a sparse coefficient vector.
type Coef struct {
	Index int32 // feature index, 0 <= Index < NumFeatures
	N     int32 // count
}

// Coefs is a position's evaluation as data: with any weight vector w
// (layout as in Weights), Eval(w) is the evaluation from White's side, and
// with the compiled-in weights it equals Evaluate to the centipawn.
type Coefs struct {
	// Linear holds White's count minus Black's for every feature whose
	// difference is not zero, by ascending index.
	Linear []Coef
	// Safety holds the king-danger counts against White's king [0] and
	// Black's king [1]; empty when that king is not under attack. They go
	// through the king-danger curve (see the package doc).
	Safety [2][]Coef
	// Phase is the game phase, 0 (pawns and kings) to PhaseMax.
	Phase int
	// Scale is the drawishness scale, of ScaleNormal, that multiplies the
	// tapered score when it favours White [0] or Black [1]. It depends on
	// the material only, so a tuner treats it as a constant of the position.
	Scale [2]int
	// Draw is set for dead draws: the evaluation is 0 whatever the weights.
	Draw bool
	// SideToMove is the colour to move; Evaluate negates Eval for Black.
	SideToMove board.Color
	// Value is the evaluation (White's side) the traced run returned.
	Value int
}

// Trace evaluates p and returns its coefficient vector.
func Trace(p *board.Position) *Coefs {
	return new(Tracer).Trace(p)
}

// Trace evaluates p and returns its coefficient vector, reusing t's buffers.
func (t *Tracer) Trace(p *board.Position) *Coefs {
	*t = Tracer{}
	e := evaluator{tr: t}
	c := &Coefs{Value: e.evaluate(p, nil), SideToMove: p.SideToMove()}
	c.Phase, c.Scale, c.Draw = t.phase, t.scale, t.draw
	for f := 0; f < NumFeatures; f++ {
		if n := t.lin[0][f] - t.lin[1][f]; n != 0 {
			c.Linear = append(c.Linear, Coef{int32(f), n})
		}
		for s := 0; s < 2; s++ {
			if n := t.ks[s][f]; n != 0 {
				c.Safety[s] = append(c.Safety[s], Coef{int32(f), n})
			}
		}
	}
	return c
}

// parts returns the midgame and endgame sums (king danger applied) and the
// two sides' king-danger units for weights w.
func (c *Coefs) parts(w []float64) (mg, eg float64, umg, ueg [2]float64) {
	for _, t := range c.Linear {
		n := float64(t.N)
		mg += n * w[t.Index]
		eg += n * w[NumFeatures+int(t.Index)]
	}
	for s := 0; s < 2; s++ {
		for _, t := range c.Safety[s] {
			n := float64(t.N)
			umg[s] += n * w[t.Index]
			ueg[s] += n * w[NumFeatures+int(t.Index)]
		}
	}
	mg -= (sqPos(umg[0]) - sqPos(umg[1])) / KingDangerMG
	eg -= (fPos(ueg[0]) - fPos(ueg[1])) / KingDangerEG
	return mg, eg, umg, ueg
}

func fPos(u float64) float64 {
	if u <= 0 {
		return 0
	}
	return u
}

func sqPos(u float64) float64 { return fPos(u) * fPos(u) }

// scaleOf returns the scale that applies to tapered score v.
func (c *Coefs) scaleOf(v float64) float64 {
	if v > 0 {
		return float64(c.Scale[0]) / ScaleNormal
	}
	return float64(c.Scale[1]) / ScaleNormal
}

// tapered blends the midgame and endgame parts by the phase.
func (c *Coefs) tapered(mg, eg float64) float64 {
	return (mg*float64(c.Phase) + eg*float64(PhaseMax-c.Phase)) / PhaseMax
}

// Eval returns the evaluation from White's side under weights w (length
// NumParams), unrounded:
//
//	mg = Σ Linear·w_mg − (max(u_mg[White],0)² − max(u_mg[Black],0)²) / KingDangerMG
//	eg = Σ Linear·w_eg − (max(u_eg[White],0) − max(u_eg[Black],0)) / KingDangerEG
//	t  = (mg·Phase + eg·(PhaseMax−Phase)) / PhaseMax
//	v  = t · Scale / ScaleNormal
//
// with u[s] = Safety[s]·w (u_mg from the midgame weights, u_eg from the
// endgame ones), Scale[0] if t > 0 else Scale[1], v clamped to ±MaxEval,
// and 0 for a Draw. With the compiled-in weights, Evaluate is this value
// truncated toward zero (and negated for Black to move).
func (c *Coefs) Eval(w []float64) float64 {
	if c.Draw {
		return 0
	}
	mg, eg, _, _ := c.parts(w)
	t := c.tapered(mg, eg)
	v := t * c.scaleOf(t)
	if v > MaxEval {
		return MaxEval
	} else if v < -MaxEval {
		return -MaxEval
	}
	return v
}

// Gradient adds d times the gradient of Eval at w to grad (both of length
// NumParams). The scale is held constant, as it is a property of
// the material; a clamped or drawn value has zero gradient.
func (c *Coefs) Gradient(w []float64, d float64, grad []float64) {
	if c.Draw {
		return
	}
	mg, eg, umg, ueg := c.parts(w)
	tp := c.tapered(mg, eg)
	sc := c.scaleOf(tp)
	if v := tp * sc; v > MaxEval || v < -MaxEval {
		return
	}
	a := d * sc * float64(c.Phase) / PhaseMax
	b := d * sc * float64(PhaseMax-c.Phase) / PhaseMax
	for _, t := range c.Linear {
		n := float64(t.N)
		grad[t.Index] += a * n
		grad[NumFeatures+int(t.Index)] += b * n
	}
	for s := 0; s < 2; s++ {
		sign := -1.0 // danger to White's king lowers White's score
		if s == 1 {
			sign = 1
		}
		for _, t := range c.Safety[s] {
			n := float64(t.N)
			if umg[s] > 0 {
				grad[t.Index] += a * sign * 2 * umg[s] * n / KingDangerMG
			}
			if ueg[s] > 0 {
				grad[NumFeatures+int(t.Index)] += b * sign * n / KingDangerEG
			}
		}
	}
}
