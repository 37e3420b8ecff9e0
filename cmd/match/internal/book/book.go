// Package book supplies the opening positions of a match: read from an EPD
// or PGN file, taken from a built-in list of balanced openings, or made of
// random legal plies.
package book

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"chessforge/engine/board"
)

// Opening is a starting point for a game pair: a position (the standard one
// when FEN is empty) and moves played from it, in UCI notation.
type Opening struct {
	FEN   string
	Moves []string
	Name  string // where it came from, e.g. "book.epd:12" or "Ruy Lopez"
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

// Load reads an opening book: PGN when the name ends in .pgn, EPD when it
// ends in .epd; otherwise PGN if the first non-blank line starts with '[' or
// a move number, EPD if not.
func Load(path string) ([]Opening, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	var books []Opening
	switch {
	case strings.HasSuffix(strings.ToLower(path), ".pgn"):
		books, err = ReadPGN(bytes.NewReader(data), name)
	case strings.HasSuffix(strings.ToLower(path), ".epd"):
		books, err = ReadEPD(bytes.NewReader(data), name)
	case looksLikePGN(data):
		books, err = ReadPGN(bytes.NewReader(data), name)
	default:
		books, err = ReadEPD(bytes.NewReader(data), name)
	}
	if err != nil {
		return nil, err
	}
	if len(books) == 0 {
		return nil, fmt.Errorf("%s: no openings found", path)
	}
	return books, nil
}

func looksLikePGN(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		return line[0] == '[' || strings.HasPrefix(line, "1.")
	}
	return false
}

// ReadEPD reads one position per line: the first four FEN fields, then
// optionally the halfmove and fullmove counters, then any EPD operations
// (an `id "..."` operation names the opening). Blank lines and lines
// starting with '#' are skipped. name labels errors and openings.
func ReadEPD(r io.Reader, name string) ([]Opening, error) {
	var out []Opening
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) < 4 {
			return nil, fmt.Errorf("%s:%d: want at least 4 FEN fields, got %d", name, line, len(fields))
		}
		fen := strings.Join(fields[:4], " ")
		if len(fields) >= 6 && isUint(fields[4]) && isUint(fields[5]) {
			fen += " " + fields[4] + " " + fields[5]
		}
		o := Opening{FEN: fen, Name: fmt.Sprintf("%s:%d", name, line)}
		if i := strings.Index(text, ` id "`); i >= 0 {
			rest := text[i+5:]
			if j := strings.IndexByte(rest, '"'); j >= 0 {
				o.Name = rest[:j]
			}
		}
		if _, err := o.Position(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, o)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

func isUint(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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
		moves := make([]string, 0, plies)
		for len(moves) < plies {
			pos.GenerateLegal(&list)
			if list.N == 0 {
				break
			}
			m := list.Moves[rng.IntN(list.N)]
			moves = append(moves, m.String())
			pos.MakeMove(m)
		}
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
				moves := slices.Clone(o.Moves)
				for range plies {
					pos.GenerateLegal(&list)
					if list.N == 0 {
						break
					}
					m := list.Moves[rng.IntN(list.N)]
					moves = append(moves, m.String())
					pos.MakeMove(m)
				}
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
