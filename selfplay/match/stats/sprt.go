package stats

import (
	"fmt"
	"math"
)

// SPRT is a sequential probability ratio test of H0: elo = Elo0 against
// H1: elo = Elo1 (logistic Elo) with false-positive rate Alpha and
// false-negative rate Beta.
//
// The log-likelihood ratio is the normal ("GSPRT") approximation on the
// pentanomial distribution of game pairs, the idea fishtest uses (Michel Van
// den Bergh, "A generalized sequential probability ratio test", and the note
// "GSPRT approximation"). Treat each pair as one sample x_i in
// {0, 1/4, 1/2, 3/4, 1} (the first engine's points from the pair divided by
// two). With N pairs, sample mean m and sample variance v (both from the
// observed frequencies), the sample mean is approximately normal with
// variance v/N, so the log of the likelihood ratio of mean s1 against mean s0
// is
//
//	log[ phi((m-s1)/sqrt(v/N)) / phi((m-s0)/sqrt(v/N)) ]
//	  = N/(2v) * ((m-s0)^2 - (m-s1)^2)
//	  = N * (s1-s0) * (2m - s0 - s1) / (2v),
//
// where s0 and s1 are the expected scores of Elo0 and Elo1. Before the
// frequencies are formed, each of the five outcomes gets a pseudo-count of
// 1/2 (priorCount). A tiny pseudo-count lets the first pairs decide the
// test: ten pairs of one point each (a win and a loss, or two draws) leave
// almost no variance, and with a count of 1e-3 for the other outcomes their
// LLR was -16.6 against elo1 = 10, far past the bound. The prior keeps the
// variance of a handful of pairs away from zero (0.025 for ten such pairs),
// and its weight (2.5 pairs) is negligible once there are hundreds.
//
// The test stops when the LLR leaves (log(Beta/(1-Alpha)), log((1-Beta)/Alpha)):
// below the lower bound H0 is accepted, above the upper bound H1.
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
}

// Decision is the state of a sequential test.
type Decision int

// The three states of a sequential test.
const (
	Continue Decision = iota // no bound crossed yet
	AcceptH0                 // LLR at or below the lower bound: not the gain hoped for
	AcceptH1                 // LLR at or above the upper bound: the gain is there
)

func (d Decision) String() string {
	switch d {
	case AcceptH0:
		return "H0 accepted"
	case AcceptH1:
		return "H1 accepted"
	}
	return "continue"
}

// Validate reports whether the test is well formed.
func (s SPRT) Validate() error {
	if !(s.Elo1 > s.Elo0) {
		return fmt.Errorf("sprt: elo1 (%g) must be greater than elo0 (%g)", s.Elo1, s.Elo0)
	}
	if !(s.Alpha > 0 && s.Alpha < 1) || !(s.Beta > 0 && s.Beta < 1) {
		return fmt.Errorf("sprt: alpha (%g) and beta (%g) must lie strictly between 0 and 1", s.Alpha, s.Beta)
	}
	return nil
}

// Bounds returns the lower and upper LLR bounds.
func (s SPRT) Bounds() (lower, upper float64) {
	return math.Log(s.Beta / (1 - s.Alpha)), math.Log((1 - s.Beta) / s.Alpha)
}

// priorCount is added to each outcome's count before the frequencies are
// formed (see SPRT).
const priorCount = 0.5

// priorMoments returns the mean and variance of the outcomes' values
// (value[i] happened count[i] times) after priorCount is added to every
// count.
func priorMoments(value []float64, count []int) (mean, variance float64) {
	total := 0.0
	for i, c := range count {
		w := float64(c) + priorCount
		total += w
		mean += w * value[i]
	}
	mean /= total
	for i, c := range count {
		d := value[i] - mean
		variance += (float64(c) + priorCount) * d * d
	}
	return mean, variance / total
}

// LLR returns the approximate log-likelihood ratio of H1 against H0 given the
// pair counts p. It is 0 before any pair is complete.
func (s SPRT) LLR(p Pentanomial) float64 {
	n := p.Pairs()
	if n == 0 {
		return 0
	}
	mean, variance := priorMoments(pairValue, p[:])
	s0, s1 := ScoreFromElo(s.Elo0), ScoreFromElo(s.Elo1)
	return float64(n) * (s1 - s0) * (2*mean - s0 - s1) / (2 * variance)
}

// Decide returns the test's state for the log-likelihood ratio llr.
func (s SPRT) Decide(llr float64) Decision {
	lower, upper := s.Bounds()
	switch {
	case llr <= lower:
		return AcceptH0
	case llr >= upper:
		return AcceptH1
	}
	return Continue
}
