// Package book supplies the opening positions of a match: read from an EPD
// or PGN file, taken from a built-in list of balanced openings, or made of
// random legal plies.
package book

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// Opening is a starting point for a game pair: a position (the standard one
// when FEN is empty) and moves played from it, in UCI notation.
type Opening struct {
	FEN   string
	Moves []string
	Name  string // where it came from, e.g. "book.pgn:12 Ruy Lopez" or, built in, "Ruy Lopez"
}

// Position sets the opening up: the position after its moves.
func (o Opening) Position() (*board.Position, error) {
	var pos *board.Position
	if o.FEN == "" {
		pos = board.NewPosition()
	} else {
		var err error
		if pos, err = board.ParseFEN(o.FEN); err != nil {
			return nil, fmt.Errorf("opening %s: %w", o.Name, err)
		}
	}
	for _, s := range o.Moves {
		m, err := pos.ParseUCIMove(s)
		if err != nil {
			return nil, fmt.Errorf("opening %s: move %s: %w", o.Name, s, err)
		}
		pos.MakeMove(m)
	}
	if pos.Outcome() != board.Ongoing {
		return nil, fmt.Errorf("opening %s: the game is already over (%v)", o.Name, pos.Outcome())
	}
	return pos, nil
}

// Load reads an opening book, EPD or PGN (see pgn.Load, which detects the
// format and checks that every opening leaves a game in progress). Each
// opening is named by where it starts in the file and its name there
// ("book.pgn:12 Ruy Lopez").
func Load(path string) ([]Opening, error) {
	games, err := pgn.Load(path)
	if err != nil {
		return nil, err
	}
	out := make([]Opening, len(games))
	for i, g := range games {
		moves := make([]string, len(g.Moves))
		for j, m := range g.Moves {
			moves[j] = m.String()
		}
		out[i] = Opening{FEN: g.FEN, Moves: moves, Name: g.Label()}
	}
	return out, nil
}

// Order returns the order in which to play n openings for a given seed: a
// permutation that the same seed always reproduces.
func Order(n int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0x6f70656e696e6773))
	return rng.Perm(n)
}

// Random makes n openings of the given number of random legal plies from
// the standard position. Lines that end the game early are drawn again.
// The same seed gives the same openings.
func Random(n, plies int, seed uint64) []Opening {
	rng := rand.New(rand.NewPCG(seed, 0x72616e646f6d))
	out := make([]Opening, 0, n)
	var list board.MoveList
	for len(out) < n {
		pos := board.NewPosition()
		moves := playRandom(pos, rng, &list, plies, make([]string, 0, plies))
		if len(moves) < plies || pos.Outcome() != board.Ongoing {
			continue
		}
		out = append(out, Opening{Moves: moves, Name: fmt.Sprintf("random %d", len(out)+1)})
	}
	return out
}

// Extend returns n openings: the given ones, then, as often as needed, each
// of them again followed by plies random legal moves (drawn anew for every
// copy), so that a long match does not replay the same lines. The same seed
// gives the same openings.
func Extend(openings []Opening, n, plies int, seed uint64) []Opening {
	out := slices.Clone(openings[:min(n, len(openings))])
	rng := rand.New(rand.NewPCG(seed, 0x657874656e64))
	var list board.MoveList
	for round := 1; len(out) < n; round++ {
		for _, o := range openings {
			if len(out) == n {
				break
			}
			for {
				pos, err := o.Position()
				if err != nil {
					break // a bad opening is reported when it is played
				}
				moves := playRandom(pos, rng, &list, plies, slices.Clone(o.Moves))
				if pos.Outcome() != board.Ongoing || len(moves) != len(o.Moves)+plies {
					continue
				}
				out = append(out, Opening{FEN: o.FEN, Moves: moves, Name: fmt.Sprintf("%s + %s", o.Name, strings.Join(moves[len(o.Moves):], " "))})
				break
			}
		}
	}
	return out
}

// playRandom plays up to plies random legal moves on pos, appending them to
// moves in UCI notation; it stops early when the game ends.
func playRandom(pos *board.Position, rng *rand.Rand, list *board.MoveList, plies int, moves []string) []string {
	for range plies {
		pos.GenerateLegal(list)
		if list.N == 0 {
			break
		}
		m := list.Moves[rng.IntN(list.N)]
		moves = append(moves, m.String())
		pos.MakeMove(m)
	}
	return moves
}
