package pgn

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"chessforge/engine/board"
)

// ReadGames reads every game of a PGN file: its tags, its start position
// (the standard one, or that of a FEN tag), its mainline moves in Standard
// Algebraic Notation, each checked for legality by replaying it, and the
// comments after them (Game.Comments). Comments before the first move, ';'
// comments to the end of the line, '%' escape lines, variations, NAGs and
// move numbers are skipped. A game ends at its result or where the tags of
// the next game begin. The first malformed game is an error (a *GameError,
// naming the file, the line and the game, counted from 1). name labels
// errors and games.
func ReadGames(r io.Reader, name string) ([]Game, error) {
	var games []Game
	err := ReadEach(r, name, func(g *Game, bad *GameError) error {
		if bad != nil {
			return bad
		}
		games = append(games, *g)
		return nil
	})
	return games, err
}

// GameError is a malformed game of a PGN file: an illegal or unreadable
// move, a bad tag, an unbalanced variation, an unterminated comment.
type GameError struct {
	Name   string // the file, as ReadEach was given it
	Game   int    // the game's number in the file, from 1
	Start  int    // the line where the game starts
	Line   int    // the line of the fault
	Reason string
}

// Error gives the file, the line of the fault, the game and the reason:
// "games.pgn:12: game 2: move 3 (Ke3): ...".
func (e *GameError) Error() string {
	return fmt.Sprintf("%s:%d: game %d: %s", e.Name, e.Line, e.Game, e.Reason)
}

// ReadEach reads the games of a PGN file as ReadGames does, calling fn
// with each in file order: with the game, or with a *GameError for a
// malformed one, after which reading goes on at the next game (after the
// malformed game's result, or where the tags of the next game begin; a
// '[' at the start of a line inside a variation ends the variation, which
// was left open). The *Game is fn's to keep. An error from fn stops the
// reading and is returned, as is a failure to read r. The file is read a
// chunk at a time, cut at blank lines, so a file of any size is read in
// the memory of a few of its games.
func ReadEach(r io.Reader, name string, fn func(*Game, *GameError) error) error {
	p := &parser{in: bufio.NewReaderSize(r, 64<<10), name: name, line: 1, fn: fn}
	return p.parse()
}

// chunkBytes is the least text the parser reads at once: whole lines up
// to a blank one, so that only a comment can run on into the next chunk.
// Tests lower it.
var chunkBytes = 256 << 10

// parser holds the state of ReadEach.
type parser struct {
	in   *bufio.Reader
	eof  bool
	src  string // the text read and not yet parsed, from i
	i    int
	name string
	line int
	fn   func(*Game, *GameError) error

	game     int // games begun so far
	start    int // the line where the current game starts
	cur      Game
	pos      *board.Position
	started  bool       // a tag, move or result of the current game has been seen
	movetext bool       // a move of the current game has been seen
	bad      *GameError // the current game's fault; the rest of it is skipped
	depth    int        // variation nesting
}

// more reads the next chunk of the file after the text not yet parsed
// (src from i, which then starts at 0): whole lines, at least chunkBytes
// of them up to a blank line, or the rest of the file. It reports whether
// anything was read.
func (p *parser) more() (bool, error) {
	if p.eof {
		return false, nil
	}
	var b strings.Builder
	b.WriteString(p.src[p.i:])
	n := 0
	for {
		line, err := p.in.ReadString('\n')
		b.WriteString(line)
		n += len(line)
		if err == io.EOF {
			p.eof = true
			break
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", p.name, err)
		}
		if n >= chunkBytes && strings.TrimSpace(line) == "" {
			break
		}
	}
	p.src, p.i = b.String(), 0
	return n > 0, nil
}

// fail marks the current game malformed (its first fault counts).
func (p *parser) fail(format string, args ...any) {
	if !p.started {
		p.begin()
	}
	if p.bad == nil {
		p.bad = &GameError{Name: p.name, Game: p.game, Start: p.start, Line: p.line, Reason: fmt.Sprintf(format, args...)}
	}
}

func (p *parser) parse() error {
	for {
		if p.i == len(p.src) {
			ok, err := p.more()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			continue
		}
		c := p.src[p.i]
		atLineStart := p.i == 0 || p.src[p.i-1] == '\n'
		switch {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '{':
			j := strings.IndexByte(p.src[p.i:], '}')
			for j < 0 && !p.eof { // the comment runs on into the next chunk
				if _, err := p.more(); err != nil {
					return err
				}
				j = strings.IndexByte(p.src, '}')
			}
			if j < 0 {
				p.fail("unterminated comment")
				p.i = len(p.src)
				break
			}
			text := p.src[p.i+1 : p.i+j]
			p.line += strings.Count(text, "\n")
			p.i += j + 1
			if p.depth == 0 {
				p.comment(text)
			}
		case c == ';' || (c == '%' && atLineStart):
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '(':
			p.depth++
			p.i++
		case c == ')':
			if p.depth == 0 {
				p.fail("')' without '('")
			} else {
				p.depth--
			}
			p.i++
		case c == '[' && p.depth > 0 && atLineStart:
			p.fail("a variation is left open")
			p.depth = 0
		case c == '[' && p.depth == 0:
			if err := p.tag(); err != nil {
				return err
			}
		default:
			tok := p.token()
			if p.depth > 0 {
				continue
			}
			if err := p.word(tok); err != nil {
				return err
			}
		}
	}
	if p.depth != 0 {
		p.fail("the file ends inside a variation")
	}
	return p.finish()
}

// comment records a comment of the mainline after the move it follows;
// comments after one move are joined by a space.
func (p *parser) comment(text string) {
	if !p.started || len(p.cur.Moves) == 0 || p.bad != nil {
		return
	}
	text = strings.Join(strings.Fields(text), " ")
	for len(p.cur.Comments) < len(p.cur.Moves) {
		p.cur.Comments = append(p.cur.Comments, "")
	}
	c := &p.cur.Comments[len(p.cur.Moves)-1]
	if *c != "" && text != "" {
		*c += " "
	}
	*c += text
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
// escaped quotes and backslashes. A malformed tag fails the game and its
// line is skipped.
func (p *parser) tag() error {
	if p.started && p.movetext {
		if err := p.finish(); err != nil { // tags after moves without a result: a new game begins
			return err
		}
	}
	if !p.started {
		p.begin()
	}
	s := p.src[p.i:]
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[:nl]
	}
	bad := func(why string) error {
		p.fail("tag %s: %s", strings.TrimSpace(s), why)
		p.i += len(s)
		return nil
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
			p.fail("FEN tag: %v", err)
			return nil
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
	p.started, p.movetext, p.bad, p.start = true, false, nil, p.line
	p.cur = Game{Tags: map[string]string{}, Source: fmt.Sprintf("%s:%d", p.name, p.line)}
	p.pos = board.NewPosition()
}

// finish hands the current game, or its fault, to fn.
func (p *parser) finish() error {
	if !p.started {
		return nil
	}
	p.started = false
	if p.bad != nil {
		return p.fn(nil, p.bad)
	}
	if p.cur.Result == "" {
		p.cur.Result = p.cur.Tags["Result"]
	}
	if len(p.cur.Comments) > 0 {
		for len(p.cur.Comments) < len(p.cur.Moves) {
			p.cur.Comments = append(p.cur.Comments, "")
		}
	}
	g := p.cur
	return p.fn(&g, nil)
}

// word handles one movetext token: a move number, a NAG, a result or a
// move, in SAN (long algebraic too) or, failing that, in UCI notation.
// After a fault only a result counts: it ends the game.
func (p *parser) word(tok string) error {
	switch tok {
	case WhiteWins, BlackWins, Draw, Unfinished:
		if !p.started {
			p.begin()
		}
		p.cur.Result = tok
		return p.finish()
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
	p.movetext = true
	if p.bad != nil {
		return nil
	}
	m, err := p.pos.ParseSAN(tok)
	if err != nil { // fastchess's -pgnout notation=uci writes moves as UCI does
		if u, uerr := p.pos.ParseUCIMove(tok); uerr == nil {
			m, err = u, nil
		}
	}
	if err != nil {
		p.fail("move %d (%s): %v", len(p.cur.Moves)+1, tok, err)
		return nil
	}
	p.cur.Moves = append(p.cur.Moves, m)
	p.pos.MakeMove(m)
	return nil
}
