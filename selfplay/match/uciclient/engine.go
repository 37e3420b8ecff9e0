// Package uciclient drives a chess engine process over the Universal Chess
// Interface: start-up handshake, options, new games, searches under a
// deadline, and shutdown. It reports an engine that dies or stops answering
// as an error of its own type, so that a match can score the game and restart
// the engine. StartText drives a draughts engine over chessforge's text
// protocol (bin/engine -game dama) the same way: the same position, go and
// bestmove lines, without UCI's handshake and options.
package uciclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Option is one UCI option to set after the handshake.
type Option struct {
	Name, Value string
}

// CrashError says that the engine process ended (or closed its output)
// when it was expected to answer.
type CrashError struct {
	Status string // how the process ended, e.g. "exit status 2"
	Stderr string // the end of what it wrote to stderr
}

func (e *CrashError) Error() string {
	msg := "engine exited (" + e.Status + ")"
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// TimeoutError says that the engine did not answer within its time budget.
type TimeoutError struct {
	Waiting string        // what was awaited, e.g. "bestmove"
	After   time.Duration // how long we waited
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no %s within %v", e.Waiting, e.After.Round(time.Millisecond))
}

// Score is the last evaluation an engine reported during a search, from the
// point of view of the side to move.
type Score struct {
	Valid bool
	CP    int // centipawns; a mate in n is ±(32000 - plies to mate)
	Mate  int // moves to mate as reported (positive: the mover mates), 0 if none
}

// Result is the answer to one "go".
type Result struct {
	BestMove string
	Score    Score
	Depth    int           // the depth of the last info line that gave one
	Elapsed  time.Duration // from sending "go" to receiving "bestmove"
}

// Engine is a running UCI engine process. Its methods must not be called
// concurrently.
type Engine struct {
	Name    string          // the "id name" the engine gave, or its command
	options map[string]bool // option names it declared, lower case
	text    bool            // the text protocol of StartText, not UCI

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // the engine's output lines; closed after the process ends
	done   chan struct{}
	waitMu sync.Mutex
	status string // how the process ended, once done is closed
	stderr *tail
}

// Start launches argv as a UCI engine, performs the handshake (uci/uciok),
// sets the options and waits for readyok. timeout bounds each step.
func Start(argv []string, opts []Option, timeout time.Duration) (*Engine, error) {
	return start(argv, opts, timeout, false)
}

// StartText launches argv as an engine speaking chessforge's text protocol,
// the one `bin/engine -game dama` reads: one command a line, "position
// startpos|fen F [moves ...]", "go nodes N|depth N" answered by info lines
// and "bestmove M" (or "bestmove none"), "newgame", "quit", and "error: ..."
// for a line it does not take. It has no handshake and no options: the
// engine counts as ready when it answers a line it does not know ("isready")
// with "error: ..." (or with "readyok"). Its Name is its command line.
func StartText(argv []string, timeout time.Duration) (*Engine, error) {
	return start(argv, nil, timeout, true)
}

func start(argv []string, opts []Option, timeout time.Duration, text bool) (*Engine, error) {
	if len(argv) == 0 {
		return nil, errors.New("uci: empty engine command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	ownProcessGroup(cmd)
	e := &Engine{
		Name:    strings.Join(argv, " "),
		options: map[string]bool{},
		text:    text,
		cmd:     cmd,
		lines:   make(chan string, 256),
		done:    make(chan struct{}),
		stderr:  &tail{max: 2048},
	}
	cmd.Stderr = e.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("uci: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("uci: %v", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("uci: start %q: %w", argv[0], err)
	}
	e.stdin = stdin
	go e.read(stdout)

	handshake := e.handshake
	if text {
		handshake = func(_ []Option, timeout time.Duration) error { return e.ready(context.Background(), timeout) }
	}
	if err := handshake(opts, timeout); err != nil {
		e.Kill()
		return nil, fmt.Errorf("uci: %s: %w", strings.Join(argv, " "), err)
	}
	return e, nil
}

// read forwards the engine's output line by line and, at end of output,
// reaps the process and records how it ended.
func (e *Engine) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		e.lines <- strings.TrimRight(sc.Text(), "\r")
	}
	err := e.cmd.Wait()
	e.waitMu.Lock()
	if err != nil {
		e.status = err.Error()
	} else {
		e.status = "exit status 0"
	}
	e.waitMu.Unlock()
	close(e.lines)
	close(e.done)
}

func (e *Engine) crash() error {
	<-e.done
	e.waitMu.Lock()
	defer e.waitMu.Unlock()
	return &CrashError{Status: e.status, Stderr: e.stderr.String()}
}

func (e *Engine) send(format string, args ...any) error {
	if _, err := fmt.Fprintf(e.stdin, format+"\n", args...); err != nil {
		// A write fails when the process has gone; report the crash
		// rather than the broken pipe.
		select {
		case <-e.done:
			return e.crash()
		case <-time.After(time.Second):
			return fmt.Errorf("write to engine: %w", err)
		}
	}
	return nil
}

// await reads lines until one whose first word is want (or, for the text
// protocol awaiting readyok, "error:"), passing every line to fn (if not nil)
// on the way. In the text protocol an "error:" line while awaiting anything
// else is the engine refusing a command: an error at once.
func (e *Engine) await(ctx context.Context, want string, timeout time.Duration, fn func(string)) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-e.lines:
			if !ok {
				return "", e.crash()
			}
			if fn != nil {
				fn(line)
			}
			first, _, _ := strings.Cut(strings.TrimSpace(line), " ")
			if first == want || (e.text && want == "readyok" && first == "error:") {
				return line, nil
			}
			if e.text && first == "error:" {
				return "", fmt.Errorf("the engine answered %q", strings.TrimSpace(line))
			}
		case <-timer.C:
			return "", &TimeoutError{Waiting: want, After: timeout}
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

func (e *Engine) handshake(opts []Option, timeout time.Duration) error {
	ctx := context.Background()
	if err := e.send("uci"); err != nil {
		return err
	}
	_, err := e.await(ctx, "uciok", timeout, func(line string) {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 3 && fields[0] == "id" && fields[1] == "name":
			e.Name = strings.Join(fields[2:], " ")
		case len(fields) >= 3 && fields[0] == "option" && fields[1] == "name":
			// The name runs up to the " type " keyword.
			rest := strings.Join(fields[2:], " ")
			name, _, _ := strings.Cut(rest, " type ")
			e.options[strings.ToLower(name)] = true
		}
	})
	if err != nil {
		return err
	}
	for _, o := range opts {
		if !e.options[strings.ToLower(o.Name)] {
			return fmt.Errorf("engine %q has no option %q", e.Name, o.Name)
		}
		if err := e.send("setoption name %s value %s", o.Name, o.Value); err != nil {
			return err
		}
	}
	return e.ready(ctx, timeout)
}

func (e *Engine) ready(ctx context.Context, timeout time.Duration) error {
	if err := e.send("isready"); err != nil {
		return err
	}
	_, err := e.await(ctx, "readyok", timeout, nil)
	return err
}

// NewGame tells the engine a new game starts ("ucinewgame", or "newgame" in
// the text protocol) and waits until it is ready.
func (e *Engine) NewGame(ctx context.Context, timeout time.Duration) error {
	newgame := "ucinewgame"
	if e.text {
		newgame = "newgame"
	}
	if err := e.send(newgame); err != nil {
		return err
	}
	return e.ready(ctx, timeout)
}

// Go sends the position and go commands (each without the keyword, e.g.
// "startpos moves e2e4" and "nodes 1000") and waits up to budget for the best
// move. The score is the last exact one the engine reported (a bound only
// when it reported no other), with its line's depth. The elapsed time is
// measured from sending "go".
func (e *Engine) Go(ctx context.Context, position, goArgs string, budget time.Duration) (Result, error) {
	var res Result
	if err := e.send("position %s", position); err != nil {
		return res, err
	}
	if err := e.send("go %s", goArgs); err != nil {
		return res, err
	}
	start := time.Now()
	exact := false // whether res.Score is an exact score, not a bound
	line, err := e.await(ctx, "bestmove", budget, func(line string) {
		s, ok := parseScore(line)
		if !ok {
			if d, ok := infoInt(line, "depth"); ok && !res.Score.Valid {
				res.Depth = d
			}
			return
		}
		// The last exact score and its line's depth; a bound (lowerbound,
		// upperbound: a search that failed high or low) only until an
		// exact score comes.
		in, _ := parseInfo(line)
		bound := in.score.Valid && !in.exact
		if bound && exact {
			return
		}
		exact = exact || !bound
		res.Score = s
		if d, ok := infoInt(line, "depth"); ok {
			res.Depth = d
		}
	})
	res.Elapsed = time.Since(start)
	if err != nil {
		return res, err
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return res, fmt.Errorf("bestmove without a move: %q", line)
	}
	res.BestMove = fields[1]
	return res, nil
}

// infoInt reads the integer after key in an info line.
func infoInt(line, key string) (int, bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "info" {
		return 0, false
	}
	for i := 1; i+1 < len(fields); i++ {
		if fields[i] == "string" {
			return 0, false
		}
		if fields[i] == key {
			n, err := strconv.Atoi(fields[i+1])
			return n, err == nil
		}
	}
	return 0, false
}

// parseScore reads "score cp N" or "score mate N" from an info line, or the
// text protocol's "score N" (N in hundredths of a man, a win in n plies
// ±(32000 - n), as cp).
func parseScore(line string) (Score, bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "info" {
		return Score{}, false
	}
	for i := 1; i+1 < len(fields); i++ {
		if fields[i] == "string" {
			return Score{}, false
		}
		if fields[i] != "score" {
			continue
		}
		if n, err := strconv.Atoi(fields[i+1]); err == nil {
			return Score{Valid: true, CP: n}, true
		}
		if i+2 >= len(fields) {
			return Score{}, false
		}
		n, err := strconv.Atoi(fields[i+2])
		if err != nil {
			return Score{}, false
		}
		switch fields[i+1] {
		case "cp":
			return Score{Valid: true, CP: n}, true
		case "mate":
			cp := 32000 - (2*n - 1)
			if n <= 0 {
				cp = -32000 - 2*n
			}
			return Score{Valid: true, CP: cp, Mate: n}, true
		}
	}
	return Score{}, false
}

// Close asks the engine to quit, closes its input, and kills it if it has
// not gone within a second.
func (e *Engine) Close() {
	_ = e.send("quit")
	_ = e.stdin.Close()
	select {
	case <-e.done:
	case <-time.After(time.Second):
		e.Kill()
	}
}

// Kill ends the process, and the others of its process group, at once and
// waits until it has been reaped.
func (e *Engine) Kill() {
	select {
	case <-e.done:
		return // reaped: its process group may be another's now
	default:
	}
	kill(e.cmd)
	// Drain so that the reader can reach end of output and reap.
	for {
		select {
		case _, ok := <-e.lines:
			if !ok {
				return
			}
		case <-time.After(5 * time.Second):
			return
		}
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
