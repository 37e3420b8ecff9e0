package matchtest

import (
	"fmt"
	"hash/fnv"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"chessforge/engine/dama"
)

// DamaEngine runs a fake draughts engine speaking the text protocol of
// bin/engine -game dama on in and out until "quit" or the end of its input,
// and returns its exit status. A line it does not know ("isready" among
// them) gets "error: unknown command ...", as the real front end answers.
// It plays random legal moves, seeded by the position's FEN so that games
// replay exactly, and reports the material balance (a man 100, a king 300)
// from the side to move as its score. Modes, args[0]:
//
//	random     random moves
//	shuffle    takes back its own previous move whenever that is legal (two
//	           lone kings shuffling this way repeat the position), else random
//	illegal N  its N-th move of each game is "S-S" (S the square of a piece that can move)
//	none N     answers "bestmove none" to its N-th move of each game
//	silent N   sends an info line but never a bestmove for its N-th move
//	refuse N   answers its N-th go with "error: ..." and no bestmove
//	crash N    exits with status 3 when asked for its N-th move of a game
func DamaEngine(args []string, in io.Reader, out io.Writer) int {
	f := newFake(args, out)
	mode, n := f.mode, f.n
	pos := dama.StartPosition()
	var moves []string
	moveNo := 0
	return f.serve(in, func(fields []string) (status int, stop bool) {
		switch fields[0] {
		case "newgame":
			moveNo = 0
		case "position":
			p, mv, err := damaPosition(fields[1:])
			if err != nil {
				f.say("error: %v", err)
				return 0, false
			}
			pos, moves = p, mv
		case "go":
			moveNo++
			var list dama.MoveList
			pos.GenerateMoves(&list)
			if list.Len() == 0 {
				f.say("bestmove none")
				return 0, false
			}
			h := fnv.New64a()
			h.Write([]byte(pos.FEN()))
			rng := rand.New(rand.NewPCG(h.Sum64(), uint64(len(moves))))
			m := list.At(rng.IntN(list.Len()))
			switch {
			case mode == "illegal" && moveNo == n:
				f.say("bestmove %d-%d", m.From().Number(), m.From().Number())
				return 0, false
			case mode == "none" && moveNo == n:
				f.say("bestmove none")
				return 0, false
			case mode == "silent" && moveNo == n:
				f.say("info depth 1 score 0 nodes 1 pv %v", m)
				// Sleep rather than block on select{}: the runtime would
				// call a lone blocked goroutine a deadlock and exit.
				time.Sleep(time.Hour)
			case mode == "refuse" && moveNo == n:
				f.say("error: go: refused on purpose")
				return 0, false
			case mode == "crash" && moveNo == n:
				fmt.Fprintln(os.Stderr, "fake draughts engine: crashing on purpose")
				return 3, true
			case mode == "shuffle" && len(moves) >= 2:
				if back, ok := takeBack(pos, moves[len(moves)-2]); ok {
					m = back
				}
			}
			f.say("info depth 1 score %d nodes 1 pv %v", damaMaterial(pos), m)
			f.say("bestmove %v", m)
		default:
			f.say("error: unknown command %s", fields[0])
		}
		return 0, false
	})
}

// takeBack returns the move that undoes a simple move ("22-18" gives
// "18-22") when it is legal in pos.
func takeBack(pos *dama.Position, prev string) (dama.Move, bool) {
	from, to, ok := strings.Cut(prev, "-")
	if !ok {
		return dama.NullMove, false
	}
	m, err := pos.ParseMove(to + "-" + from)
	return m, err == nil
}

// damaPosition reads the arguments of a position command: "startpos" or
// "fen F", then optionally "moves" and moves.
func damaPosition(f []string) (*dama.Position, []string, error) {
	var pos *dama.Position
	switch {
	case len(f) > 0 && f[0] == "startpos":
		pos, f = dama.StartPosition(), f[1:]
	case len(f) > 1 && f[0] == "fen":
		var err error
		if pos, err = dama.ParseFEN(f[1]); err != nil {
			return nil, nil, err
		}
		f = f[2:]
	default:
		return nil, nil, fmt.Errorf("bad position command %q", f)
	}
	var moves []string
	if len(f) > 0 && f[0] == "moves" {
		moves = slices.Clone(f[1:])
		for _, s := range moves {
			m, err := pos.ParseMove(s)
			if err != nil {
				return nil, nil, err
			}
			pos.MakeMove(m)
		}
	}
	return pos, moves, nil
}

// damaMaterial returns the material balance for the side to move, a man 100
// and a king 300.
func damaMaterial(pos *dama.Position) int {
	us, them := pos.SideToMove(), pos.SideToMove().Other()
	return 100*(bits.OnesCount32(pos.Men(us))-bits.OnesCount32(pos.Men(them))) +
		300*(bits.OnesCount32(pos.Kings(us))-bits.OnesCount32(pos.Kings(them)))
}
