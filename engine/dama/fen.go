package dama

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// ParseFEN reads a position in PDN FEN: the side to move, then the two
// sides' pieces in either order, separated by colons, e.g.
// "W:W21-32:B1-12" or "B:WK5,21:B1,K30". A square list holds numbers and
// ranges ("21-32"), a K before a number or range marks kings; a final period
// is allowed. A side has at most twelve pieces, and a man may not stand on
// its own crowning row. The error names the field at fault.
func ParseFEN(fen string) (*Position, error) {
	text := strings.TrimSuffix(strings.TrimSpace(fen), ".")
	fields := strings.Split(text, ":")
	if len(fields) != 3 {
		return nil, fmt.Errorf("fen %q: want 3 fields separated by ':' (side to move, White's pieces, Black's pieces), got %d", fen, len(fields))
	}
	p := newPosition()
	switch strings.TrimSpace(fields[0]) {
	case "W":
		p.side = White
	case "B":
		p.side = Black
	default:
		return nil, fmt.Errorf("fen %q: side-to-move field %q: want W or B", fen, fields[0])
	}
	seen := [2]bool{}
	for _, f := range fields[1:] {
		f = strings.TrimSpace(f)
		var c Color
		switch {
		case strings.HasPrefix(f, "W"):
			c = White
		case strings.HasPrefix(f, "B"):
			c = Black
		default:
			return nil, fmt.Errorf("fen %q: piece field %q: want W or B first", fen, f)
		}
		if seen[c] {
			return nil, fmt.Errorf("fen %q: piece field %q: %s's pieces given twice", fen, f, c)
		}
		seen[c] = true
		if err := p.parsePieces(c, f[1:]); err != nil {
			return nil, fmt.Errorf("fen %q: piece field %q: %w", fen, f, err)
		}
		if n := bits.OnesCount32(p.Pieces(c)); n > 12 {
			return nil, fmt.Errorf("fen %q: piece field %q: %d pieces, at most 12", fen, f, n)
		}
	}
	p.hash = p.computeHash()
	return p, nil
}

// parsePieces places side c's pieces from a comma-separated square list.
func (p *Position) parsePieces(c Color, list string) error {
	if list == "" {
		return nil
	}
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		king := strings.HasPrefix(item, "K")
		body := strings.TrimPrefix(item, "K")
		lo, hi, isRange := strings.Cut(body, "-")
		if !isRange {
			hi = lo
		}
		a, errA := parseSquareNumber(lo)
		b, errB := parseSquareNumber(hi)
		if errA != nil || errB != nil || a > b {
			return fmt.Errorf("bad square or range %q (want a number 1-32, a range such as 21-32, K before kings)", item)
		}
		for s := a; s <= b; s++ {
			bit := s.Bit()
			if p.Occupied()&bit != 0 {
				return fmt.Errorf("square %d given twice", s.Number())
			}
			if king {
				p.kings[c] |= bit
				continue
			}
			if crownRow[c]&bit != 0 {
				return fmt.Errorf("%s man on square %d, its crowning row", c, s.Number())
			}
			p.men[c] |= bit
		}
	}
	return nil
}

// parseSquareNumber reads a square number 1..32.
func parseSquareNumber(s string) (Square, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > NumSquares {
		return NoSquare, fmt.Errorf("square %q: want a number 1-32", s)
	}
	return SquareAt(n), nil
}

// FEN returns the position in PDN FEN, White's pieces first, each side's
// squares in increasing order with kings marked K and runs of three or more
// consecutive squares of one kind written as ranges ("W:W21-32:B1-12").
func (p *Position) FEN() string {
	b := make([]byte, 0, 96)
	b = append(b, "WB"[p.side&1], ':', 'W')
	b = appendPieces(b, p.men[White], p.kings[White])
	b = append(b, ':', 'B')
	b = appendPieces(b, p.men[Black], p.kings[Black])
	return string(b)
}

// appendPieces writes one side's square list.
func appendPieces(b []byte, men, kings uint32) []byte {
	first := true
	all := men | kings
	for all != 0 {
		s := bits.TrailingZeros32(all)
		kind := men
		if kings&(1<<uint(s)) != 0 {
			kind = kings
		}
		e := s // the run of consecutive squares of the same kind
		for e+1 < NumSquares && kind&(1<<uint(e+1)) != 0 {
			e++
		}
		if e-s < 2 {
			e = s
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		if kind == kings {
			b = append(b, 'K')
		}
		b = strconv.AppendInt(b, int64(s+1), 10)
		if e > s {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(e+1), 10)
		}
		all &^= (uint32(2)<<uint(e) - 1) &^ (uint32(1)<<uint(s) - 1)
	}
	return b
}

// String returns a board diagram as White sees it (rank 8 at the top):
// w and b are men, W and B kings, '.' an empty dark square; the numbers of
// each row's squares stand at its right, and the side to move below.
func (p *Position) String() string {
	var sb strings.Builder
	sb.WriteString("   a b c d e f g h\n")
	for r := range 8 {
		fmt.Fprintf(&sb, " %d ", 8-r)
		for f := range 8 {
			s := squareAtRowFile(r, f)
			ch := byte(' ')
			if s != NoSquare {
				bit := s.Bit()
				switch {
				case p.men[White]&bit != 0:
					ch = 'w'
				case p.men[Black]&bit != 0:
					ch = 'b'
				case p.kings[White]&bit != 0:
					ch = 'W'
				case p.kings[Black]&bit != 0:
					ch = 'B'
				default:
					ch = '.'
				}
			}
			sb.WriteByte(ch)
			if f < 7 {
				sb.WriteByte(' ')
			}
		}
		fmt.Fprintf(&sb, "   %d-%d\n", r*4+1, r*4+4)
	}
	fmt.Fprintf(&sb, "%s to move\n", [2]string{"White", "Black"}[p.side&1])
	return sb.String()
}
