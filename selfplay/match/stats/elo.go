// Package stats turns match results into Elo estimates, confidence intervals,
// the likelihood of superiority and a sequential probability ratio test.
//
// Scores are always from the first engine's point of view: a win is 1, a draw
// 1/2, a loss 0. Elo differences use the logistic model, in which an Elo
// difference e gives the expected score 1/(1+10^(-e/400)).
package stats

import "math"

// z95 is the two-sided 95% quantile of the standard normal distribution.
const z95 = 1.959963984540054

// ScoreFromElo returns the expected score of a player e Elo stronger than
// the opponent.
func ScoreFromElo(e float64) float64 {
	return 1 / (1 + math.Pow(10, -e/400))
}

// EloFromScore returns the Elo difference that gives the expected score s.
// It is -Inf for s <= 0 and +Inf for s >= 1.
func EloFromScore(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}

// Estimate is an Elo difference with its 95% confidence interval.
type Estimate struct {
	Score float64 // mean score per game, 0..1
	Elo   float64 // Elo difference from Score
	Lo    float64 // lower end of the 95% interval, in Elo
	Hi    float64 // upper end of the 95% interval, in Elo
}

// Margin returns half the width of the 95% interval, the C of "E ± C".
// It is NaN when no games were played and +Inf when an end of the interval
// is infinite (a perfect or a zero score: see Bound).
func (e Estimate) Margin() float64 {
	if math.IsInf(e.Hi, 0) || math.IsInf(e.Lo, 0) {
		return math.Inf(1)
	}
	return (e.Hi - e.Lo) / 2
}

// Bound returns, for a perfect or a zero score (Elo +Inf or -Inf), the
// finite end of the 95% interval and the direction of the bound: +1 for a
// perfect score (the difference is above bound), -1 for a zero score
// (below). For any other estimate, side is 0.
func (e Estimate) Bound() (bound float64, side int) {
	switch {
	case math.IsInf(e.Elo, 1) && !math.IsInf(e.Lo, 0) && !math.IsNaN(e.Lo):
		return e.Lo, 1
	case math.IsInf(e.Elo, -1) && !math.IsInf(e.Hi, 0) && !math.IsNaN(e.Hi):
		return e.Hi, -1
	}
	return 0, 0
}

// edgeTail is the probability of each tail of the 95% interval.
const edgeTail = 0.025

// estimate builds the Elo estimate of a distribution of outcomes: value[i] is
// the per-game score of outcome i, count[i] how often it happened. Each
// observation is one sample (a game, or a pair of games); the interval is the
// normal approximation of the sample mean with the empirical variance. When
// every sample scored 1 (or every one 0) that variance is zero and the
// normal interval collapses onto an infinite Elo; the interval is then the
// exact one of a sample of n successes (failures) in n trials, Clopper and
// Pearson's: the score lies in [0.025^(1/n), 1] (in [0, 1-0.025^(1/n)]), so
// that the Elo is bounded on one side (see Bound). When every sample took one
// value strictly between 0 and 1 (ten pairs of one point each, or ten draws)
// the variance is zero as well, and an interval of zero width would claim the
// Elo is known exactly; the variance is then the one the SPRT uses, with
// half a count of each outcome added (see priorMoments), while the estimate
// itself stays the observed mean.
func estimate(value []float64, count []int) Estimate {
	n := 0
	mean := 0.0
	for i, c := range count {
		n += c
		mean += float64(c) * value[i]
	}
	if n == 0 {
		return Estimate{Score: math.NaN(), Elo: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	mean /= float64(n)
	variance := 0.0
	for i, c := range count {
		d := value[i] - mean
		variance += float64(c) * d * d
	}
	variance /= float64(n)
	switch edge := math.Pow(edgeTail, 1/float64(n)); {
	case mean == 1:
		return Estimate{Score: 1, Elo: math.Inf(1), Lo: EloFromScore(edge), Hi: math.Inf(1)}
	case mean == 0:
		return Estimate{Score: 0, Elo: math.Inf(-1), Lo: math.Inf(-1), Hi: EloFromScore(1 - edge)}
	case variance == 0:
		_, variance = priorMoments(value, count)
	}
	se := math.Sqrt(variance / float64(n))
	return Estimate{
		Score: mean,
		Elo:   EloFromScore(mean),
		Lo:    EloFromScore(mean - z95*se),
		Hi:    EloFromScore(mean + z95*se),
	}
}

// Trinomial counts single games: wins, draws and losses of the first engine.
type Trinomial struct {
	W, D, L int
}

// Games returns the number of games counted.
func (t Trinomial) Games() int { return t.W + t.D + t.L }

// Elo returns the Elo difference with the 95% interval that treats every game
// as an independent sample.
func (t Trinomial) Elo() Estimate {
	return estimate([]float64{1, 0.5, 0}, []int{t.W, t.D, t.L})
}

// LOS returns the likelihood of superiority: the probability that the first
// engine is the stronger, given W wins and L losses (draws carry no
// information). It is 0.5 when no game was decisive.
func (t Trinomial) LOS() float64 {
	if t.W+t.L == 0 {
		return 0.5
	}
	return 0.5 * (1 + math.Erf(float64(t.W-t.L)/math.Sqrt(2*float64(t.W+t.L))))
}

// Pentanomial counts game pairs (the two games of one opening, colours
// swapped) by the points the first engine took from the pair: index 0 for 0
// points (two losses), 1 for 1/2, 2 for 1, 3 for 3/2, 4 for 2 (two wins).
type Pentanomial [5]int

// Pairs returns the number of pairs counted.
func (p Pentanomial) Pairs() int { return p[0] + p[1] + p[2] + p[3] + p[4] }

// pairValue is the per-game score of each pentanomial outcome.
var pairValue = []float64{0, 0.25, 0.5, 0.75, 1}

// Elo returns the Elo difference with the 95% interval that treats every pair
// as one sample. Pairs played from the same opening are correlated, so this
// interval is the honest one (usually narrower than the trinomial) when the
// openings are unbalanced.
func (p Pentanomial) Elo() Estimate {
	return estimate(pairValue, p[:])
}
