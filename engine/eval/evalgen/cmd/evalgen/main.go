// Command evalgen rewrites engine/eval/weights_gen.go from the weights and
// provenance compiled into package eval; with unchanged weights the output
// is byte for byte the file it read. Run by `go generate ./engine/eval/`.
//
// Usage:
//
//	evalgen [-out weights_gen.go]
package main

import (
	"flag"
	"fmt"
	"os"

	"chessforge/engine/eval"
	"chessforge/engine/eval/evalgen"
)

func main() {
	out := flag.String("out", "weights_gen.go", "file to write")
	flag.Parse()
	if err := evalgen.WriteFile(*out, eval.Weights(), eval.CurrentProvenance()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
