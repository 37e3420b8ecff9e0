// Command engine is chessforge's UCI chess engine. Run it without arguments
// to speak UCI on standard input and output; `engine bench [depth]` searches
// the bench positions and prints "N nodes N nps" last.
package main

import (
	"fmt"
	"os"
	"strings"

	"chessforge/engine/uci"
)

func main() {
	if len(os.Args) > 1 {
		// Command-line arguments run as one UCI command (e.g. "bench 13"), then exit.
		s := uci.NewSession(os.Stdout)
		s.Handle(strings.Join(os.Args[1:], " "))
		s.Wait()
		return
	}
	if err := uci.Run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "engine:", err)
		os.Exit(1)
	}
}
