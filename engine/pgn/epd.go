package pgn

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"chessforge/engine/board"
)

// ReadEPD reads one position a line: the four FEN fields of board, side,
// castling and en passant, then the move counters either as two bare numbers
// (a full FEN) or as hmvc and fmvn operations (0 and 1 when absent), then
// any EPD operations; an `id "..."` operation names the opening. Blank lines
// and lines starting with '#' are skipped. name labels errors and games.
func ReadEPD(r io.Reader, name string) ([]Game, error) {
	var games []Game
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("%s:%d: want at least the 4 FEN fields of board, side, castling and en passant, got %d", name, n, len(f))
		}
		counters := epdOp(line, "hmvc", "0") + " " + epdOp(line, "fmvn", "1")
		if len(f) >= 6 && isCounter(f[4]) && isCounter(f[5]) {
			counters = f[4] + " " + f[5]
		}
		pos, err := board.ParseFEN(strings.Join(f[:4], " ") + " " + counters)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		g := Game{FEN: pos.FEN(), Source: fmt.Sprintf("%s:%d", name, n), Result: Unfinished}
		if _, after, ok := strings.Cut(line, ` id "`); ok {
			if id, _, ok := strings.Cut(after, `"`); ok {
				g.Name = id
			}
		}
		g.Tags = map[string]string{"SetUp": "1", "FEN": g.FEN}
		games = append(games, g)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return games, nil
}

// epdOp returns the operand of an EPD operation such as "hmvc 12;", or def.
func epdOp(line, op, def string) string {
	for part := range strings.SplitSeq(line, ";") {
		f := strings.Fields(part)
		if n := len(f); n >= 2 && f[n-2] == op {
			return f[n-1]
		}
	}
	return def
}

// isCounter reports whether s is a FEN move counter, a number.
func isCounter(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}
