// Command engine is chessforge's UCI chess engine. Run it without arguments
// to speak UCI on standard input and output; `engine bench [depth]` searches
// the bench positions and prints "N nodes N nps" last; `engine -h` prints
// its usage. A wrong command line exits with status 2 and one line on
// standard error saying what was wrong.
package main

import (
	"fmt"
	"io"
	"os"

	"chessforge/engine/search"
	"chessforge/engine/uci"
)

var usage = fmt.Sprintf(`usage: engine [bench [depth]]

  engine                speak UCI on standard input and output (for GUIs and match runners)
  engine bench [depth]  search the bench positions to depth (default %d, 1 to %d);
                        the last line is "N nodes N nps"
  engine -h, --help     print this help

Beside the standard UCI commands the engine answers "go perft N", "d" and "bench".
`, search.DefaultBenchDepth, uci.MaxBenchDepth)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command with its arguments and streams; it returns the exit
// status: 0, 1 for an input error in UCI mode, 2 for a wrong command line.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if err := uci.Run(stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "engine:", err)
			return 1
		}
		return 0
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "bench":
		cmd := "bench"
		switch len(args) {
		case 1:
		case 2:
			if _, err := uci.ParseBenchDepth(args[1]); err != nil {
				return usageError(stderr, "bench: %v", err)
			}
			cmd += " " + args[1]
		default:
			return usageError(stderr, "bench takes one argument at most, the depth; got %d", len(args)-1)
		}
		s := uci.NewSession(stdout)
		s.Handle(cmd)
		s.Wait()
		return 0
	default:
		return usageError(stderr, "unknown command %q (without arguments the engine speaks UCI on standard input; engine -h for usage)", args[0])
	}
}

// usageError writes "engine: " and the message as one line to stderr and
// returns the exit status of a usage error, 2.
func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "engine: "+format+"\n", args...)
	return 2
}
