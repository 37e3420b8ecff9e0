// Command damagames writes labelled Italian draughts positions for the
// tuner's tests: games of the draughts search against itself at a fixed
// node count from seeded random openings, every position of a game on its
// own line as `PDN-FEN [result]`, the result White's (1.0, 0.5, 0.0), game
// after game. It made tuner/testdata/dama-games.txt:
//
//	go run ./tuner/internal/damagames -games 50 -nodes 2000 -seed 1 > tuner/testdata/dama-games.txt
//
// (with the search and evaluation of its commit: another search plays
// other games)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"chessforge/engine/dama"
	"chessforge/engine/dama/search"
)

func main() {
	games := flag.Int("games", 50, "games to play")
	nodes := flag.Uint64("nodes", 2000, "nodes searched per move")
	seed := flag.Uint64("seed", 1, "seed of the random openings")
	opening := flag.Int("opening", 6, "random plies at most before the search plays")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "# %d games of the draughts search at %d nodes a move, %d random opening plies at most, seed %d (tuner/internal/damagames)\n",
		*games, *nodes, *opening, *seed)
	rng := rand.New(rand.NewPCG(*seed, 19))
	s := search.New(4)
	var l dama.MoveList
	for range *games {
		s.Clear()
		p := dama.StartPosition()
		var fens []string
		random := 2 + rng.IntN(max(1, *opening-1))
		for ply := 0; p.Outcome() == dama.Ongoing && ply < 400; ply++ {
			fens = append(fens, p.FEN())
			var m dama.Move
			if ply < random {
				p.GenerateMoves(&l)
				m = l.At(rng.IntN(l.Len()))
			} else {
				m = s.Search(p, search.Limits{Nodes: *nodes}).Best
			}
			p.MakeMove(m)
		}
		result := "0.5"
		if p.Outcome() == dama.NoMoves {
			result = "1.0"
			if p.SideToMove() == dama.White {
				result = "0.0"
			}
		}
		for _, f := range fens {
			fmt.Fprintf(w, "%s [%s]\n", f, result)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, strings.TrimSpace(err.Error()))
		os.Exit(1)
	}
}
