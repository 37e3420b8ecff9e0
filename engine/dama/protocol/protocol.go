// Package protocol is the draughts engine's text front end (`engine -game
// dama`): it reads one command a line, drives a search.Searcher and answers
// in lines, flushed after each reply, so that a person or a match runner can
// play or analyse a position. The commands:
//
//	position startpos [moves M...]   the start position, then the moves
//	position fen <FEN> [moves M...]  a PDN FEN position, then the moves
//	go depth N | nodes N | movetime MS (any together)
//	                                 search: "info depth D score S nodes N pv M..."
//	                                 after each iteration (and once more, with the
//	                                 result, when a limit cuts one short), then
//	                                 "bestmove M", or "bestmove none" when the side
//	                                 to move has no move
//	perft N                          "M: count" per legal move, then "Nodes searched: N"
//	d                                the board, then "fen <FEN>"
//	newgame                          the start position, the search's memory cleared
//	isready                          "readyok" (as in UCI, for match runners)
//	quit                             end
//
// Moves are in standard notation (22-18, 27x18x9x2); scores are in
// centi-men (a man is 100) from the side to move's view, a win in n plies
// ±(32000 − n). A line that cannot be carried out is answered with one line
// "error: <what was wrong>" and the loop goes on; a position command that
// fails leaves no position, so that go, perft and d answer with an error
// rather than use some other position.
package protocol

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"chessforge/engine/dama"
	"chessforge/engine/dama/search"
)

// HashMiB is the size of a session's transposition table.
const HashMiB = 16

// MaxPerftDepth is the deepest perft the perft command runs.
const MaxPerftDepth = 20

// Session is one conversation: a position and a Searcher, answering on out.
type Session struct {
	out      *bufio.Writer
	searcher *search.Searcher
	pos      *dama.Position
	// posErr is why the last position command failed; while it is set
	// there is no position (pos is nil).
	posErr error
}

// NewSession returns a session at the start position writing to out.
func NewSession(out io.Writer) *Session {
	return &Session{out: bufio.NewWriter(out), searcher: search.New(HashMiB), pos: dama.StartPosition()}
}

// Searcher returns the session's searcher (to set its evaluator).
func (s *Session) Searcher() *search.Searcher { return s.searcher }

// Run reads commands from in until quit or the end of input.
func Run(in io.Reader, out io.Writer) error {
	s := NewSession(out)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if !s.Handle(sc.Text()) {
			return nil
		}
	}
	return sc.Err()
}

// Handle carries out one command line and flushes its answer; it returns
// false on quit.
func (s *Session) Handle(line string) bool {
	defer s.out.Flush()
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return true
	}
	var err error
	switch cmd, args := fields[0], fields[1:]; cmd {
	case "position":
		err = s.position(args)
	case "go":
		err = s.goCmd(args)
	case "perft":
		err = s.perft(args)
	case "d":
		err = s.display(args)
	case "newgame":
		err = noArgs(cmd, args)
		if err == nil {
			s.searcher.Clear()
			s.pos, s.posErr = dama.StartPosition(), nil
		}
	case "isready":
		if err = noArgs(cmd, args); err == nil {
			fmt.Fprintln(s.out, "readyok")
		}
	case "quit":
		return false
	default:
		err = fmt.Errorf("unknown command %q (want position, go, perft, d, newgame, isready or quit)", cmd)
	}
	if err != nil {
		fmt.Fprintf(s.out, "error: %v\n", err)
	}
	return true
}

func noArgs(cmd string, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", cmd, strings.Join(args, " "))
	}
	return nil
}

// position sets the position: startpos or fen <FEN>, then optional moves.
// On failure there is no position until the next valid one.
func (s *Session) position(args []string) error {
	pos, err := parsePosition(args)
	if err != nil {
		s.pos, s.posErr = nil, err
		return fmt.Errorf("position: %w", err)
	}
	s.pos, s.posErr = pos, nil
	return nil
}

func parsePosition(args []string) (*dama.Position, error) {
	if len(args) == 0 {
		return nil, errors.New(`want "startpos" or "fen <FEN>", then optionally "moves M..."`)
	}
	var pos *dama.Position
	rest := args[1:]
	switch args[0] {
	case "startpos":
		pos = dama.StartPosition()
	case "fen":
		n := len(rest)
		for i, a := range rest {
			if a == "moves" {
				n = i
				break
			}
		}
		if n == 0 {
			return nil, errors.New("fen needs a PDN FEN (W:W21-32:B1-12)")
		}
		var err error
		if pos, err = dama.ParseFEN(strings.Join(rest[:n], " ")); err != nil {
			return nil, err
		}
		rest = rest[n:]
	default:
		return nil, fmt.Errorf(`want "startpos" or "fen <FEN>", got %q`, args[0])
	}
	if len(rest) == 0 {
		return pos, nil
	}
	if rest[0] != "moves" {
		return nil, fmt.Errorf(`want "moves" after the position, got %q`, rest[0])
	}
	for i, text := range rest[1:] {
		m, err := pos.ParseMove(text)
		if err != nil {
			return nil, fmt.Errorf("moves: move %d: %w", i+1, err)
		}
		pos.MakeMove(m)
	}
	return pos, nil
}

// current returns the position to search, or why there is none.
func (s *Session) current(cmd string) (*dama.Position, error) {
	if s.pos == nil {
		return nil, fmt.Errorf("%s: no valid position (%v); send a valid position first", cmd, s.posErr)
	}
	return s.pos, nil
}

// goCmd searches the position within the limits given and answers with
// info lines and the best move.
func (s *Session) goCmd(args []string) error {
	var lim search.Limits
	if len(args) == 0 {
		return errors.New("go: want depth N, nodes N or movetime MS")
	}
	for i := 0; i < len(args); i += 2 {
		switch args[i] {
		case "depth", "nodes", "movetime":
		default:
			return fmt.Errorf("go: unknown limit %q (want depth, nodes or movetime)", args[i])
		}
		if i+1 >= len(args) {
			return fmt.Errorf("go: %s needs a value", args[i])
		}
		n, err := strconv.ParseUint(args[i+1], 10, 63)
		if err != nil || n == 0 {
			return fmt.Errorf("go: %s needs a whole number above 0, got %q", args[i], args[i+1])
		}
		switch args[i] {
		case "depth":
			if n > search.MaxPly-1 {
				return fmt.Errorf("go: depth %d is beyond the deepest search, %d", n, search.MaxPly-1)
			}
			lim.Depth = int(n)
		case "nodes":
			lim.Nodes = n
		case "movetime":
			lim.Time = time.Duration(n) * time.Millisecond
		}
	}
	pos, err := s.current("go")
	if err != nil {
		return err
	}
	s.searcher.Report = s.info
	res := s.searcher.Search(pos, lim)
	fmt.Fprintf(s.out, "bestmove %s\n", res.Best) // NullMove writes "none"
	return nil
}

// info writes one iteration's report.
func (s *Session) info(in search.Info) {
	fmt.Fprintf(s.out, "info depth %d score %d nodes %d pv", in.Depth, in.Score, in.Nodes)
	for _, m := range in.PV {
		s.out.WriteByte(' ')
		s.out.WriteString(m.String())
	}
	s.out.WriteByte('\n')
	s.out.Flush()
}

// perft counts the move sequences of a depth below each legal move.
func (s *Session) perft(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("perft: want one depth, 1 to %d", MaxPerftDepth)
	}
	depth, err := strconv.Atoi(args[0])
	if err != nil || depth < 1 || depth > MaxPerftDepth {
		return fmt.Errorf("perft: depth must be a whole number from 1 to %d, got %q", MaxPerftDepth, args[0])
	}
	pos, err := s.current("perft")
	if err != nil {
		return err
	}
	total := pos.Divide(depth, func(m dama.Move, n uint64) {
		fmt.Fprintf(s.out, "%s: %d\n", m, n)
	})
	fmt.Fprintf(s.out, "Nodes searched: %d\n", total)
	return nil
}

// display writes the board and its FEN.
func (s *Session) display(args []string) error {
	if err := noArgs("d", args); err != nil {
		return err
	}
	pos, err := s.current("d")
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "%sfen %s\n", pos, pos.FEN())
	return nil
}
