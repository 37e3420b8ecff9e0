package stockfish

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"chessforge/engine/board"
)

// PlainWriter writes entries in Stockfish's .plain text format: for each
// entry the lines "fen FEN", "move UCI", "score S", "ply N", "result R"
// and "e", as Stockfish's convert writes them (castling as e1g1, the FEN's
// en-passant square only when a capture is legal).
type PlainWriter struct {
	w       *bufio.Writer
	entries int64
	line    []byte
}

// NewPlainWriter returns a writer of .plain text to w.
func NewPlainWriter(w io.Writer) *PlainWriter {
	return &PlainWriter{w: bufio.NewWriterSize(w, 1<<16)}
}

// Write adds one entry.
func (p *PlainWriter) Write(e *Entry) error {
	if err := e.check(); err != nil {
		return err
	}
	l := append(p.line[:0], "fen "...)
	l = append(l, FEN(e.Pos)...)
	l = append(l, "\nmove "...)
	l = append(l, e.Move.String()...)
	l = append(l, "\nscore "...)
	l = strconv.AppendInt(l, int64(e.Score), 10)
	l = append(l, "\nply "...)
	l = strconv.AppendUint(l, uint64(e.Ply), 10)
	l = append(l, "\nresult "...)
	l = strconv.AppendInt(l, int64(e.Result), 10)
	l = append(l, "\ne\n"...)
	p.line = l
	p.entries++
	_, err := p.w.Write(l)
	return err
}

// Close flushes what is buffered. It does not close the underlying writer.
func (p *PlainWriter) Close() error { return p.w.Flush() }

// Entries returns the entries written so far.
func (p *PlainWriter) Entries() int64 { return p.entries }

// PlainReader reads the entries of a .plain stream. Every error names the
// stream and the line.
type PlainReader struct {
	s     *bufio.Scanner
	name  string
	line  int
	entry Entry
}

// NewPlainReader returns a reader of the .plain text r; name (the file's
// path) goes into its errors.
func NewPlainReader(r io.Reader, name string) *PlainReader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 4096), 1<<20)
	return &PlainReader{s: s, name: name}
}

// Next returns the next entry, or io.EOF after the last. The entry and its
// position are the reader's, valid until the next call.
func (p *PlainReader) Next() (*Entry, error) {
	var fen, move string
	var seen [5]bool // fen, move, score, ply, result
	first := p.line + 1
	e := Entry{}
	for p.s.Scan() {
		p.line++
		text := strings.TrimRight(p.s.Text(), "\r")
		if text == "" {
			continue
		}
		key, value, _ := strings.Cut(text, " ")
		value = strings.TrimSpace(value)
		k := -1
		switch key {
		case "e":
			for i, name := range []string{"fen", "move", "score", "ply", "result"} {
				if !seen[i] {
					return nil, p.errorf("entry from line %d has no %s line", first, name)
				}
			}
			pos, err := board.ParseFEN(fen)
			if err != nil {
				return nil, p.errorf("entry from line %d: %v", first, err)
			}
			m, err := pos.ParseUCIMove(move)
			if err != nil {
				return nil, p.errorf("entry from line %d: move %q: %v", first, move, err)
			}
			e.Pos, e.Move = pos, m
			p.entry = e
			return &p.entry, nil
		case "fen":
			k, fen = 0, value
		case "move":
			k, move = 1, value
		case "score":
			k = 2
			v, err := strconv.ParseInt(value, 10, 16)
			if err != nil {
				return nil, p.errorf("score %q: want an integer in [-32768, 32767]", value)
			}
			e.Score = int16(v)
		case "ply":
			k = 3
			v, err := strconv.ParseUint(value, 10, 16)
			if err != nil {
				return nil, p.errorf("ply %q: want an integer in [0, 65535]", value)
			}
			e.Ply = uint16(v)
		case "result":
			k = 4
			v, err := strconv.ParseInt(value, 10, 8)
			if err != nil || v < -1 || v > 1 {
				return nil, p.errorf("result %q: want 1, 0 or -1", value)
			}
			e.Result = int8(v)
		default:
			return nil, p.errorf("unknown line %q (want fen, move, score, ply, result or e)", key)
		}
		if seen[k] {
			return nil, p.errorf("a second %s line in the entry from line %d", key, first)
		}
		seen[k] = true
	}
	if err := p.s.Err(); err != nil {
		return nil, p.errorf("%v", err)
	}
	for _, s := range seen {
		if s {
			return nil, p.errorf("truncated: the entry from line %d has no closing \"e\" line", first)
		}
	}
	return nil, io.EOF
}

func (p *PlainReader) errorf(format string, args ...any) error {
	return fmt.Errorf("stockfish: %s:%d: %s", p.name, p.line, fmt.Sprintf(format, args...))
}
