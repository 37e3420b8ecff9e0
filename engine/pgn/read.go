package pgn

import (
	"fmt"
	"io"
	"strings"

	"chessforge/engine/board"
)

// ReadGames reads every game of a PGN file: its tags, its start position
// (the standard one, or that of a FEN tag) and its mainline moves in
// Standard Algebraic Notation, each checked for legality by replaying it.
// Comments ({...} and ; to the end of the line), '%' escape lines,
// variations, NAGs and move numbers are skipped. A game ends at its result
// or where the tags of the next game begin. Errors name the file, the line
// and the game (counted from 1). name labels errors and games.
func ReadGames(r io.Reader, name string) ([]Game, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &parser{src: string(data), name: name, line: 1}
	return p.parse()
}

// parser holds the state of ReadGames.
type parser struct {
	src  string
	i    int
	name string
	line int

	out     []Game
	game    int // games begun so far
	cur     Game
	pos     *board.Position
	started bool // a tag, move or result of the current game has been seen
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: game %d: %s", p.name, p.line, p.game, fmt.Sprintf(format, args...))
}

func (p *parser) parse() ([]Game, error) {
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
				return nil, p.errorf("')' without '('")
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
		return nil, p.errorf("the file ends inside a variation")
	}
	p.finish()
	return p.out, nil
}

// token reads a run of characters up to white space or a delimiter.
func (p *parser) token() string {
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

// tag reads a tag pair, [Name "value"], on one line; the value may hold
// escaped quotes and backslashes.
func (p *parser) tag() error {
	if p.started && len(p.cur.Moves) > 0 {
		p.finish() // tags after moves without a result: a new game begins
	}
	if !p.started {
		p.begin()
	}
	s := p.src[p.i:]
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[:nl]
	}
	bad := func(why string) error {
		return p.errorf("tag %s: %s", strings.TrimSpace(s), why)
	}
	j := 1
	for j < len(s) && s[j] == ' ' {
		j++
	}
	k := j
	for k < len(s) && (isAlnum(s[k]) || s[k] == '_') {
		k++
	}
	key := s[j:k]
	if key == "" {
		return bad("want [Name \"value\"]")
	}
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k == len(s) || s[k] != '"' {
		return bad("the value must be quoted")
	}
	var v strings.Builder
	for k++; ; k++ {
		if k == len(s) {
			return bad("unterminated value")
		}
		if s[k] == '\\' && k+1 < len(s) && (s[k+1] == '"' || s[k+1] == '\\') {
			k++
		} else if s[k] == '"' {
			break
		}
		v.WriteByte(s[k])
	}
	for k++; k < len(s) && s[k] == ' '; k++ {
	}
	if k == len(s) || s[k] != ']' {
		return bad("want ']' after the value")
	}
	p.i += k + 1
	value := v.String()
	p.cur.Tags[key] = value
	switch key {
	case "FEN":
		pos, err := board.ParseFEN(value)
		if err != nil {
			return p.errorf("FEN tag: %v", err)
		}
		p.pos, p.cur.FEN = pos, pos.FEN()
	case "Opening":
		p.cur.Name = value
	case "ECO":
		if p.cur.Tags["Opening"] == "" {
			p.cur.Name = value
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *parser) begin() {
	p.game++
	p.started = true
	p.cur = Game{Tags: map[string]string{}, Source: fmt.Sprintf("%s:%d", p.name, p.line)}
	p.pos = board.NewPosition()
}

func (p *parser) finish() {
	if p.started {
		if p.cur.Result == "" {
			p.cur.Result = p.cur.Tags["Result"]
		}
		p.out = append(p.out, p.cur)
	}
	p.started = false
}

// word handles one movetext token: a move number, a NAG, a result or a move.
func (p *parser) word(tok string) error {
	switch tok {
	case WhiteWins, BlackWins, Draw, Unfinished:
		if !p.started {
			p.begin()
		}
		p.cur.Result = tok
		p.finish()
		return nil
	}
	if tok[0] == '$' {
		return nil
	}
	// Strip a move number: "12." "12..." or "12...Nf6"; skip a bare number.
	k := 0
	for k < len(tok) && tok[k] >= '0' && tok[k] <= '9' {
		k++
	}
	if k == len(tok) {
		return nil
	}
	if k > 0 && tok[k] == '.' {
		tok = tok[k:]
	}
	if tok = strings.TrimLeft(tok, "."); tok == "" {
		return nil
	}
	if !p.started {
		p.begin()
	}
	m, err := p.pos.ParseSAN(tok)
	if err != nil {
		return p.errorf("move %d (%s): %v", len(p.cur.Moves)+1, tok, err)
	}
	p.cur.Moves = append(p.cur.Moves, m)
	p.pos.MakeMove(m)
	return nil
}
