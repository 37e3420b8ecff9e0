package eval

import "testing"

func TestPackedScoresAddAndScaleBothHalves(t *testing.T) {
	for _, tc := range []struct {
		mg, eg int32
		n      int
	}{
		{0, 0, 5}, {1, -1, 1}, {-1, 1, 1}, {-1008, -1019, 9}, {302, -25, -3},
		{-40, 7, 64}, {1 << 20, -(1 << 20), 100}, {-(1 << 24), 1 << 24, -63},
	} {
		s := pack(tc.mg, tc.eg)
		if s.mg() != int(tc.mg) || s.eg() != int(tc.eg) {
			t.Errorf("pack(%d, %d) unpacks as (%d, %d)", tc.mg, tc.eg, s.mg(), s.eg())
		}
		// A sum of scaled scores is the sum of the scaled halves.
		u := s*score(tc.n) - pack(7, -9)
		if want := int(tc.mg)*tc.n - 7; u.mg() != want {
			t.Errorf("(%d, %d)·%d − (7, −9): midgame %d, want %d", tc.mg, tc.eg, tc.n, u.mg(), want)
		}
		if want := int(tc.eg)*tc.n + 9; u.eg() != want {
			t.Errorf("(%d, %d)·%d − (7, −9): endgame %d, want %d", tc.mg, tc.eg, tc.n, u.eg(), want)
		}
	}
	for f, w := range weights.features() {
		if packed[f].mg() != int(w.MG) || packed[f].eg() != int(w.EG) {
			t.Fatalf("feature %s: packed (%d, %d), weights (%d, %d)", ParamName(f), packed[f].mg(), packed[f].eg(), w.MG, w.EG)
		}
	}
}
