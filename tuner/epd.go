package tuner

import (
	"fmt"
	"strings"
)

// ParseLine splits one line of a labelled text file into its FEN and the
// game result for White (0, 0.5 or 1). It takes the formats other tuners
// use:
//
//	FEN [1.0]          (also [0.5], [0.0], [1], [0], [1-0], [1/2-1/2], [0-1])
//	FEN c9 "1-0";      (zurichess; also "1/2-1/2" and "0-1", other EPD opcodes ignored)
//
// The FEN may have four fields (EPD) or six.
func ParseLine(line string) (fen string, result float64, err error) {
	line = strings.TrimSpace(line)
	if i := strings.LastIndexByte(line, '['); i >= 0 {
		j := strings.IndexByte(line[i:], ']')
		if j < 0 {
			return "", 0, fmt.Errorf("unclosed [ in result")
		}
		result, err = parseResult(strings.TrimSpace(line[i+1 : i+j]))
		if err != nil {
			return "", 0, err
		}
		if rest := strings.TrimSpace(line[i+j+1:]); rest != "" && rest != ";" {
			return "", 0, fmt.Errorf("unexpected %q after the result", rest)
		}
		return strings.TrimSpace(line[:i]), result, nil
	}
	if i := strings.Index(line, " c9 "); i >= 0 {
		rest := strings.TrimSpace(line[i+4:])
		if !strings.HasPrefix(rest, `"`) {
			return "", 0, fmt.Errorf("c9 result not quoted")
		}
		j := strings.IndexByte(rest[1:], '"')
		if j < 0 {
			return "", 0, fmt.Errorf("unclosed quote in c9 result")
		}
		result, err = parseResult(rest[1 : 1+j])
		if err != nil {
			return "", 0, err
		}
		return epdFEN(line[:i]), result, nil
	}
	return "", 0, fmt.Errorf("no result: want `FEN [1.0]` or `FEN c9 \"1-0\";`")
}

// epdFEN keeps the board part of an EPD record: the first four fields and
// the clocks if they are numbers, dropping opcodes such as `id "x";`.
func epdFEN(s string) string {
	f := strings.Fields(s)
	n := min(4, len(f))
	for n < len(f) && n < 6 && isNumber(f[n]) {
		n++
	}
	return strings.Join(f[:n], " ")
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func parseResult(s string) (float64, error) {
	switch s {
	case "1", "1.0", "1.00", "1-0":
		return 1, nil
	case "0.5", "0.50", ".5", "1/2-1/2", "1/2", "½-½":
		return 0.5, nil
	case "0", "0.0", "0.00", "0-1":
		return 0, nil
	}
	return 0, fmt.Errorf("bad result %q: want 1.0, 0.5, 0.0 (or 1-0, 1/2-1/2, 0-1), White's view", s)
}
