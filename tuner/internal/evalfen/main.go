// Command evalfen prints eval.Evaluate, from White's side, for every FEN on
// its input, one number a line. The tuner's tests build it with a freshly
// generated weights file laid over engine/eval/weights_gen.go (go run
// -overlay) to show that the file compiles and evaluates as the tuner
// computed.
package main

import (
	"bufio"
	"fmt"
	"os"

	"chessforge/engine/board"
	"chessforge/engine/eval"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for n := 1; sc.Scan(); n++ {
		p, err := board.ParseFEN(sc.Text())
		if err != nil {
			fmt.Fprintf(os.Stderr, "evalfen: line %d: %v\n", n, err)
			os.Exit(1)
		}
		v := eval.Evaluate(p)
		if p.SideToMove() == board.Black {
			v = -v
		}
		fmt.Fprintln(out, v)
	}
}
