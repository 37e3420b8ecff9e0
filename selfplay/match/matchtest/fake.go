// Package matchtest provides a fake UCI engine, and a fake draughts engine
// speaking bin/engine -game dama's text protocol, for the tests of code that
// plays matches (package match, cmd/match, cmd/loop): the test binary
// doubles as the engine. A test package hands its TestMain to Run, and
// Command gives the command line that starts an engine.
package matchtest

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"chessforge/engine/board"
)

// envVar, set to 1, makes a test binary run as a fake engine.
const envVar = "CHESSFORGE_MATCH_FAKE_ENGINE"

// Run is a test package's TestMain body: in a binary started by Command it
// runs the fake engine and exits; otherwise it runs the tests and returns
// their exit code, for TestMain to clean up and pass to os.Exit.
func Run(m *testing.M) int {
	if os.Getenv(envVar) == "1" {
		os.Exit(Engine(os.Args[1:], os.Stdin, os.Stdout))
	}
	os.Setenv(envVar, "1") // inherited by the engines the tests start
	// Under -race a process sleeps a second at exit by default; the fake
	// engines exit often and have nothing to report.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return m.Run()
}

// Command returns the command line of a fake engine in the mode that words
// give (see Engine): the test binary, then the words. The binary must run
// its tests through Run.
func Command(t testing.TB, words ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe}, words...)
}

// Engine runs a fake UCI engine on in and out until "quit" or the end of
// its input, and returns its exit status. It plays random legal moves,
// seeded by the position so that games replay exactly. Modes, args[0]:
//
//	random        random moves; reports the material balance as its score
//	illegal N     its N-th move of each game is a king move of two ranks
//	crash N       exits with status 3 when asked for its N-th move of a game
//	hang N        never answers its N-th move of a game
//	slow MS       waits MS milliseconds before every move
//	score CP      reports CP centipawns from White's point of view every move
//	malformed N   its N-th move of each game is "bestmove ?!"
//	nouci         never answers "uci" with "uciok"
//	dama MODE ... a draughts engine speaking the text protocol (see DamaEngine)
//
// After a fault's N, the words "once FILE" make the fault happen only
// once over all the engine's processes: the first to reach it creates FILE,
// and the ones that find FILE there play on as random does.
func Engine(args []string, in io.Reader, out io.Writer) int {
	if len(args) > 0 && args[0] == "dama" {
		return DamaEngine(args[1:], in, out)
	}
	f := newFake(args, out)
	mode, n := f.mode, f.n
	pos := board.NewPosition()
	var track tracker
	moveNo := 0
	return f.serve(in, func(fields []string) (status int, stop bool) {
		switch fields[0] {
		case "uci":
			f.say("id name fake %s", mode)
			if mode == "nouci" {
				break
			}
			f.say("option name Hash type spin default 1 min 1 max 16")
			f.say("uciok")
		case "isready":
			f.say("readyok")
		case "ucinewgame":
			moveNo = 0
		case "position":
			var err error
			if pos, err = track.set(fields[1:]); err != nil {
				fmt.Fprintln(os.Stderr, "fake engine:", err)
				return 2, true
			}
		case "go":
			moveNo++
			var list board.MoveList
			pos.GenerateLegal(&list)
			rng := rand.New(rand.NewPCG(pos.Hash(), 7))
			m := list.Moves[rng.IntN(list.N)]
			score := material(pos)
			fault := moveNo == n && f.claim()
			switch {
			case mode == "illegal" && fault:
				k := pos.KingSquare(pos.SideToMove())
				to := k + 16
				if k.Rank() >= 6 {
					to = k - 16
				}
				f.say("bestmove %v%v", k, to)
				return 0, false
			case mode == "crash" && fault:
				fmt.Fprintln(os.Stderr, "fake engine: crashing on purpose")
				return 3, true
			case mode == "malformed" && fault:
				f.say("bestmove ?!")
				return 0, false
			case mode == "hang" && fault:
				// Sleep rather than block on select{}: the runtime would
				// call a lone blocked goroutine a deadlock and exit.
				time.Sleep(time.Hour)
			case mode == "slow":
				time.Sleep(time.Duration(n) * time.Millisecond)
			case mode == "score":
				score = n
				if pos.SideToMove() == board.Black {
					score = -n
				}
			}
			f.say("info depth 1 score cp %d nodes 1 pv %v", score, m)
			f.say("bestmove %v", m)
		}
		return 0, false
	})
}

// fake is what the fake engines of both games share: the mode and its
// number from the command line, and the writing of replies.
type fake struct {
	mode string // args[0], "random" without one
	n    int    // args[1] as a number, 0 without one
	once string // after "once", the file that makes a fault happen once; "" for every time
	w    *bufio.Writer
}

func newFake(args []string, out io.Writer) *fake {
	f := &fake{mode: "random", w: bufio.NewWriter(out)}
	if len(args) > 0 {
		f.mode = args[0]
	}
	if len(args) > 1 {
		f.n, _ = strconv.Atoi(args[1])
	}
	if len(args) > 3 && args[2] == "once" {
		f.once = args[3]
	}
	return f
}

// claim reports whether the fault due now happens: always, or with "once"
// only in the process that creates the file.
func (f *fake) claim() bool {
	if f.once == "" {
		return true
	}
	file, err := os.OpenFile(f.once, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	file.Close()
	return true
}

// say writes one line of reply and flushes it.
func (f *fake) say(format string, a ...any) {
	fmt.Fprintf(f.w, format+"\n", a...)
	f.w.Flush()
}

// serve reads commands from in, one a line, and hands the fields of each
// non-blank line to handle. It returns the exit status: 0 at "quit" or the
// end of the input, handle's status when handle stops.
func (f *fake) serve(in io.Reader, handle func(fields []string) (status int, stop bool)) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if fields[0] == "quit" {
			return 0
		}
		if status, stop := handle(fields); stop {
			return status
		}
	}
	return 0
}

// tracker follows the position commands of a game: when a command extends
// the previous one by a few moves it plays just those, so that a long game
// costs the fake engine linear rather than quadratic time.
type tracker struct {
	base  string
	moves []string
	pos   *board.Position
}

func (tr *tracker) set(f []string) (*board.Position, error) {
	base, moves := strings.Join(f, " "), []string(nil)
	if i := slices.Index(f, "moves"); i >= 0 {
		base, moves = strings.Join(f[:i], " "), f[i+1:]
	}
	if tr.pos != nil && base == tr.base && len(moves) >= len(tr.moves) && slices.Equal(moves[:len(tr.moves)], tr.moves) {
		for _, s := range moves[len(tr.moves):] {
			m, err := tr.pos.ParseUCIMove(s)
			if err != nil {
				return nil, err
			}
			tr.pos.MakeMove(m)
		}
		tr.moves = slices.Clone(moves)
		return tr.pos, nil
	}
	pos, err := fakePosition(f)
	if err != nil {
		return nil, err
	}
	tr.base, tr.moves, tr.pos = base, slices.Clone(moves), pos
	return pos, nil
}

// fakePosition reads the arguments of a UCI position command.
func fakePosition(f []string) (*board.Position, error) {
	var pos *board.Position
	switch {
	case len(f) > 0 && f[0] == "startpos":
		pos, f = board.NewPosition(), f[1:]
	case len(f) >= 7 && f[0] == "fen":
		var err error
		if pos, err = board.ParseFEN(strings.Join(f[1:7], " ")); err != nil {
			return nil, err
		}
		f = f[7:]
	default:
		return nil, fmt.Errorf("bad position command %q", f)
	}
	if len(f) > 0 && f[0] == "moves" {
		for _, s := range f[1:] {
			m, err := pos.ParseUCIMove(s)
			if err != nil {
				return nil, err
			}
			pos.MakeMove(m)
		}
	}
	return pos, nil
}

// material returns the material balance in centipawns for the side to move.
func material(pos *board.Position) int {
	values := [...]int{100, 300, 300, 500, 900}
	score := 0
	for pt := board.Pawn; pt <= board.Queen; pt++ {
		score += values[pt] * (pos.Pieces(board.White, pt).Count() - pos.Pieces(board.Black, pt).Count())
	}
	if pos.SideToMove() == board.Black {
		return -score
	}
	return score
}
