package nnue

import (
	"encoding/json"
	"math/rand/v2"
)

// Random returns an untrained network with weights drawn from a generator
// seeded with seed, within the format's ranges: W1 mostly in ±128 with a few
// at ±MaxW1, B1 in [-128, 255], W2 in ±MaxW2, so that accumulators reach
// both ends of the clamp; accumulators hidden wide and outputs output
// buckets (see New; with DefaultHidden and 1 output the same weights as
// before networks had buckets). Its provenance says what it is. It serves
// tests and internal/gennet; its evaluations mean nothing.
func Random(seed uint64, hidden, outputs int) *Network {
	rng := rand.New(rand.NewPCG(seed, 0x6e6e7565))
	n := New(hidden, outputs)
	n.pawnScale = legacyPawnScale
	for i := range n.W1 {
		n.W1[i] = int16(rng.IntN(257) - 128)
		if rng.IntN(512) == 0 {
			n.W1[i] = MaxW1
			if rng.IntN(2) == 0 {
				n.W1[i] = -MaxW1
			}
		}
	}
	for j := range n.B1 {
		n.B1[j] = int16(rng.IntN(384) - 128)
	}
	for b := range outputs {
		for j := range n.W2[b] {
			n.W2[b][j] = int16(rng.IntN(2*MaxW2+1) - MaxW2)
		}
		n.B2[b] = int32(rng.IntN(2*QA*QB+1) - QA*QB)
	}
	n.Provenance, _ = json.Marshal(map[string]any{
		"kind":    "untrained, seeded random: for tests; replace with a trained network",
		"command": "nnue.Random",
		"seed":    seed,
		"hidden":  hidden,
		"outputs": outputs,
	})
	n.Seal()
	return n
}
