// Package genfens makes the opening positions of OpenBench's datagen
// workloads. OpenBench's client asks each engine process for
// "genfens N seed S book B": N positions drawn from seed S, starting from
// the start position (B is None) or from lines of the EPD book B.
//
// Each position is a random playout: StartPlies or StartPlies+1 random
// legal moves from the start position, or BookPlies or BookPlies+1 from a
// random line of the book. A position is kept when it is not over (the side
// to move has a legal move, there is mating material, the fifty-move rule
// has not struck) and a search to VerifyDepth with the given evaluation
// scores it within MaxScore centipawns of equal; otherwise another playout
// is tried. The same seed, book and build give the same positions.
package genfens

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"chessforge/engine/board"
	"chessforge/engine/nnue"
	"chessforge/engine/search"
)

// The playouts and the check that keeps a position.
const (
	StartPlies  = 8   // random plies from the start position: this many or one more
	BookPlies   = 2   // random plies from a book line: this many or one more
	VerifyDepth = 6   // depth of the search that scores each position
	MaxScore    = 400 // centipawns: a position scored further from 0 is dropped
	// MaxTries is how many playouts in a row may fail before Generate
	// gives up (a book of finished or lopsided games).
	MaxTries = 1000
)

// maxTries is MaxTries, lowered by tests.
var maxTries = MaxTries

// Request is one genfens command.
type Request struct {
	N    int    // how many positions
	Seed uint64 // the random seed: the same seed gives the same positions
	Book string // the EPD book of starting positions; "" for the start position
}

// Syntax is the form of the command.
const Syntax = "genfens N seed S book FILE|None"

// Parse reads the arguments of a genfens command, those after the word
// genfens: N seed S book B. B "None" (in any case) is no book.
func Parse(args []string) (Request, error) {
	if len(args) < 5 || args[1] != "seed" || args[3] != "book" {
		return Request{}, fmt.Errorf("want %q, got %q", Syntax, strings.Join(append([]string{"genfens"}, args...), " "))
	}
	var r Request
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return Request{}, fmt.Errorf("N must be a whole number, at least 1, got %q", args[0])
	}
	r.N = n
	if r.Seed, err = strconv.ParseUint(args[2], 10, 64); err != nil {
		return Request{}, fmt.Errorf("seed must be a whole number from 0 to %d, got %q", uint64(1<<64-1), args[2])
	}
	if !strings.EqualFold(args[4], "none") {
		r.Book = args[4]
	}
	if len(args) > 5 {
		return Request{}, fmt.Errorf("unexpected %q after the book: chessforge's genfens takes no further arguments", strings.Join(args[5:], " "))
	}
	return r, nil
}

// Generate makes the positions of r, scoring them with network net (nil:
// the hand-crafted evaluation), and hands each one's FEN to emit as soon as
// it is found. It fails when the book cannot be read, when a line drawn
// from it is no position, or after MaxTries failed playouts in a row.
func Generate(r Request, net *nnue.Network, emit func(fen string)) error {
	var bk *book
	if r.Book != "" {
		var err error
		if bk, err = openBook(r.Book); err != nil {
			return err
		}
		defer bk.f.Close()
	}
	// The second word of the PCG state is fixed: the seed alone chooses.
	rng := rand.New(rand.NewPCG(r.Seed, 0x67656e66656e73))
	eng := search.New(search.Options{HashMB: 4, Threads: 1, MultiPV: 1})
	eng.SetNetwork(net)
	var list board.MoveList
	for made, failed := 0, 0; made < r.N; {
		if failed == maxTries {
			return fmt.Errorf("%d playouts in a row gave no position that is not over and within %d cp of equal (%d of %d made)", maxTries, MaxScore, made, r.N)
		}
		p, plies := board.NewPosition(), StartPlies+rng.IntN(2)
		if bk != nil {
			var err error
			if p, err = bk.draw(rng); err != nil {
				return err
			}
			plies = BookPlies + rng.IntN(2)
		}
		if !playout(p, plies, rng, &list) || !playable(p) {
			failed++
			continue
		}
		fen := p.FEN()
		eng.Clear() // each verdict depends on its position alone
		res := eng.Search(p, search.Limits{Depth: VerifyDepth}, nil)
		if res.Score > MaxScore || res.Score < -MaxScore {
			failed++
			continue
		}
		emit(fen)
		made, failed = made+1, 0
	}
	return nil
}

// playout plays n random legal moves on p; it reports false when a
// position on the way has none.
func playout(p *board.Position, n int, rng *rand.Rand, list *board.MoveList) bool {
	for range n {
		p.GenerateLegal(list)
		if list.N == 0 {
			return false
		}
		p.MakeMove(list.Moves[rng.IntN(list.N)])
	}
	return true
}

// playable reports whether a game from p goes on: a legal move to play,
// material to mate with, and the fifty-move rule not reached.
func playable(p *board.Position) bool {
	return p.HasLegalMove() && !p.IsInsufficientMaterial() && !p.IsFiftyMoveDraw()
}

// book is an EPD file: the byte offset of each line that holds a
// position, read again when drawn, so that a large book costs little
// memory.
type book struct {
	name  string
	f     *os.File
	lines []int64
}

// openBook indexes the lines of the EPD file name that are neither blank
// nor comments (#).
func openBook(name string) (*book, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("book: %w", err)
	}
	b := &book{name: name, f: f}
	r := bufio.NewReaderSize(f, 1<<16)
	var off, start int64 // where the next chunk and the line it is part of begin
	decided := false     // whether the line's first visible byte was seen
	for {
		chunk, err := r.ReadSlice('\n') // a long line comes in several chunks
		if !decided {
			if t := bytes.TrimLeft(chunk, " \t\r\n\v\f"); len(t) > 0 {
				decided = true
				if t[0] != '#' {
					b.lines = append(b.lines, start)
				}
			}
		}
		off += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		start, decided = off, false
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("book %s: %w", name, err)
		}
	}
	if len(b.lines) == 0 {
		f.Close()
		return nil, fmt.Errorf("book %s: no positions in it", name)
	}
	return b, nil
}

// draw reads a random line of the book as a position.
func (b *book) draw(rng *rand.Rand) (*board.Position, error) {
	off := b.lines[rng.IntN(len(b.lines))]
	line, err := bufio.NewReader(io.NewSectionReader(b.f, off, 1<<62)).ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("book %s: %w", b.name, err)
	}
	p, err := ParseEPD(line)
	if err != nil {
		return nil, fmt.Errorf("book %s: line %d: %w", b.name, b.lineNumber(off), err)
	}
	return p, nil
}

// lineNumber counts the lines before byte offset off, for an error.
func (b *book) lineNumber(off int64) int {
	n := 1
	r := bufio.NewReader(io.NewSectionReader(b.f, 0, off))
	for {
		c, err := r.ReadByte()
		if err != nil {
			return n
		}
		if c == '\n' {
			n++
		}
	}
}

// ParseEPD reads one line of an EPD book: the four position fields of a
// FEN, then either a FEN's halfmove clock and move number or EPD
// operations, of which hmvc and fmvn set the clock and the move number
// (0 and 1 without them).
func ParseEPD(line string) (*board.Position, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 {
		return nil, fmt.Errorf("%q: want an EPD position (placement, side to move, castling, en passant, then operations)", strings.TrimSpace(line))
	}
	halfmove, fullmove := "0", "1"
	rest := fields[4:]
	if len(rest) >= 2 && isNumber(rest[0]) && isNumber(strings.TrimSuffix(rest[1], ";")) {
		halfmove, fullmove = rest[0], strings.TrimSuffix(rest[1], ";")
	} else {
		for op := range strings.SplitSeq(strings.Join(rest, " "), ";") {
			f := strings.Fields(op)
			if len(f) == 2 && f[0] == "hmvc" && isNumber(f[1]) {
				halfmove = f[1]
			}
			if len(f) == 2 && f[0] == "fmvn" && isNumber(f[1]) {
				fullmove = f[1]
			}
		}
	}
	return board.ParseFEN(strings.Join(append(fields[:4:4], halfmove, fullmove), " "))
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}
