// Command engine is chessforge's UCI chess engine. Run it without arguments
// to speak UCI on standard input and output; `engine bench [depth]` searches
// the bench positions and prints "N nodes N nps" last; `engine -h` prints
// its usage. `engine -game dama` is the Italian draughts engine instead,
// speaking the text protocol of package engine/dama/protocol (and `engine
// -game dama bench [depth]` its bench). A wrong command line exits with
// status 2 and one line on standard error saying what was wrong.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"chessforge/encoder"
	"chessforge/engine/dama/protocol"
	damasearch "chessforge/engine/dama/search"
	"chessforge/engine/search"
	"chessforge/engine/uci"
)

var usage = fmt.Sprintf(`usage: engine [-game chess|dama] [bench [depth]]

  engine                speak UCI on standard input and output (for GUIs and match runners)
  engine bench [depth]  search the bench positions to depth (default %d, 1 to %d);
                        the last line is "N nodes N nps"
  engine -game dama     play Italian draughts instead, speaking the draughts text protocol
                        (position startpos|fen F [moves ...], go depth N|nodes N|movetime MS,
                        perft N, d, newgame, isready, quit); -game dama bench [depth] is its bench
                        (default depth %d); -game chess (the default) is the UCI engine
  engine -h, --help     print this help

Beside the standard UCI commands the engine answers "go perft N", "d" and "bench".
`, search.DefaultBenchDepth, uci.MaxBenchDepth, damasearch.DefaultBenchDepth)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command with its arguments and streams; it returns the exit
// status: 0, 1 for an input error in UCI mode, 2 for a wrong command line.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	game, args, err := gameFlag(args)
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	if game == encoder.GameDama {
		return runDama(args, stdin, stdout, stderr)
	}
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
		depth, err := benchDepth(args[1:], search.DefaultBenchDepth)
		if err != nil {
			return usageError(stderr, "%v", err)
		}
		s := uci.NewSession(stdout)
		s.Handle(fmt.Sprintf("bench %d", depth))
		s.Wait()
		return 0
	default:
		return usageError(stderr, "unknown command %q (without arguments the engine speaks UCI on standard input; engine -h for usage)", args[0])
	}
}

// benchDepth reads the arguments after "bench", of either game: none gives
// def, one is the depth (see uci.ParseBenchDepth). The error is a usage
// error's message.
func benchDepth(args []string, def int) (int, error) {
	switch len(args) {
	case 0:
		return def, nil
	case 1:
		n, err := uci.ParseBenchDepth(args[0])
		if err != nil {
			return 0, fmt.Errorf("bench: %w", err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("bench takes one argument at most, the depth; got %d", len(args))
}

// usageError writes "engine: " and the message as one line to stderr and
// returns the exit status of a usage error, 2.
func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "engine: "+format+"\n", args...)
	return 2
}

// gameFlag takes a leading -game NAME (or -game=NAME, with one or two
// dashes) off args and returns the game (the names a dataset's
// chessforge.game holds), chess without one.
func gameFlag(args []string) (game string, rest []string, err error) {
	if len(args) == 0 {
		return encoder.GameChess, args, nil
	}
	name, value, hasValue := strings.Cut(strings.TrimPrefix(args[0], "-"), "=")
	if name != "-game" && name != "game" {
		return encoder.GameChess, args, nil
	}
	rest = args[1:]
	if !hasValue {
		if len(rest) == 0 {
			return "", nil, fmt.Errorf("-game needs a value: %s or %s", encoder.GameChess, encoder.GameDama)
		}
		value, rest = rest[0], rest[1:]
	}
	switch value {
	case encoder.GameChess, encoder.GameDama:
		return value, rest, nil
	}
	return "", nil, fmt.Errorf("-game %q: want %s or %s", value, encoder.GameChess, encoder.GameDama)
}

// runDama is the draughts engine: the text protocol on stdin and stdout,
// or its bench.
func runDama(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if err := protocol.Run(stdin, stdout); err != nil {
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
		depth, err := benchDepth(args[1:], damasearch.DefaultBenchDepth)
		if err != nil {
			return usageError(stderr, "%v", err)
		}
		r, err := damasearch.Bench(depth, stdout)
		if err != nil {
			fmt.Fprintln(stderr, "engine:", err)
			return 1
		}
		fmt.Fprintf(stdout, "%d nodes %d nps\n", r.Nodes, r.NPS())
		return 0
	default:
		return usageError(stderr, "-game dama: unknown command %q (without arguments the engine speaks the draughts protocol on standard input; engine -h for usage)", args[0])
	}
}
