// Command evalfen prints the static evaluation, from White's side, for
// every FEN on its input, one number a line: chess's eval.Evaluate, or with
// -game dama the draughts evaluation of a PDN FEN. The tuner's tests build
// it with a freshly generated weights file laid over the committed one (go
// run -overlay) to show that the file compiles and evaluates as the tuner
// computed.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"chessforge/engine/board"
	"chessforge/engine/dama"
	damaeval "chessforge/engine/dama/eval"
	"chessforge/engine/eval"
)

func main() {
	game := flag.String("game", "chess", "chess or dama")
	flag.Parse()
	sc := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for n := 1; sc.Scan(); n++ {
		v, err := evaluate(*game, sc.Text())
		if err != nil {
			fmt.Fprintf(os.Stderr, "evalfen: line %d: %v\n", n, err)
			os.Exit(1)
		}
		fmt.Fprintln(out, v)
	}
}

// evaluate returns the evaluation of fen from White's side.
func evaluate(game, fen string) (int, error) {
	switch game {
	case "chess":
		p, err := board.ParseFEN(fen)
		if err != nil {
			return 0, err
		}
		v := eval.Evaluate(p)
		if p.SideToMove() == board.Black {
			v = -v
		}
		return v, nil
	case "dama":
		p, err := dama.ParseFEN(fen)
		if err != nil {
			return 0, err
		}
		v := damaeval.Evaluate(p)
		if p.SideToMove() == dama.Black {
			v = -v
		}
		return v, nil
	}
	return 0, fmt.Errorf("unknown game %q", game)
}
