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
	"strconv"
	"strings"

	"chessforge/encoder"
	"chessforge/engine/dama/protocol"
	damasearch "chessforge/engine/dama/search"
	"chessforge/engine/search"
	"chessforge/engine/uci"
)

var usage = fmt.Sprintf(`usage: engine [-game chess|dama] [-param NAME=VALUE]... [bench [depth] | -params]

  engine                speak UCI on standard input and output (for GUIs and match runners)
  engine bench [depth]  search the bench positions to depth (default %d, 1 to %d);
                        the last line is "N nodes N nps"
  engine -param NAME=VALUE
                        search with a search parameter set to VALUE (repeatable; for tuners
                        such as bin/spsa; chess only)
  engine -params        list the search parameters: name, default, lowest and highest value
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
	e := chessEngine
	if game == encoder.GameDama {
		e = damaEngine
	}
	for len(args) > 0 && (args[0] == "-param" || args[0] == "--param") {
		if game != encoder.GameChess {
			return usageError(stderr, "-param: the search parameters are the chess engine's")
		}
		if len(args) < 2 {
			return usageError(stderr, "-param needs NAME=VALUE")
		}
		if err := setParam(args[1]); err != nil {
			return usageError(stderr, "-param: %v", err)
		}
		args = args[2:]
	}
	if game == encoder.GameChess && len(args) == 1 && (args[0] == "-params" || args[0] == "--params") {
		for _, p := range search.ParamList() {
			fmt.Fprintf(stdout, "%s %d %d %d\n", p.Name, p.Default, p.Min, p.Max)
		}
		return 0
	}
	return e.run(args, stdin, stdout, stderr)
}

// setParam sets a search parameter from its NAME=VALUE.
func setParam(assign string) error {
	name, value, ok := strings.Cut(assign, "=")
	if !ok {
		return fmt.Errorf("%q: want NAME=VALUE", assign)
	}
	n, err := strconv.Atoi(value)
	if err != nil {
		return fmt.Errorf("%s: value %q is not a whole number", name, value)
	}
	return search.SetParam(name, n)
}

// engine is what the command does for one game.
type engine struct {
	speak      func(stdin io.Reader, stdout io.Writer) error // the protocol, without arguments
	benchDepth int                                           // the bench's depth when none is given
	bench      func(depth int, stdout io.Writer) error       // runs the bench, its last line "N nodes N nps"
	unknown    string                                        // the usage error for an unknown command, a %q for it
}

// chessEngine speaks UCI.
var chessEngine = engine{
	speak:      uci.Run,
	benchDepth: search.DefaultBenchDepth,
	bench: func(depth int, stdout io.Writer) error {
		s := uci.NewSession(stdout)
		s.Handle(fmt.Sprintf("bench %d", depth))
		s.Wait()
		return nil
	},
	unknown: "unknown command %q (without arguments the engine speaks UCI on standard input; engine -h for usage)",
}

// damaEngine speaks the draughts text protocol.
var damaEngine = engine{
	speak:      protocol.Run,
	benchDepth: damasearch.DefaultBenchDepth,
	bench: func(depth int, stdout io.Writer) error {
		r, err := damasearch.Bench(depth, stdout)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%d nodes %d nps\n", r.Nodes, r.NPS())
		return err
	},
	unknown: "-game dama: unknown command %q (without arguments the engine speaks the draughts protocol on standard input; engine -h for usage)",
}

// run is the engine with the arguments after -game: none speaks the
// protocol, "bench [depth]" runs the bench, -h prints the usage.
func (e engine) run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if err := e.speak(stdin, stdout); err != nil {
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
		depth := e.benchDepth
		switch len(args) {
		case 1:
		case 2:
			n, err := uci.ParseBenchDepth(args[1])
			if err != nil {
				return usageError(stderr, "bench: %v", err)
			}
			depth = n
		default:
			return usageError(stderr, "bench takes one argument at most, the depth; got %d", len(args)-1)
		}
		if err := e.bench(depth, stdout); err != nil {
			fmt.Fprintln(stderr, "engine:", err)
			return 1
		}
		return 0
	default:
		return usageError(stderr, e.unknown, args[0])
	}
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
