// Package uci is the engine's Universal Chess Interface front end: it reads
// commands, drives a search.Engine, and prints what GUIs and match runners
// expect. Malformed or unknown commands get an "info string" saying what was
// wrong, and the engine carries on. A position command that fails (a bad FEN,
// a malformed or illegal move) leaves no position to search: until a valid
// one arrives, go answers with an "info string" naming the problem and
// "bestmove 0000".
package uci

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"chessforge/engine/board"
	"chessforge/engine/genfens"
	"chessforge/engine/nnue"
	"chessforge/engine/search"
)

// Name and Author identify the engine in the uci handshake.
const (
	Name   = "chessforge"
	Author = "the chessforge developers"
)

// Version is the engine version reported by uci and written into datasets.
const Version = "0.1.0"

// Session is one UCI conversation.
type Session struct {
	out    *bufio.Writer
	outMu  sync.Mutex
	engine *search.Engine
	pos    *board.Position
	// posErr is why the last position command failed; while it is set
	// there is no position to search (pos is the last valid one, unused).
	posErr  error
	running sync.WaitGroup
	busy    bool
	// waitStop: an infinite or pondering search holds its bestmove until stop/ponderhit.
	holdMu   sync.Mutex
	hold     bool
	released chan struct{}
	// The evaluation options: Use NNUE, EvalFile (empty: the embedded
	// network) and the network loaded for them, nil until needed.
	useNNUE  bool
	evalFile string
	net      *nnue.Network
}

// DefaultUseNNUE is the default of the Use NNUE option: the embedded
// network evaluates until the option turns it off. It became the default
// once the network beat the hand-crafted evaluation by SPRT (README).
const DefaultUseNNUE = true

// NewSession returns a session writing to out, evaluating as
// DefaultUseNNUE says.
func NewSession(out io.Writer) *Session {
	s := &Session{
		out:     bufio.NewWriter(out),
		engine:  search.New(search.DefaultOptions),
		pos:     board.NewPosition(),
		useNNUE: DefaultUseNNUE,
	}
	s.applyEval(false)
	return s
}

// Run reads commands from in until quit or end of input.
func Run(in io.Reader, out io.Writer) error {
	s := NewSession(out)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if !s.Handle(sc.Text()) {
			break
		}
	}
	s.stopSearch()
	return sc.Err()
}

func (s *Session) printf(format string, args ...any) {
	s.outMu.Lock()
	fmt.Fprintf(s.out, format, args...)
	s.out.Flush()
	s.outMu.Unlock()
}

// Handle executes one command line; it returns false on quit.
func (s *Session) Handle(line string) bool {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return true
	}
	cmd, args := fields[0], fields[1:]
	switch cmd {
	case "uci":
		s.printf("id name %s %s\nid author %s\n", Name, Version, Author)
		s.printf("option name Hash type spin default %d min 1 max 65536\n", search.DefaultOptions.HashMB)
		s.printf("option name Threads type spin default 1 min 1 max 256\n")
		s.printf("option name MultiPV type spin default 1 min 1 max 500\n")
		s.printf("option name Move Overhead type spin default %d min 0 max 5000\n", search.DefaultOptions.MoveOverhead.Milliseconds())
		s.printf("option name Ponder type check default false\n")
		s.printf("option name Clear Hash type button\n")
		s.printf("option name Use NNUE type check default %t\n", DefaultUseNNUE)
		s.printf("option name EvalFile type string default <empty>\n")
		s.printf("uciok\n")
	case "isready":
		s.printf("readyok\n")
	case "ucinewgame":
		s.stopSearch()
		s.engine.Clear()
		s.pos, s.posErr = board.NewPosition(), nil
	case "setoption":
		s.stopSearch()
		s.setOption(args)
	case "position":
		s.stopSearch()
		s.position(args)
	case "go":
		s.stopSearch()
		s.goCmd(args)
	case "stop":
		s.stopSearch()
	case "ponderhit":
		s.engine.PonderHit()
		s.release()
	case "bench":
		s.stopSearch()
		s.bench(args)
	case "genfens":
		s.stopSearch()
		if err := s.Genfens(args); err != nil {
			s.printf("info string genfens: %v\n", err)
		}
	case "d":
		if s.posErr != nil {
			s.printf("info string d: no valid position: %v\n", s.posErr)
			break
		}
		s.printf("\n%s\n", s.pos)
	case "quit":
		return false
	default:
		s.printf("info string unknown command %q\n", cmd)
	}
	return true
}

// IsCommand reports whether Handle answers the command name (the first
// word of a line): the UCI commands, and beside them bench, d, and genfens.
func IsCommand(name string) bool {
	switch name {
	case "uci", "isready", "ucinewgame", "setoption", "position", "go", "stop", "ponderhit", "bench", "d", "quit", "genfens":
		return true
	}
	return false
}

// Genfens answers "genfens N seed S book B", OpenBench's request for the
// opening positions of a datagen workload (package genfens; args are the
// words after genfens): N lines "info string genfens FEN", each written as
// soon as found, scored with the session's evaluation (Use NNUE, EvalFile).
// A malformed command or an unreadable book is the error returned.
func (s *Session) Genfens(args []string) error {
	r, err := genfens.Parse(args)
	if err != nil {
		return err
	}
	return genfens.Generate(r, s.engine.Network(), func(fen string) {
		s.printf("info string genfens %s\n", fen)
	})
}

func (s *Session) setOption(args []string) {
	// setoption name <id...> [value <x...>]
	line := strings.Join(args, " ")
	if !strings.HasPrefix(line, "name ") {
		s.printf("info string setoption: want \"setoption name <id> [value <x>]\"\n")
		return
	}
	line = strings.TrimPrefix(line, "name ")
	name, value := line, ""
	if i := strings.Index(line, " value "); i >= 0 {
		name, value = line[:i], strings.TrimSpace(line[i+7:])
	}
	name = strings.TrimSpace(name)
	spin := func(lo, hi int) (int, bool) {
		n, err := strconv.Atoi(value)
		if err != nil || n < lo || n > hi {
			s.printf("info string setoption %s: value %q is not a whole number from %d to %d\n", name, value, lo, hi)
			return 0, false
		}
		return n, true
	}
	switch strings.ToLower(name) {
	case "hash":
		if n, ok := spin(1, 65536); ok {
			s.engine.SetHash(n)
		}
	case "threads":
		if n, ok := spin(1, 256); ok {
			s.engine.SetThreads(n)
		}
	case "multipv":
		if n, ok := spin(1, 500); ok {
			s.engine.SetMultiPV(n)
		}
	case "move overhead":
		if n, ok := spin(0, 5000); ok {
			s.engine.SetMoveOverhead(time.Duration(n) * time.Millisecond)
		}
	case "clear hash":
		s.engine.Clear()
	case "ponder":
		// Pondering is driven by "go ponder"; nothing to configure.
	case "use nnue":
		switch strings.ToLower(value) {
		case "true":
			s.useNNUE = true
		case "false":
			s.useNNUE = false
		default:
			s.printf("info string setoption %s: value %q is not true or false\n", name, value)
			return
		}
		s.applyEval(true)
	case "evalfile":
		if value == "<empty>" {
			value = ""
		}
		if value != s.evalFile {
			s.evalFile, s.net = value, nil
		}
		s.applyEval(true)
	default:
		s.printf("info string unknown option %q\n", name)
	}
}

// applyEval gives the engine the evaluation the options choose: the
// hand-crafted one, or with Use NNUE the network of EvalFile (empty: the
// embedded default), loaded once. A network that does not load is reported,
// and the hand-crafted evaluation plays until one does; one that does is
// named in an info string when report is set (an option changed).
func (s *Session) applyEval(report bool) {
	if !s.useNNUE {
		s.engine.SetNetwork(nil)
		return
	}
	if s.net == nil {
		var err error
		if s.evalFile == "" {
			s.net, err = nnue.Default()
		} else {
			s.net, err = nnue.LoadFile(s.evalFile)
		}
		if err != nil {
			s.net = nil
			s.engine.SetNetwork(nil)
			s.printf("info string %v; the hand-crafted evaluation stays in use\n", err)
			return
		}
	}
	s.engine.SetNetwork(s.net)
	if !report {
		return
	}
	name := s.evalFile
	if name == "" {
		name = nnue.DefaultName
	}
	table := s.net.PawnScale()
	s.printf("info string NNUE evaluation using %s, network %s, pawn table %s\n", name, s.net.ID(), strings.Trim(fmt.Sprint(table[:]), "[]"))
}

// position sets up the position of a position command. On failure it
// reports the problem and leaves no valid position until the next success.
func (s *Session) position(args []string) {
	pos, err := parsePosition(args)
	if err != nil {
		s.posErr = fmt.Errorf("position: %w", err)
		s.printf("info string %v\n", s.posErr)
		return
	}
	s.pos, s.posErr = pos, nil
}

// parsePosition reads the arguments of a position command: "startpos" or
// "fen <fen>", then optionally "moves" and the moves played from there.
func parsePosition(args []string) (*board.Position, error) {
	if len(args) == 0 {
		return nil, errors.New(`want "startpos" or "fen <fen>", then optionally "moves ..."`)
	}
	var pos *board.Position
	var rest []string
	switch args[0] {
	case "startpos":
		pos = board.NewPosition()
		rest = args[1:]
	case "fen":
		i := 1
		for i < len(args) && args[i] != "moves" {
			i++
		}
		p, err := board.ParseFEN(strings.Join(args[1:i], " "))
		if err != nil {
			return nil, err
		}
		pos = p
		rest = args[i:]
	default:
		return nil, fmt.Errorf(`want "startpos" or "fen", got %q`, args[0])
	}
	if len(rest) > 0 {
		if rest[0] != "moves" {
			return nil, fmt.Errorf(`want "moves", got %q`, rest[0])
		}
		for _, ms := range rest[1:] {
			m, err := pos.ParseUCIMove(ms)
			if err != nil {
				return nil, err
			}
			pos.MakeMove(m)
		}
	}
	return pos, nil
}

func (s *Session) goCmd(args []string) {
	if s.posErr != nil {
		// The GUI's position is not ours: play nothing rather than a move
		// from some other position.
		s.printf("info string go: no valid position to search (%v); send a valid position first\n", s.posErr)
		if !slices.Contains(args, "perft") {
			s.printf("bestmove 0000\n")
		}
		return
	}
	var lim search.Limits
	perft := 0
	ms := func(i int) (time.Duration, bool) {
		n, ok := s.intArg(args, i)
		return time.Duration(n) * time.Millisecond, ok
	}
	// A clock may read zero or less (a GUI that allows a margin past it):
	// it is searched as 1 ms left, the least the engine can do, never as
	// no clock at all.
	clock := func(i int) (time.Duration, bool) {
		if i >= len(args) {
			s.printf("info string go: %s needs a value\n", args[i-1])
			return 0, false
		}
		n, err := strconv.Atoi(args[i])
		if err != nil {
			s.printf("info string go: %s needs a whole number of milliseconds, got %q\n", args[i-1], args[i])
			return 0, false
		}
		return max(time.Duration(n)*time.Millisecond, time.Millisecond), true
	}
	for i := 0; i < len(args); i++ {
		var ok = true
		switch args[i] {
		case "perft":
			perft, ok = s.intArg(args, i+1)
			i++
		case "depth":
			lim.Depth, ok = s.intArg(args, i+1)
			i++
		case "nodes":
			var n int
			n, ok = s.intArg(args, i+1)
			lim.Nodes = uint64(n)
			i++
		case "softnodes":
			var n int
			n, ok = s.intArg(args, i+1)
			lim.SoftNodes = uint64(n)
			i++
		case "movetime":
			lim.MoveTime, ok = ms(i + 1)
			i++
		case "wtime":
			lim.WTime, ok = clock(i + 1)
			i++
		case "btime":
			lim.BTime, ok = clock(i + 1)
			i++
		case "winc":
			lim.WInc, ok = ms(i + 1)
			i++
		case "binc":
			lim.BInc, ok = ms(i + 1)
			i++
		case "movestogo":
			lim.MovesToGo, ok = s.intArg(args, i+1)
			i++
		case "mate":
			lim.Mate, ok = s.intArg(args, i+1)
			if ok && (lim.Mate < 1 || lim.Mate > search.MaxMate) {
				s.printf("info string go: mate needs a number of moves from 1 to %d, got %d\n", search.MaxMate, lim.Mate)
				ok = false
			}
			i++
		case "infinite":
			lim.Infinite = true
		case "ponder":
			lim.Ponder = true
		case "searchmoves":
			for i+1 < len(args) {
				m, err := s.pos.ParseUCIMove(args[i+1])
				if err != nil {
					break
				}
				lim.Moves = append(lim.Moves, m)
				i++
			}
		default:
			s.printf("info string go: unknown parameter %q\n", args[i])
		}
		if !ok {
			// A GUI waits for a bestmove after every go: answer with
			// none rather than leave it waiting (perft answers nothing).
			if !slices.Contains(args, "perft") {
				s.printf("bestmove 0000\n")
			}
			return
		}
	}
	if perft > 0 {
		s.perft(perft)
		return
	}
	pos := s.pos.Clone()
	s.holdMu.Lock()
	s.hold = lim.Infinite || lim.Ponder
	s.released = make(chan struct{})
	released := s.released
	s.holdMu.Unlock()
	s.busy = true
	s.running.Add(1)
	wait := s.engine.Start(pos, lim, s.printInfo) // a stop from now on reaches this search
	go func() {
		defer s.running.Done()
		res := wait()
		if lim.Mate > 0 && res.BestMove != board.NullMove && res.Score < search.MateScore-(2*lim.Mate-1) {
			if res.NoMateIn >= lim.Mate {
				s.printf("info string go mate %d: there is no mate in %d\n", lim.Mate, lim.Mate)
			} else {
				s.printf("info string go mate %d: no mate found; the search ended having proved none in %d\n", lim.Mate, res.NoMateIn)
			}
		}
		// In infinite or ponder mode bestmove waits for stop or ponderhit.
		s.holdMu.Lock()
		hold := s.hold
		s.holdMu.Unlock()
		if hold {
			<-released
		}
		if res.BestMove == board.NullMove {
			s.printf("bestmove 0000\n")
		} else if res.PonderMove != board.NullMove {
			s.printf("bestmove %s ponder %s\n", res.BestMove, res.PonderMove)
		} else {
			s.printf("bestmove %s\n", res.BestMove)
		}
	}()
}

// release lets a held bestmove out (stop, ponderhit).
func (s *Session) release() {
	s.holdMu.Lock()
	if s.hold {
		s.hold = false
		close(s.released)
	}
	s.holdMu.Unlock()
}

// Wait blocks until a running search has printed its bestmove (without
// stopping it), then returns.
func (s *Session) Wait() {
	s.running.Wait()
	s.busy = false
}

// stopSearch stops a running search and waits until its bestmove is out.
func (s *Session) stopSearch() {
	if !s.busy {
		return
	}
	s.engine.Stop()
	s.release()
	s.running.Wait()
	s.busy = false
}

func (s *Session) intArg(args []string, i int) (int, bool) {
	if i >= len(args) {
		s.printf("info string go: %s needs a value\n", args[i-1])
		return 0, false
	}
	n, err := strconv.Atoi(args[i])
	if err != nil || n < 0 {
		s.printf("info string go: %s needs a non-negative whole number, got %q\n", args[i-1], args[i])
		return 0, false
	}
	return n, true
}

func (s *Session) printInfo(in search.Info) {
	var b strings.Builder
	fmt.Fprintf(&b, "info depth %d seldepth %d multipv %d score %s", in.Depth, in.SelDepth, in.MultiPV, FormatScore(in.Score))
	switch in.Bound {
	case search.BoundLower:
		b.WriteString(" lowerbound")
	case search.BoundUpper:
		b.WriteString(" upperbound")
	}
	fmt.Fprintf(&b, " nodes %d nps %d hashfull %d time %d pv", in.Nodes, in.NPS, in.HashFull, in.Time.Milliseconds())
	for _, m := range in.PV {
		b.WriteByte(' ')
		b.WriteString(m.String())
	}
	b.WriteByte('\n')
	s.printf("%s", b.String())
}

// FormatScore renders a score as UCI does: "cp N" or "mate N" (moves, negative when mated).
func FormatScore(score int) string {
	if score >= search.MateInMaxPly {
		return fmt.Sprintf("mate %d", (search.MateScore-score+1)/2)
	}
	if score <= -search.MateInMaxPly {
		return fmt.Sprintf("mate %d", -(search.MateScore+score)/2)
	}
	return fmt.Sprintf("cp %d", score)
}

func (s *Session) perft(depth int) {
	start := time.Now()
	var total uint64
	for _, d := range s.pos.Divide(depth) {
		s.printf("%s: %d\n", d.Move, d.Nodes)
		total += d.Nodes
	}
	el := time.Since(start)
	s.printf("\nNodes searched: %d\n\n", total)
	_ = el
}

// MaxBenchDepth is the deepest bench the bench command runs.
const MaxBenchDepth = 64

// ParseBenchDepth reads the depth argument of bench: a whole number from 1
// to MaxBenchDepth.
func ParseBenchDepth(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > MaxBenchDepth {
		return 0, fmt.Errorf("depth must be a whole number from 1 to %d, got %q", MaxBenchDepth, arg)
	}
	return n, nil
}

func (s *Session) bench(args []string) {
	depth := search.DefaultBenchDepth
	if len(args) > 0 {
		n, err := ParseBenchDepth(args[0])
		if err != nil {
			s.printf("info string bench: %v\n", err)
			return
		}
		depth = n
	}
	s.outMu.Lock()
	defer s.outMu.Unlock()
	r := search.Bench(depth, s.engine.Network(), s.out)
	fmt.Fprintf(s.out, "%d nodes %d nps\n", r.Nodes, r.NPS())
	s.out.Flush()
}
