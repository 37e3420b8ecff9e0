// Command engine is chessforge's UCI chess engine. Run it without arguments
// to speak UCI on standard input and output. Given arguments, it runs each
// as one UCI command line, in order, each to its end, then exits, as
// OpenBench's client calls engines: `engine bench` searches the bench
// positions and prints "N nodes N nps" last (`engine bench 10`, the depth as
// a second argument, still works), `engine "genfens 64 seed 7 book None"
// quit` prints 64 opening positions as "info string genfens FEN" lines, and
// `engine "setoption name EvalFile value net.nnue" bench quit` benches
// another network. `engine -h` prints its usage. `engine -game dama` is the
// Italian draughts engine instead, speaking the text protocol of package
// engine/dama/protocol (and `engine -game dama bench [depth]` its bench). A
// wrong command line exits with status 2 and one line on standard error
// saying what was wrong, before any command runs.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"chessforge/encoder"
	"chessforge/engine/dama/protocol"
	damasearch "chessforge/engine/dama/search"
	"chessforge/engine/genfens"
	"chessforge/engine/search"
	"chessforge/engine/uci"
)

var usage = fmt.Sprintf(`usage: engine [-game chess|dama] [-param NAME=VALUE]... [COMMAND... | -params]

  engine                speak UCI on standard input and output (for GUIs and match runners)
  engine COMMAND...     run each argument as a UCI command line, in order, each to its end,
                        then exit (as OpenBench calls engines); quit ends them early, and a
                        search needs an end: engine "position startpos" "go depth 10"
  engine bench [depth]  search the bench positions to depth (default %d, 1 to %d);
                        the last line is "N nodes N nps"
  engine "genfens N seed S book FILE|None"
                        print N opening positions from seed S, from random plies played
                        from the start position or from lines of the EPD book FILE, as
                        "info string genfens FEN" lines (OpenBench's datagen workloads)
  engine -param NAME=VALUE
                        search with a search parameter set to VALUE (repeatable; for tuners
                        such as bin/spsa; chess only)
  engine -params        list the search parameters: name, default, lowest and highest value
  engine -game dama     play Italian draughts instead, speaking the draughts text protocol
                        (position startpos|fen F [moves ...], go depth N|nodes N|movetime MS,
                        perft N, d, newgame, isready, quit); -game dama bench [depth] is its bench
                        (default depth %d); -game chess (the default) is the UCI engine
  engine -h, --help     print this help

Beside the standard UCI commands the engine answers "go perft N", "d", "bench [depth]"
and "genfens N seed S book FILE|None".
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
	speak func(stdin io.Reader, stdout io.Writer) error // the protocol, without arguments
	// commands, where set, runs the arguments as protocol commands; the
	// fields below are for the engines without it, which take bench only.
	commands   func(args []string, stdout, stderr io.Writer) int
	benchDepth int                                     // the bench's depth when none is given
	bench      func(depth int, stdout io.Writer) error // runs the bench, its last line "N nodes N nps"
	unknown    string                                  // the usage error for an unknown command, a %q for it
}

// chessEngine speaks UCI, and runs UCI commands given as arguments.
var chessEngine = engine{
	speak:    uci.Run,
	commands: runCommands,
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
	}
	if e.commands != nil {
		return e.commands(args, stdout, stderr)
	}
	switch args[0] {
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

// unknownCommand is the usage error for an argument that is no UCI command.
const unknownCommand = "unknown command %q (without arguments the engine speaks UCI on standard input; engine -h for usage)"

// runCommands runs the arguments as UCI command lines (commandLines), in
// order, each to its end: a search to its limit, a bench or a genfens to
// its last line. It stops at quit. Every line is checked first, so that a
// wrong one is a usage error before anything runs. A genfens that fails
// (an unreadable book) ends the run with status 1.
func runCommands(args []string, stdout, stderr io.Writer) int {
	lines := commandLines(args)
	for _, l := range lines { // the words that are no command first: `engine go depth 3`
		if f := strings.Fields(l); len(f) > 0 && !uci.IsCommand(f[0]) {
			return usageError(stderr, unknownCommand, l)
		}
	}
	for _, l := range lines {
		if err := checkCommand(l); err != nil {
			return usageError(stderr, "%v", err)
		}
	}
	s := uci.NewSession(stdout)
	for _, l := range lines {
		f := strings.Fields(l)
		switch f[0] {
		case "quit":
			return 0
		case "genfens":
			if err := s.Genfens(f[1:]); err != nil {
				fmt.Fprintln(stderr, "engine: genfens:", err)
				return 1
			}
		default:
			s.Handle(l)
			s.Wait()
		}
	}
	return 0
}

// commandLines makes the arguments UCI command lines: each argument is one,
// except that a bare "bench" followed by an argument that is no command
// takes it as its depth (`engine bench 10`).
func commandLines(args []string) []string {
	var lines []string
	for i := 0; i < len(args); i++ {
		l := args[i]
		if strings.TrimSpace(l) == "bench" && i+1 < len(args) && !uci.IsCommand(firstWord(args[i+1])) {
			l = "bench " + args[i+1]
			i++
		}
		lines = append(lines, l)
	}
	return lines
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// checkCommand reports what is wrong with a command line given as an
// argument: no UCI command, a bench or genfens with wrong arguments, or a
// search that nothing would end.
func checkCommand(line string) error {
	f := strings.Fields(line)
	if len(f) == 0 {
		return fmt.Errorf("an empty command %q", line)
	}
	if !uci.IsCommand(f[0]) {
		return fmt.Errorf(unknownCommand, line)
	}
	switch f[0] {
	case "bench":
		if len(f) > 2 {
			return fmt.Errorf("bench takes one argument at most, the depth; got %d", len(f)-1)
		}
		if len(f) == 2 {
			if _, err := uci.ParseBenchDepth(f[1]); err != nil {
				return fmt.Errorf("bench: %v", err)
			}
		}
	case "genfens":
		if _, err := genfens.Parse(f[1:]); err != nil {
			return fmt.Errorf("genfens: %v", err)
		}
	case "go":
		ends := slices.ContainsFunc(f[1:], func(w string) bool {
			return slices.Contains([]string{"depth", "nodes", "softnodes", "movetime", "mate", "wtime", "btime", "perft"}, w)
		})
		if !ends || slices.Contains(f, "infinite") || slices.Contains(f, "ponder") {
			return fmt.Errorf("%q: a search on the command line needs an end (depth, nodes, softnodes, movetime, mate, a clock or perft), and neither infinite nor ponder", line)
		}
	}
	return nil
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
