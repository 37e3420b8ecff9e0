package dama

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Signature is a material signature: each side's number of kings and men,
// written White first, e.g. "2Kv1K1M" (two white kings against a black
// king and a black man) or "3Mv2M".
type Signature struct {
	Kings [2]int // by colour
	Men   [2]int // by colour
}

// ParseSignature reads a signature: for White then, after v, for Black, a
// count and K (kings) or M (men) for each kind present; a count of 1 may
// be left out ("KvK"). Each side has one to twelve pieces.
func ParseSignature(text string) (Signature, error) {
	var s Signature
	w, b, ok := strings.Cut(strings.ToUpper(strings.TrimSpace(text)), "V")
	if !ok {
		return s, fmt.Errorf("signature %q: want White's pieces, v, Black's, e.g. 2Kv1K1M", text)
	}
	for c, side := range [2]string{w, b} {
		seen := [2]bool{}
		digits := ""
		for _, ch := range side {
			switch {
			case ch >= '0' && ch <= '9':
				digits += string(ch)
			case ch == 'K' || ch == 'M':
				n := 1
				if digits != "" {
					var err error
					if n, err = strconv.Atoi(digits); err != nil || n < 1 {
						return s, fmt.Errorf("signature %q: bad count %q", text, digits)
					}
				}
				digits = ""
				kind := 0
				if ch == 'M' {
					kind = 1
				}
				if seen[kind] {
					return s, fmt.Errorf("signature %q: %c given twice for one side", text, ch)
				}
				seen[kind] = true
				if ch == 'K' {
					s.Kings[c] = n
				} else {
					s.Men[c] = n
				}
			default:
				return s, fmt.Errorf("signature %q: %q is not a count or K (king) or M (man)", text, ch)
			}
		}
		if digits != "" {
			return s, fmt.Errorf("signature %q: count %s has no K or M after it", text, digits)
		}
		if total := s.Kings[c] + s.Men[c]; total < 1 || total > 12 {
			return s, fmt.Errorf("signature %q: %s has %d pieces, want 1 to 12", text, Color(c), total)
		}
	}
	return s, nil
}

// String writes the signature in its canonical form, kings before men,
// every count written ("2Kv1K1M").
func (s Signature) String() string {
	var b strings.Builder
	for c := range 2 {
		if c == 1 {
			b.WriteByte('v')
		}
		if s.Kings[c] > 0 {
			fmt.Fprintf(&b, "%dK", s.Kings[c])
		}
		if s.Men[c] > 0 {
			fmt.Fprintf(&b, "%dM", s.Men[c])
		}
	}
	return b.String()
}

// RandomPosition places the signature's pieces on random squares (no man
// on its own crowning row) with a random side to move, retrying until the
// side to move has a legal move. The same rng state gives the same
// position. It fails only for a signature with no such position in many
// tries.
func RandomPosition(sig Signature, rng *rand.Rand) (*Position, error) {
	for c := range 2 {
		if k, m := sig.Kings[c], sig.Men[c]; k < 0 || m < 0 || k+m < 1 || k+m > 12 {
			return nil, fmt.Errorf("signature %s: each side needs 1 to 12 pieces", sig)
		}
	}
	for range 10000 {
		p := newPosition()
		for c := range 2 {
			for range sig.Kings[c] {
				p.kings[c] |= randomEmpty(p, rng, 0)
			}
			for range sig.Men[c] {
				p.men[c] |= randomEmpty(p, rng, crownRow[c])
			}
		}
		p.side = Color(rng.IntN(2))
		p.hash = p.computeHash()
		if p.HasMoves() {
			return p, nil
		}
	}
	return nil, fmt.Errorf("signature %s: found no position with a legal move in 10000 tries", sig)
}

// randomEmpty returns the bit of a random empty square outside avoid.
func randomEmpty(p *Position, rng *rand.Rand, avoid uint32) uint32 {
	for {
		bit := uint32(1) << uint(rng.IntN(NumSquares))
		if (p.Occupied()|avoid)&bit == 0 {
			return bit
		}
	}
}
