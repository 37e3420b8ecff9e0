package match

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"chessforge/engine/dama"
)

// DamaOpening is where a game of draughts starts: a position (the starting
// position when FEN is empty) and the moves played from it, in standard
// notation ("22-18", "27x18x9").
type DamaOpening struct {
	FEN   string // PDN FEN, e.g. "B:W18,21,23-32:B1-12"; "" for the starting position
	Moves []string
	Name  string
}

// play returns the position at the end of the opening, every move checked
// against the rules; the error says what is wrong (the FEN, or which move
// and why), the caller names the opening.
func (o *DamaOpening) play() (*dama.Position, error) {
	pos := dama.StartPosition()
	if o.FEN != "" {
		var err error
		if pos, err = dama.ParseFEN(o.FEN); err != nil {
			return nil, err
		}
	}
	for i, s := range o.Moves {
		m, err := pos.ParseMove(s)
		if err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
		pos.MakeMove(m)
	}
	return pos, nil
}

// DamaRandomOpenings makes n openings of random legal plies from the
// starting position, each of minPlies to maxPlies plies (drawn evenly), that
// end in n different positions with the game still going. When the lines of
// that length run short of new positions, the longest length grows by a ply.
// The same seed gives the same openings.
func DamaRandomOpenings(n, minPlies, maxPlies int, seed uint64) []DamaOpening {
	maxPlies = max(maxPlies, minPlies)
	rng := rand.New(rand.NewPCG(seed, 0x64616d61))
	out := make([]DamaOpening, 0, n)
	seen := map[uint64]bool{}
	var list dama.MoveList
	misses := 0
	for len(out) < n {
		plies := minPlies + rng.IntN(maxPlies-minPlies+1)
		pos := dama.StartPosition()
		moves := make([]string, 0, plies)
		for range plies {
			pos.GenerateMoves(&list)
			if list.Len() == 0 {
				break
			}
			m := list.At(rng.IntN(list.Len()))
			moves = append(moves, m.String())
			pos.MakeMove(m)
		}
		if len(moves) < plies || pos.Outcome() != dama.Ongoing || seen[pos.Hash()] {
			// Lines of these lengths give few new positions: lengthen them.
			if misses++; misses > 50 {
				maxPlies, misses = maxPlies+1, 0
			}
			continue
		}
		seen[pos.Hash()] = true
		out = append(out, DamaOpening{Moves: moves, Name: fmt.Sprintf("random %d: %s", len(out)+1, strings.Join(moves, " "))})
	}
	return out
}

// LoadDamaOpenings reads a book of draughts openings, one a line: a PDN
// FEN, moves in standard notation, or a FEN followed by moves (from the
// starting position when the line has no FEN). Empty lines and lines
// starting with '#' are skipped. Every line is played through the rules; a
// bad one is an error naming the file and line.
func LoadDamaOpenings(path string) ([]DamaOpening, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var book []DamaOpening
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		words := strings.Fields(text)
		o := DamaOpening{Name: fmt.Sprintf("%s:%d", path, line)}
		if strings.Contains(words[0], ":") {
			o.FEN, words = words[0], words[1:]
		}
		o.Moves = words
		if _, err := o.play(); err != nil {
			return nil, fmt.Errorf("%s:%d: opening: %w", path, line, err)
		}
		book = append(book, o)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(book) == 0 {
		return nil, fmt.Errorf("%s: no openings", path)
	}
	return book, nil
}
