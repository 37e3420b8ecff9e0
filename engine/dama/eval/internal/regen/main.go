// Command regen rewrites engine/dama/eval/weights_gen.go from the weights
// and provenance compiled into the package; with unchanged weights the
// output is byte for byte the file it read. Run by
// `go generate ./engine/dama/eval/`.
package main

import (
	"flag"
	"fmt"
	"os"

	"chessforge/engine/dama/eval"
)

func main() {
	out := flag.String("out", "weights_gen.go", "file to write")
	flag.Parse()
	if err := eval.WriteWeights(*out, eval.Default().Vector(), eval.CurrentProvenance()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
