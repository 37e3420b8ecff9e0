package eval_test

import (
	"fmt"
	"math"

	"chessforge/engine/board"
	"chessforge/engine/eval"
)

// A tuner's view of one position: its coefficients, and the evaluation
// they give under the current weights and under changed ones.
func ExampleTracer_Trace() {
	p, _ := board.ParseFEN("4k3/8/3P4/8/8/8/8/4K3 w - - 0 1")
	var tr eval.Tracer
	c := tr.Trace(p)
	w := eval.Weights()
	fmt.Println(eval.Evaluate(p) == int(math.Trunc(c.Eval(w))))

	// Double the endgame bonus of a passed pawn on the sixth: the
	// evaluation rises by that bonus, scaled by the endgame share.
	mask, _ := eval.Select("passed_rank.eg")
	j := 0
	for i, on := range mask {
		if on && eval.ParamName(i) == "passed_rank[rank6].eg" {
			j = i
		}
	}
	before := c.Eval(w)
	w[j] *= 2
	fmt.Println(c.Eval(w)-before == eval.Weights()[j]*float64(eval.PhaseMax-c.Phase)/eval.PhaseMax)
	// Output:
	// true
	// true
}
