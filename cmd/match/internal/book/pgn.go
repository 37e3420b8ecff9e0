package book

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"chessforge/engine/board"
)

// ReadPGN reads the mainline of every game in a PGN file as an opening: the
// moves in Standard Algebraic Notation from the start (or from the position of
// a FEN tag). Comments, variations, NAGs and move numbers are skipped. A game
// with neither moves nor a FEN tag is ignored, and a game that is already
// over is an error. name labels errors and openings.
func ReadPGN(r io.Reader, name string) ([]Opening, error) {
	games, err := ParsePGN(r, name)
	if err != nil {
		return nil, err
	}
	out := make([]Opening, len(games))
	for i, g := range games {
		out[i] = Opening{FEN: g.Tags["FEN"], Moves: g.Moves, Name: fmt.Sprintf("%s:%d", name, g.Line)}
		if _, err := out[i].Position(); err != nil {
			return nil, fmt.Errorf("%s:%d: game %d: %w", name, g.Line, i+1, err)
		}
	}
	return out, nil
}

// Game is one game of a PGN file: its tags and its mainline in UCI notation.
type Game struct {
	Tags  map[string]string
	Moves []string
	Line  int // where the game starts in the file
}

// ParsePGN reads every game of a PGN file, checking that each mainline move
// is legal. Unlike ReadPGN it accepts finished games.
func ParsePGN(r io.Reader, name string) ([]Game, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &pgnParser{src: string(data), name: name, line: 1}
	return p.parse()
}

type pgnParser struct {
	src  string
	i    int
	name string
	line int

	out     []Game
	game    int // games started so far
	tags    map[string]string
	pos     *board.Position
	moves   []string
	started bool // a tag or a move of the current game has been seen
	start   int  // line where the current game started
}

func (p *pgnParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: game %d: %s", p.name, p.line, p.game, fmt.Sprintf(format, args...))
}

func (p *pgnParser) parse() ([]Game, error) {
	depth := 0 // variation nesting
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '{':
			j := strings.IndexByte(p.src[p.i:], '}')
			if j < 0 {
				return nil, p.errorf("unterminated comment")
			}
			p.line += strings.Count(p.src[p.i:p.i+j], "\n")
			p.i += j + 1
		case c == ';' || (c == '%' && (p.i == 0 || p.src[p.i-1] == '\n')):
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '(':
			depth++
			p.i++
		case c == ')':
			if depth == 0 {
				return nil, p.errorf("unbalanced ')'")
			}
			depth--
			p.i++
		case c == '[' && depth == 0:
			if err := p.tag(); err != nil {
				return nil, err
			}
		default:
			tok := p.token()
			if depth > 0 {
				continue
			}
			if err := p.word(tok); err != nil {
				return nil, err
			}
		}
	}
	if depth != 0 {
		return nil, p.errorf("unterminated variation")
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.out, nil
}

// token reads a run of characters up to white space or a delimiter.
func (p *pgnParser) token() string {
	j := p.i
	for j < len(p.src) && !strings.ContainsRune(" \t\r\n{}();[", rune(p.src[j])) {
		j++
	}
	if j == p.i { // a stray delimiter such as ']' inside a variation
		j++
	}
	tok := p.src[p.i:j]
	p.i = j
	return tok
}

func (p *pgnParser) tag() error {
	end := strings.IndexByte(p.src[p.i:], ']')
	nl := strings.IndexByte(p.src[p.i:], '\n')
	if end < 0 || (nl >= 0 && nl < end) {
		return p.errorf("unterminated tag")
	}
	body := p.src[p.i+1 : p.i+end]
	p.i += end + 1
	if p.started && p.pos != nil && len(p.moves) > 0 {
		// Tags after moves without a result: a new game begins.
		if err := p.finish(); err != nil {
			return err
		}
	}
	if !p.started {
		p.begin()
	}
	key, value, ok := strings.Cut(strings.TrimSpace(body), " ")
	if !ok {
		return p.errorf("malformed tag [%s]", body)
	}
	value = strings.TrimSpace(value)
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return p.errorf("tag %s: value must be quoted", key)
	}
	value = strings.ReplaceAll(value[1:len(value)-1], `\"`, `"`)
	value = strings.ReplaceAll(value, `\\`, `\`)
	p.tags[key] = value
	if key == "FEN" {
		if len(p.moves) > 0 {
			return p.errorf("FEN tag after the moves")
		}
		pos, err := board.ParseFEN(value)
		if err != nil {
			return p.errorf("FEN tag: %v", err)
		}
		p.pos = pos
	}
	return nil
}

func (p *pgnParser) begin() {
	p.game++
	p.started = true
	p.tags = map[string]string{}
	p.pos = board.NewPosition()
	p.moves = nil
	p.start = p.line
}

func (p *pgnParser) finish() error {
	if p.started && (len(p.moves) > 0 || p.tags["FEN"] != "") {
		p.out = append(p.out, Game{Tags: p.tags, Moves: p.moves, Line: p.start})
	}
	p.started = false
	return nil
}

// word handles one movetext token: a move number, a NAG, a result or a move.
func (p *pgnParser) word(tok string) error {
	switch tok {
	case "1-0", "0-1", "1/2-1/2", "*":
		if !p.started {
			p.begin()
		}
		return p.finish()
	}
	if tok[0] == '$' {
		return nil
	}
	// Strip a move number: "12." "12..." or "12...Nf6".
	k := 0
	for k < len(tok) && unicode.IsDigit(rune(tok[k])) {
		k++
	}
	if k > 0 && k < len(tok) && tok[k] == '.' {
		for k < len(tok) && tok[k] == '.' {
			k++
		}
		tok = tok[k:]
	} else if k == len(tok) {
		return nil // a bare number
	}
	tok = strings.TrimLeft(tok, ".")
	if tok == "" {
		return nil
	}
	if !p.started {
		p.begin()
	}
	m, err := parseSAN(p.pos, tok)
	if err != nil {
		return p.errorf("move %d (%s): %v", len(p.moves)+1, tok, err)
	}
	p.moves = append(p.moves, m.String())
	p.pos.MakeMove(m)
	return nil
}

// cleanSAN reduces a SAN move to a canonical form for comparison: no check or
// annotation marks, castling with letter O, promotion with '='.
func cleanSAN(s string) string {
	s = strings.TrimSuffix(s, "e.p.")
	s = strings.TrimRight(s, "+#!?")
	s = strings.ReplaceAll(s, "0", "O")
	if n := len(s); n >= 2 && strings.ContainsRune("QRBN", rune(s[n-1])) && s[n-2] >= '1' && s[n-2] <= '8' && s[0] >= 'a' && s[0] <= 'h' {
		s = s[:n-1] + "=" + s[n-1:]
	}
	return s
}

// parseSAN finds the legal move whose SAN is s.
func parseSAN(pos *board.Position, s string) (board.Move, error) {
	want := cleanSAN(s)
	var list board.MoveList
	pos.GenerateLegal(&list)
	for _, m := range list.Slice() {
		if cleanSAN(pos.SAN(m)) == want {
			return m, nil
		}
	}
	return board.NullMove, fmt.Errorf("not a legal move in %s", pos.FEN())
}
