package selfplay

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"chessforge/engine/board"
)

// Opening is where a game starts: a position (the standard one when FEN is
// empty) and moves played from it before the engine chooses.
type Opening struct {
	FEN   string
	Moves []board.Move
	Name  string // "startpos", "book.pgn:12 Ruy Lopez", "endgame KRPvKR"
}

// setUp returns the opening's start position (before its moves).
func (o *Opening) setUp() (*board.Position, error) {
	if o.FEN == "" {
		return board.NewPosition(), nil
	}
	return board.ParseFEN(o.FEN)
}

// LoadBook reads openings from an EPD file (one position a line) or a PGN
// file (each game's moves, from its FEN tag when it has one): PGN when the
// name ends in .pgn, EPD when it ends in .epd, otherwise PGN when the first
// text line starts with '[' or a move number. Every opening must be legal and
// leave a game still in progress; an error names the file and line.
func LoadBook(path string) ([]Opening, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("book: %w", err)
	}
	name := filepath.Base(path)
	var book []Opening
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".pgn":
		book, err = parsePGNBook(name, data)
	case ext == ".epd":
		book, err = parseEPD(name, data)
	case looksLikePGN(data):
		book, err = parsePGNBook(name, data)
	default:
		book, err = parseEPD(name, data)
	}
	if err != nil {
		return nil, err
	}
	if len(book) == 0 {
		return nil, fmt.Errorf("book %s: no openings", path)
	}
	return book, nil
}

func looksLikePGN(data []byte) bool {
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "%") {
			continue
		}
		return line[0] == '[' || (line[0] >= '1' && line[0] <= '9')
	}
	return false
}

// parseEPD reads one position a line: the four FEN fields of board, side,
// castling and en passant, then optional operations (hmvc and fmvn set the
// move counters, an id "..." operation names the opening). Blank lines and lines starting with # are skipped.
func parseEPD(name string, data []byte) ([]Opening, error) {
	var book []Opening
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("book %s:%d: an EPD line needs board, side, castling and en-passant fields", name, n)
		}
		fen := strings.Join(f[:4], " ") + " " + epdOp(line, "hmvc", "0") + " " + epdOp(line, "fmvn", "1")
		pos, err := board.ParseFEN(fen)
		if err != nil {
			return nil, fmt.Errorf("book %s:%d: %w", name, n, err)
		}
		if o := pos.Outcome(); o != board.Ongoing {
			return nil, fmt.Errorf("book %s:%d: the game is already over (%v)", name, n, o)
		}
		label := fmt.Sprintf("%s:%d", name, n)
		if _, after, ok := strings.Cut(line, ` id "`); ok {
			if id, _, ok := strings.Cut(after, `"`); ok {
				label += " " + id
			}
		}
		book = append(book, Opening{FEN: pos.FEN(), Name: label})
	}
	return book, sc.Err()
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

// parsePGNBook reads the games of a PGN file as openings: the moves of each
// game's main line.
func parsePGNBook(name string, data []byte) ([]Opening, error) {
	games, err := parsePGN(name, data)
	if err != nil {
		return nil, err
	}
	book := make([]Opening, 0, len(games))
	for _, g := range games {
		o, err := pgnOpening(name, g)
		if err != nil {
			return nil, err
		}
		book = append(book, o)
	}
	return book, nil
}

// pgnGame is one game of a PGN file as text: its tags and main-line moves.
type pgnGame struct {
	start int // line of its first tag or move
	tags  map[string]string
	sans  []string
	lines []int // line of each move
}

// parsePGN splits a PGN file into games (comments, variations and NAGs are
// skipped).
func parsePGN(name string, data []byte) ([]pgnGame, error) {
	var games []pgnGame
	var (
		cur     = pgnGame{tags: map[string]string{}}
		inGame  bool
		comment bool // inside {...}
		depth   int  // variation nesting
	)
	begin := func(n int) {
		if !inGame {
			inGame, cur.start = true, n
		}
	}
	finish := func() {
		if inGame {
			games = append(games, cur)
		}
		cur, inGame = pgnGame{tags: map[string]string{}}, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
lines:
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if !comment && depth == 0 && strings.HasPrefix(trim, "[") {
			if len(cur.sans) > 0 {
				finish()
			}
			begin(n)
			key, val, err := parseTag(trim)
			if err != nil {
				return nil, fmt.Errorf("pgn %s:%d: %w", name, n, err)
			}
			cur.tags[key] = val
			continue
		}
		if !comment && strings.HasPrefix(trim, "%") {
			continue
		}
		for tok := range strings.FieldsSeq(spaceOut(line)) {
			switch {
			case comment:
				if tok == "}" {
					comment = false
				}
				continue
			case tok == "{":
				comment = true
				continue
			case tok == ";":
				continue lines
			case tok == "(":
				depth++
				continue
			case tok == ")":
				depth--
				if depth < 0 {
					return nil, fmt.Errorf("pgn %s:%d: ')' without '('", name, n)
				}
				continue
			}
			if depth > 0 || tok[0] == '$' {
				continue
			}
			switch tok {
			case "1-0", "0-1", "1/2-1/2", "*":
				begin(n)
				finish()
				continue
			}
			if tok = stripMoveNumber(tok); tok == "" {
				continue
			}
			begin(n)
			cur.sans, cur.lines = append(cur.sans, tok), append(cur.lines, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pgn %s: %w", name, err)
	}
	if comment || depth != 0 {
		return nil, fmt.Errorf("pgn %s: the file ends inside a comment or variation", name)
	}
	finish()
	return games, nil
}

// stripMoveNumber removes a move number ("12." or "12...") from the front of
// a token; a token that is only a move number becomes empty.
func stripMoveNumber(tok string) string {
	i := 0
	for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
		i++
	}
	if i == 0 || i == len(tok) || tok[i] != '.' {
		if i == len(tok) {
			return ""
		}
		return tok
	}
	for i < len(tok) && tok[i] == '.' {
		i++
	}
	return tok[i:]
}

// spaceOut puts spaces around the PGN delimiters so that they split as tokens.
func spaceOut(line string) string {
	r := strings.NewReplacer("{", " { ", "}", " } ", "(", " ( ", ")", " ) ", ";", " ; ")
	return r.Replace(line)
}

func parseTag(s string) (key, val string, err error) {
	if !strings.HasSuffix(s, "]") {
		return "", "", fmt.Errorf("tag %q does not end in ]", s)
	}
	body := strings.TrimSpace(s[1 : len(s)-1])
	key, rest, ok := strings.Cut(body, " ")
	rest = strings.TrimSpace(rest)
	if !ok || len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", "", fmt.Errorf("tag %q: want [Name \"value\"]", s)
	}
	return key, strings.ReplaceAll(rest[1:len(rest)-1], `\"`, `"`), nil
}

// pgnOpening plays a PGN game's SAN moves from its start position.
func pgnOpening(name string, g pgnGame) (Opening, error) {
	o := Opening{FEN: g.tags["FEN"], Name: fmt.Sprintf("%s:%d", name, g.start)}
	if v := g.tags["Opening"]; v != "" {
		o.Name += " " + v
	} else if v := g.tags["ECO"]; v != "" {
		o.Name += " " + v
	}
	pos, err := o.setUp()
	if err != nil {
		return o, fmt.Errorf("book %s:%d: FEN tag: %w", name, g.start, err)
	}
	if o.FEN != "" {
		o.FEN = pos.FEN()
	}
	for i, san := range g.sans {
		m, err := parseSAN(pos, san)
		if err != nil {
			return o, fmt.Errorf("book %s:%d: %w", name, g.lines[i], err)
		}
		pos.MakeMove(m)
		o.Moves = append(o.Moves, m)
	}
	if oc := pos.Outcome(); oc != board.Ongoing {
		return o, fmt.Errorf("book %s:%d: the game is already over after its moves (%v)", name, g.start, oc)
	}
	return o, nil
}

// parseSAN finds the legal move of pos written san (check marks, annotation
// glyphs and "0-0" castling tolerated).
func parseSAN(pos *board.Position, san string) (board.Move, error) {
	want := normalizeSAN(san)
	var list board.MoveList
	pos.GenerateLegal(&list)
	for _, m := range list.Slice() {
		if normalizeSAN(pos.SAN(m)) == want {
			return m, nil
		}
	}
	return board.NullMove, fmt.Errorf("move %q is not legal in %s", san, pos.FEN())
}

func normalizeSAN(s string) string {
	s = strings.TrimRight(s, "+#!?")
	s = strings.TrimSuffix(s, "e.p.")
	return strings.ReplaceAll(s, "0", "O")
}

// Signature is a material signature such as KRPvKR: White's pieces, then
// Black's.
type Signature struct {
	Text   string
	Pieces [2][]board.PieceType // by colour, the king included
}

// ParseSignatures reads comma-separated material signatures ("" gives none).
// Each side has exactly one king, at most eight pawns and sixteen pieces.
func ParseSignatures(text string) ([]Signature, error) {
	var sigs []Signature
	for part := range strings.SplitSeq(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		w, b, ok := strings.Cut(strings.ToUpper(part), "V")
		if !ok {
			return nil, fmt.Errorf("signature %q: want White's pieces, v, Black's, e.g. KRPvKR", part)
		}
		s := Signature{Text: part}
		for c, side := range []string{w, b} {
			kings, pawns := 0, 0
			for _, ch := range side {
				i := strings.IndexRune("PNBRQK", ch)
				if i < 0 {
					return nil, fmt.Errorf("signature %q: %q is not a piece letter (KQRBNP)", part, ch)
				}
				pt := board.PieceType(i)
				switch pt {
				case board.King:
					kings++
				case board.Pawn:
					pawns++
				}
				s.Pieces[c] = append(s.Pieces[c], pt)
			}
			if kings != 1 || pawns > 8 || len(side) > 16 {
				return nil, fmt.Errorf("signature %q: each side needs one king, at most 8 pawns and 16 pieces", part)
			}
		}
		sigs = append(sigs, s)
	}
	return sigs, nil
}

// RandomPosition places the signature's pieces on random squares (pawns
// on ranks 2 to 7) with a random side to move, and retries until the
// position is legal and the game not over. It fails only for signatures that
// admit no such position within many tries.
func (s Signature) RandomPosition(rng *rand.Rand) (*board.Position, error) {
	var grid [64]byte
	for range 10000 {
		for i := range grid {
			grid[i] = 0
		}
		for c := range 2 {
			for _, pt := range s.Pieces[c] {
				lo, hi := 0, 64
				if pt == board.Pawn {
					lo, hi = 8, 56
				}
				for {
					sq := lo + rng.IntN(hi-lo)
					if grid[sq] == 0 {
						grid[sq] = board.MakePiece(board.Color(c), pt).Letter()
						break
					}
				}
			}
		}
		side := "w"
		if rng.IntN(2) == 1 {
			side = "b"
		}
		pos, err := board.ParseFEN(placement(&grid) + " " + side + " - - 0 1")
		if err == nil && pos.Outcome() == board.Ongoing {
			return pos, nil
		}
	}
	return nil, fmt.Errorf("signature %s: found no legal position in 10000 tries", s.Text)
}

// placement writes the FEN board field of a grid of piece letters (0 empty).
func placement(grid *[64]byte) string {
	var sb strings.Builder
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := range 8 {
			ch := grid[r*8+f]
			if ch == 0 {
				empty++
				continue
			}
			if empty > 0 {
				sb.WriteByte(byte('0' + empty))
				empty = 0
			}
			sb.WriteByte(ch)
		}
		if empty > 0 {
			sb.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			sb.WriteByte('/')
		}
	}
	return sb.String()
}
