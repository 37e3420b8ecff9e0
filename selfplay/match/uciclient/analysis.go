package uciclient

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Line is one line (principal variation) of a search, as the engine last
// reported it with an exact score.
type Line struct {
	Score Score  // the line's score, from the side to move's point of view
	Move  string // the line's first move, as the engine wrote it
}

// Analysis is the answer to one "go" with what the engine said about the
// search: unlike Result it skips the info lines whose score is a bound
// (lowerbound, upperbound) and keeps each MultiPV line.
type Analysis struct {
	BestMove string
	Score    Score // the last exact score of the first line
	Depth    int   // the depth of the info line that gave Score
	Nodes    int64 // the node count of the last info line that gave one
	// Lines holds, in the order of their multipv numbers, the last exact
	// report of each line that had a move (one line without MultiPV).
	Lines   []Line
	Elapsed time.Duration // from sending "go" to receiving "bestmove"
}

// info is what one info line says.
type info struct {
	multipv  int // 1 when not given
	depth    int
	nodes    int64
	hasDepth bool
	hasNodes bool
	score    Score
	exact    bool   // score given and not a bound
	move     string // the pv's first move, "" for none
}

// parseInfo reads a UCI info line: depth, nodes, multipv, the score (cp
// or mate, a bound when followed by lowerbound or upperbound) and the
// pv's first move. An "info string" line says nothing.
func parseInfo(line string) (info, bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "info" {
		return info{}, false
	}
	in := info{multipv: 1}
	for i := 1; i < len(fields); i++ {
		arg := func() (string, bool) {
			if i+1 < len(fields) {
				i++
				return fields[i], true
			}
			return "", false
		}
		switch fields[i] {
		case "string":
			return in, true
		case "depth":
			if s, ok := arg(); ok {
				if n, err := strconv.Atoi(s); err == nil {
					in.depth, in.hasDepth = n, true
				}
			}
		case "nodes":
			if s, ok := arg(); ok {
				if n, err := strconv.ParseInt(s, 10, 64); err == nil {
					in.nodes, in.hasNodes = n, true
				}
			}
		case "multipv":
			if s, ok := arg(); ok {
				if n, err := strconv.Atoi(s); err == nil && n >= 1 {
					in.multipv = n
				}
			}
		case "score":
			kind, ok1 := arg()
			val, ok2 := arg()
			n, err := strconv.Atoi(val)
			if !ok1 || !ok2 || err != nil {
				continue
			}
			switch kind {
			case "cp":
				in.score, in.exact = Score{Valid: true, CP: n}, true
			case "mate":
				in.score, in.exact = Score{Valid: true, CP: mateCP(n), Mate: n}, true
			default:
				continue
			}
			if i+1 < len(fields) && (fields[i+1] == "lowerbound" || fields[i+1] == "upperbound") {
				in.exact = false
				i++
			}
		case "pv":
			if i+1 < len(fields) {
				in.move = fields[i+1]
			}
			return in, true // the pv runs to the end of the line
		}
	}
	return in, true
}

// mateCP converts UCI's "mate n" (moves; positive: the side to move mates)
// to centipawns: ±(32000 − plies to mate).
func mateCP(n int) int {
	if n <= 0 {
		return -32000 - 2*n
	}
	return 32000 - (2*n - 1)
}

// Analyse sends the position and go commands, as Go does, and waits up to
// budget for the best move, collecting the search's reports: see Analysis.
// A "bestmove" line without a move is an error.
func (e *Engine) Analyse(ctx context.Context, position, goArgs string, budget time.Duration) (Analysis, error) {
	var a Analysis
	if err := e.send("position %s", position); err != nil {
		return a, err
	}
	if err := e.send("go %s", goArgs); err != nil {
		return a, err
	}
	start := time.Now()
	var lines []Line // by multipv number - 1
	line, err := e.await(ctx, "bestmove", budget, func(line string) {
		in, ok := parseInfo(line)
		if !ok {
			return
		}
		if in.hasNodes {
			a.Nodes = in.nodes
		}
		if !in.exact {
			return
		}
		if in.multipv == 1 {
			a.Score, a.Depth = in.score, in.depth
		}
		if in.move != "" && in.multipv <= 256 {
			for len(lines) < in.multipv {
				lines = append(lines, Line{})
			}
			lines[in.multipv-1] = Line{Score: in.score, Move: in.move}
		}
	})
	a.Elapsed = time.Since(start)
	if err != nil {
		return a, err
	}
	for _, l := range lines {
		if l.Move != "" {
			a.Lines = append(a.Lines, l)
		}
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return a, fmt.Errorf("bestmove without a move: %q", line)
	}
	a.BestMove = fields[1]
	return a, nil
}

// HasOption reports whether the engine declared the option name (UCI option
// names are compared without regard to case).
func (e *Engine) HasOption(name string) bool { return e.options[strings.ToLower(name)] }

// SetOption sends "setoption name N value V" for an option the engine
// declared, and fails for one it did not.
func (e *Engine) SetOption(name, value string) error {
	if !e.HasOption(name) {
		return fmt.Errorf("engine %q has no option %q", e.Name, name)
	}
	return e.send("setoption name %s value %s", name, value)
}
