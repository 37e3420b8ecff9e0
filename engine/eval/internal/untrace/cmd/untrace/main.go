// Command untrace writes eval_untraced_gen.go, the evaluation's methods
// without tracing, in package eval's directory (see package untrace).
// `go generate ./engine/eval/` runs it.
//
// Usage:
//
//	untrace [-dir engine/eval]
package main

import (
	"flag"
	"fmt"
	"os"

	"chessforge/engine/eval/internal/untrace"
)

func main() {
	dir := flag.String("dir", ".", "package eval's directory")
	flag.Parse()
	if err := untrace.WriteFile(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "untrace:", err)
		os.Exit(1)
	}
}
