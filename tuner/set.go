package tuner

import (
	"fmt"
	"math"
)

// entry is one sparse coefficient: a feature index and its count.
type entry struct {
	idx uint16
	n   int16
}

// header is everything about one position that is not a coefficient.
type header struct {
	start  uint32   // first entry in the arena
	nLin   uint16   // linear entries, then nSafe[0] and nSafe[1] king-danger entries
	nSafe  [2]uint8 // king-danger entries against White's [0] and Black's [1] king
	phase  uint8
	scale  [2]uint8
	draw   bool
	result float32 // game result for White: 0, 0.5 or 1
	score  float32 // search score in centipawns for White, NaN when unknown
	target float32 // what the sigmoid of the evaluation is fitted to
}

// headerBytes and entryBytes are the sizes of one header and one entry.
const (
	headerBytes = 24
	entryBytes  = 4
)

// Set holds traced positions of one model compactly: a 24-byte header per
// position and a flat arena of 4-byte (feature, count) entries, about 170
// bytes a position for the chess evaluation. It keeps no boards. The zero
// Set is empty and takes the shape of the first set appended to it.
type Set struct {
	shape Shape
	hdr   []header
	ent   []entry
}

// NewSet returns an empty set for the evaluations of shape sh.
func NewSet(sh Shape) *Set { return &Set{shape: sh} }

// Shape returns the shape of the evaluation the set's positions are
// coefficients of.
func (s *Set) Shape() Shape { return s.shape }

// Len returns the number of positions.
func (s *Set) Len() int { return len(s.hdr) }

// Bytes returns the memory the set's positions take, headers and entries.
func (s *Set) Bytes() int64 {
	return int64(len(s.hdr))*headerBytes + int64(len(s.ent))*entryBytes
}

// Add appends a traced position with its game result for White (0, 0.5, 1)
// and its search score for White in centipawns (NaN when unknown). The
// target starts as the result; SetTargets blends in the score.
func (s *Set) Add(c *Coefs, result, score float64) error {
	if len(c.Linear) > math.MaxUint16 || len(c.Safety[0]) > math.MaxUint8 || len(c.Safety[1]) > math.MaxUint8 {
		return fmt.Errorf("tuner: too many coefficients (%d linear, %d+%d king danger)", len(c.Linear), len(c.Safety[0]), len(c.Safety[1]))
	}
	if len(s.ent)+len(c.Linear)+len(c.Safety[0])+len(c.Safety[1]) > math.MaxUint32 {
		return fmt.Errorf("tuner: coefficient arena full (%d entries)", len(s.ent))
	}
	if c.Phase < 0 || c.Phase > s.shape.PhaseMax || c.Scale[0] < 0 || c.Scale[0] > math.MaxUint8 || c.Scale[1] < 0 || c.Scale[1] > math.MaxUint8 {
		return fmt.Errorf("tuner: phase %d or scale %v out of range", c.Phase, c.Scale)
	}
	h := header{
		start:  uint32(len(s.ent)),
		nLin:   uint16(len(c.Linear)),
		nSafe:  [2]uint8{uint8(len(c.Safety[0])), uint8(len(c.Safety[1]))},
		phase:  uint8(c.Phase),
		scale:  [2]uint8{uint8(c.Scale[0]), uint8(c.Scale[1])},
		draw:   c.Draw,
		result: float32(result),
		score:  float32(score),
		target: float32(result),
	}
	n0 := len(s.ent)
	for _, list := range [][]Coef{c.Linear, c.Safety[0], c.Safety[1]} {
		for _, t := range list {
			if t.N < math.MinInt16 || t.N > math.MaxInt16 || t.Index < 0 || int(t.Index) >= s.shape.Features {
				s.ent = s.ent[:n0]
				return fmt.Errorf("tuner: coefficient %d of feature %d out of range", t.N, t.Index)
			}
			s.ent = append(s.ent, entry{uint16(t.Index), int16(t.N)})
		}
	}
	s.hdr = append(s.hdr, h)
	return nil
}

// Append adds every position of o to s, which must hold positions of the
// same shape (an empty zero Set takes o's).
func (s *Set) Append(o *Set) error {
	if s.shape == (Shape{}) && len(s.hdr) == 0 {
		s.shape = o.shape
	}
	if o.shape != s.shape && len(o.hdr) > 0 {
		return fmt.Errorf("tuner: appending positions of another evaluation (%d features, %d here)", o.shape.Features, s.shape.Features)
	}
	if int64(len(s.ent))+int64(len(o.ent)) > math.MaxUint32 {
		return fmt.Errorf("tuner: coefficient arena full (%d entries)", len(s.ent))
	}
	base := uint32(len(s.ent))
	s.ent = append(s.ent, o.ent...)
	for _, h := range o.hdr {
		h.start += base
		s.hdr = append(s.hdr, h)
	}
	return nil
}

// Coefs rebuilds position i's coefficients (for tests and checks; the
// tuner's loops read the compact form directly).
func (s *Set) Coefs(i int) *Coefs {
	h := &s.hdr[i]
	c := &Coefs{Phase: int(h.phase), Scale: [2]int{int(h.scale[0]), int(h.scale[1])}, Draw: h.draw}
	e := s.ent[h.start:]
	for k := 0; k < int(h.nLin); k++ {
		c.Linear = append(c.Linear, Coef{Index: int32(e[k].idx), N: int32(e[k].n)})
	}
	e = e[h.nLin:]
	for side := 0; side < 2; side++ {
		for k := 0; k < int(h.nSafe[side]); k++ {
			c.Safety[side] = append(c.Safety[side], Coef{Index: int32(e[k].idx), N: int32(e[k].n)})
		}
		e = e[h.nSafe[side]:]
	}
	return c
}

// Target returns what position i's sigmoid is fitted to.
func (s *Set) Target(i int) float64 { return float64(s.hdr[i].target) }

// Result returns position i's game result for White.
func (s *Set) Result(i int) float64 { return float64(s.hdr[i].result) }

// Scored returns the number of positions that carry a search score.
func (s *Set) Scored() int {
	n := 0
	for i := range s.hdr {
		if !math.IsNaN(float64(s.hdr[i].score)) {
			n++
		}
	}
	return n
}

// SetTargets sets every target to lambda·result + (1−lambda)·σ(score)
// with sigmoid scale k. Positions without a score keep their result; it
// reports how many had none when lambda < 1.
func (s *Set) SetTargets(lambda, k float64) (noScore int) {
	for i := range s.hdr {
		h := &s.hdr[i]
		if lambda >= 1 || math.IsNaN(float64(h.score)) {
			if lambda < 1 {
				noScore++
			}
			h.target = h.result
			continue
		}
		h.target = float32(lambda*float64(h.result) + (1-lambda)*Sigmoid(k, float64(h.score)))
	}
	return noScore
}

// SetTarget overrides position i's target (tests label positions with a
// known weight vector this way).
func (s *Set) SetTarget(i int, t float64) { s.hdr[i].target = float32(t) }

// ln10over400 turns centipawns into the natural-log scale of the sigmoid.
const ln10over400 = math.Ln10 / 400

// Sigmoid maps a White's-view evaluation in centipawns to White's expected
// score with scale k: 1 / (1 + 10^(−k·v/400)).
func Sigmoid(k, v float64) float64 {
	return 1 / (1 + math.Exp(-k*ln10over400*v))
}

// pass holds what the gradient of one position needs from its evaluation.
type pass struct {
	umg, ueg [2]float64
	scale    float64
	clamped  bool
}

// eval returns position h's evaluation for White under w, following the
// model's own evaluation of its coefficients exactly (eval.Coefs.Eval for
// chess; tests hold the two equal on real positions).
func (s *Set) eval(h *header, w []float64, p *pass) float64 {
	sh := &s.shape
	nf := sh.Features
	if h.draw {
		p.clamped = true
		return 0
	}
	e := s.ent[h.start : h.start+uint32(h.nLin)+uint32(h.nSafe[0])+uint32(h.nSafe[1])]
	var mg, eg float64
	lin := e[:h.nLin]
	for _, t := range lin {
		n := float64(t.n)
		mg += n * w[t.idx]
		eg += n * w[nf+int(t.idx)]
	}
	e = e[h.nLin:]
	p.umg, p.ueg = [2]float64{}, [2]float64{}
	for side := 0; side < 2; side++ {
		for _, t := range e[:h.nSafe[side]] {
			n := float64(t.n)
			p.umg[side] += n * w[t.idx]
			p.ueg[side] += n * w[nf+int(t.idx)]
		}
		e = e[h.nSafe[side]:]
	}
	mg -= (sqPos(p.umg[0]) - sqPos(p.umg[1])) / sh.KingDangerMG
	eg -= (pos(p.ueg[0]) - pos(p.ueg[1])) / sh.KingDangerEG
	t := (mg*float64(h.phase) + eg*float64(sh.PhaseMax-int(h.phase))) / float64(sh.PhaseMax)
	if t > 0 {
		p.scale = float64(h.scale[0]) / float64(sh.ScaleNormal)
	} else {
		p.scale = float64(h.scale[1]) / float64(sh.ScaleNormal)
	}
	v := t * p.scale
	p.clamped = false
	if v > sh.MaxEval {
		p.clamped = true
		return sh.MaxEval
	} else if v < -sh.MaxEval {
		p.clamped = true
		return -sh.MaxEval
	}
	return v
}

// addGrad adds d·∂v/∂w for position h to grad, using the pass p from the
// evaluation at the same w (eval.Coefs.Gradient's formula).
func (s *Set) addGrad(h *header, p *pass, d float64, grad []float64) {
	if p.clamped {
		return
	}
	sh := &s.shape
	nf := sh.Features
	a := d * p.scale * float64(h.phase) / float64(sh.PhaseMax)
	b := d * p.scale * float64(sh.PhaseMax-int(h.phase)) / float64(sh.PhaseMax)
	e := s.ent[h.start : h.start+uint32(h.nLin)+uint32(h.nSafe[0])+uint32(h.nSafe[1])]
	for _, t := range e[:h.nLin] {
		n := float64(t.n)
		grad[t.idx] += a * n
		grad[nf+int(t.idx)] += b * n
	}
	e = e[h.nLin:]
	for side := 0; side < 2; side++ {
		sign := -1.0 // danger to White's king lowers White's score
		if side == 1 {
			sign = 1
		}
		am := a * sign * 2 * p.umg[side] / sh.KingDangerMG
		be := b * sign / sh.KingDangerEG
		for _, t := range e[:h.nSafe[side]] {
			n := float64(t.n)
			if p.umg[side] > 0 {
				grad[t.idx] += am * n
			}
			if p.ueg[side] > 0 {
				grad[nf+int(t.idx)] += be * n
			}
		}
		e = e[h.nSafe[side]:]
	}
}

func pos(u float64) float64 {
	if u <= 0 {
		return 0
	}
	return u
}

func sqPos(u float64) float64 { return pos(u) * pos(u) }
