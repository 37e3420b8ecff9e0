package dama

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestParseSignature: signatures read to counts and write back canonically;
// bad ones fail with a clear error.
func TestParseSignature(t *testing.T) {
	for _, c := range []struct {
		in, out    string
		kings, men [2]int
	}{
		{"2Kv1K1M", "2Kv1K1M", [2]int{2, 1}, [2]int{0, 1}},
		{"3Mv2M", "3Mv2M", [2]int{0, 0}, [2]int{3, 2}},
		{"KvK", "1Kv1K", [2]int{1, 1}, [2]int{0, 0}},
		{" 1m2kV12m ", "2K1Mv12M", [2]int{2, 0}, [2]int{1, 12}},
		{"4K8Mv12K", "4K8Mv12K", [2]int{4, 12}, [2]int{8, 0}},
	} {
		s, err := ParseSignature(c.in)
		if err != nil || s.Kings != c.kings || s.Men != c.men || s.String() != c.out {
			t.Errorf("ParseSignature(%q) = %+v (%s), %v", c.in, s, s, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"2K1K", "want White's pieces, v, Black's"},
		{"2Kv", "black has 0 pieces"},
		{"vK", "white has 0 pieces"},
		{"2K2Kv1K", "K given twice"},
		{"2Qv1K", `'Q' is not a count`},
		{"2Kv1K3", "count 3 has no K or M"},
		{"0Kv1K", "bad count"},
		{"7K6Mv1K", "white has 13 pieces"},
		{"KvKvK", `'V' is not a count`},
	} {
		_, err := ParseSignature(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSignature(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

// TestRandomPosition: generated positions have the signature's material, no
// man on its own crowning row, a legal move for the side to move, both sides
// to move over many draws, and the same rng seed gives the same positions.
func TestRandomPosition(t *testing.T) {
	for _, text := range []string{"2Kv1K1M", "3Mv2M", "1Kv1M", "12Mv12M", "6K6Mv6K6M", "1Mv1M"} {
		sig, err := ParseSignature(text)
		if err != nil {
			t.Fatal(err)
		}
		a := rand.New(rand.NewPCG(5, 9))
		b := rand.New(rand.NewPCG(5, 9))
		sides := [2]int{}
		for range 300 {
			p, err := RandomPosition(sig, a)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			q, _ := RandomPosition(sig, b)
			if q == nil || q.FEN() != p.FEN() {
				t.Fatalf("%s: the same seed gave %s and %v", text, p.FEN(), q)
			}
			for c := range 2 {
				if bits.OnesCount32(p.Kings(Color(c))) != sig.Kings[c] || bits.OnesCount32(p.Men(Color(c))) != sig.Men[c] {
					t.Fatalf("%s: %s has the wrong material", text, p.FEN())
				}
				if p.Men(Color(c))&crownRow[c] != 0 {
					t.Fatalf("%s: %s has a %s man on its crowning row", text, p.FEN(), Color(c))
				}
			}
			if !p.HasMoves() || p.Outcome() != Ongoing || p.Hash() != p.computeHash() {
				t.Fatalf("%s: %s is over or badly hashed", text, p.FEN())
			}
			if _, err := ParseFEN(p.FEN()); err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			sides[p.SideToMove()]++
		}
		if sides[White] == 0 || sides[Black] == 0 {
			t.Errorf("%s: sides to move %v", text, sides)
		}
	}
	if _, err := RandomPosition(Signature{Kings: [2]int{13, 1}}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Errorf("RandomPosition accepted 13 white kings")
	}
}
