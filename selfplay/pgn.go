package selfplay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/dama/pdn"
	"chessforge/engine/pgn"
	"chessforge/engine/uci"
)

// WritePGN writes g as a PGN game (see pgn.Write): the seven-tag roster
// with Round the game number (1-based), the start position when it is not
// the standard one, then the game ID, the opening, the ply count and the
// termination, and the moves in SAN.
func WritePGN(w io.Writer, g *Game) error {
	err := pgn.Write(w, &pgn.Game{
		Tags:   g.tags(),
		FEN:    g.StartFEN,
		Moves:  g.moves(),
		Result: pgn.ResultOf(g.Result),
	})
	if err != nil {
		return fmt.Errorf("pgn: game %d: %w", g.Number, err)
	}
	return nil
}

// WritePDN writes a draughts game g in Portable Draughts Notation (see
// pdn.Write), with the tags WritePGN writes for a chess game: the seven-tag
// roster with Round the game number (1-based), GameType 22, the start
// position when it is not the standard one, then the game ID, the opening,
// the ply count and the termination; the moves in standard notation, and
// the result 2-0, 1-1 or 0-2.
func WritePDN(w io.Writer, g *Game) error {
	moves := make([]string, len(g.Plies))
	for i, pl := range g.Plies {
		moves[i] = pl.DamaMove.String()
	}
	err := pdn.Write(w, &pdn.Game{
		Tags:   g.tags(),
		FEN:    g.StartFEN,
		Moves:  moves,
		Result: pgn.ResultOf(g.Result),
	})
	if err != nil {
		return fmt.Errorf("pdn: game %d: %w", g.Number, err)
	}
	return nil
}

// tags returns the tags of the game's record but those of its start
// position and its result.
func (g *Game) tags() map[string]string {
	player := "chessforge " + uci.Version
	if g.engine != "" {
		player = g.engine
	}
	return map[string]string{
		"Event":       "chessforge self-play",
		"Site":        "?",
		"Date":        "????.??.??",
		"Round":       strconv.Itoa(g.Number + 1),
		"White":       player,
		"Black":       player,
		"Opening":     g.Opening,
		"Termination": g.Termination.String(),
		"GameId":      strconv.FormatInt(g.ID, 10),
		"PlyCount":    strconv.Itoa(len(g.Plies)),
	}
}

// moves returns the game's moves.
func (g *Game) moves() []board.Move {
	out := make([]board.Move, len(g.Plies))
	for i, pl := range g.Plies {
		out[i] = pl.Move
	}
	return out
}

// pgnFile appends games to a PGN file (PDN for draughts).
type pgnFile struct {
	path  string
	tmp   string // the temporary name the file has until its first commit; "" after
	f     *os.File
	w     *bufio.Writer
	saved int64 // the file's length up to the last game in a finished dataset file
}

// openPGN opens path for the games of a run. Without keep (a new run) the
// games go to a new file under the temporary name path+TempSuffix, which
// replaces path when the first dataset file is finished (commit), so that
// a run that fails before leaves the earlier PGN file as it was. With keep
// (a resumed run) the file keeps the games whose Round tag names a game
// that keep accepts, up to the first that it does not, and the new games
// follow; a temporary file that a killed new run left is the file then
// if it holds as many of those games (adoptTemp).
func openPGN(path string, keep func(game int) bool) (*pgnFile, error) {
	if err := configs.OutputFile(path); err != nil {
		return nil, fmt.Errorf("-pgn %w", err)
	}
	tmp := path + datasets.TempSuffix
	if keep == nil {
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("pgn: %w", err)
		}
		return &pgnFile{path: path, tmp: tmp, f: f, w: bufio.NewWriterSize(f, 64*1024)}, nil
	}
	if err := adoptTemp(path, tmp, keep); err != nil {
		return nil, fmt.Errorf("pgn %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pgn: %w", err)
	}
	end, _, err := keptPrefix(f, keep)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("pgn %s: %w", path, err)
	}
	if err := f.Truncate(end); err != nil {
		f.Close()
		return nil, fmt.Errorf("pgn: %w", err)
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("pgn: %w", err)
	}
	return &pgnFile{path: path, f: f, w: bufio.NewWriterSize(f, 64*1024), saved: end}, nil
}

// adoptTemp settles, for a resumed run, the games a killed new run left
// under the temporary name tmp. That run may have finished a dataset file
// and been killed before renaming tmp after it: then tmp holds every game
// of the finished files and replaces path. Or it finished none, and the
// finished files are an earlier run's, whose games path holds: then tmp,
// which holds fewer of them, is removed. The file that holds more of the
// games keep accepts is the run's; tmp on a tie.
func adoptTemp(path, tmp string, keep func(game int) bool) error {
	inTemp, err := keptGames(tmp, keep)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	inPath, err := keptGames(path, keep)
	if errors.Is(err, os.ErrNotExist) {
		inPath = -1
	} else if err != nil {
		return err
	}
	if inTemp < inPath {
		return os.Remove(tmp)
	}
	return os.Rename(tmp, path)
}

// keptGames returns how many whole games keep accepts the PGN file path
// holds from its start (keptPrefix).
func keptGames(path string, keep func(game int) bool) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	_, n, err := keptPrefix(f, keep)
	return n, err
}

// keptPrefix returns the length of the leading part of a PGN file written
// by WritePGN that holds whole games keep accepts, and their number: it
// stops before the first game keep rejects and drops a game cut short by a
// crash.
func keptPrefix(r io.Reader, keep func(game int) bool) (int64, int, error) {
	br := bufio.NewReader(r)
	var off, safe int64
	games := 0
	kept, afterResult := false, false
	for {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return 0, 0, err
		}
		whole := strings.HasSuffix(line, "\n")
		text := strings.TrimSpace(line)
		switch {
		case !whole:
			return safe, games, nil // a partial last line: the game it belongs to is cut
		case strings.HasPrefix(text, `[Round "`):
			n, convErr := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(text, `[Round "`), `"]`))
			if convErr != nil || n < 1 {
				return 0, 0, fmt.Errorf("bad Round tag %q at byte %d", text, off)
			}
			if kept = keep(n - 1); !kept {
				return safe, games, nil
			}
		case text == "" && afterResult:
			safe = off + int64(len(line))
		case text != "" && text[0] != '[' && kept && endsWithResult(text):
			safe = off + int64(len(line))
			games++
			afterResult = true
			off += int64(len(line))
			continue
		}
		afterResult = false
		off += int64(len(line))
		if err == io.EOF {
			return safe, games, nil
		}
	}
}

func endsWithResult(text string) bool {
	for _, r := range []string{pgn.WhiteWins, pgn.BlackWins, pgn.Draw, pgn.Unfinished, pdn.WhiteWins, pdn.BlackWins, pdn.Draw} {
		if text == r || strings.HasSuffix(text, " "+r) {
			return true
		}
	}
	return false
}

func (p *pgnFile) write(g *Game) error {
	write := WritePGN
	if g.Game == encoder.GameDama {
		write = WritePDN
	}
	if err := write(p.w, g); err != nil {
		return fmt.Errorf("pgn %s: %w", p.path, err)
	}
	return nil
}

// flush writes buffered games to the file.
func (p *pgnFile) flush() error {
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("pgn %s: %w", p.path, err)
	}
	return nil
}

// commit writes the buffered games to the file and marks them as saved:
// their dataset file is finished. The first commit of a new run's file
// gives it its name.
func (p *pgnFile) commit() error {
	if err := p.flush(); err != nil {
		return err
	}
	if p.tmp != "" {
		if err := os.Rename(p.tmp, p.path); err != nil {
			return fmt.Errorf("pgn: %w", err)
		}
		p.tmp = ""
	}
	end, err := p.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("pgn %s: %w", p.path, err)
	}
	p.saved = end
	return nil
}

// rollback drops the games written since the last commit, whose dataset
// file could not be finished, so that the file holds the saved games only.
func (p *pgnFile) rollback() error {
	p.w.Reset(p.f)
	if err := p.f.Truncate(p.saved); err != nil {
		return fmt.Errorf("pgn %s: %w", p.path, err)
	}
	if _, err := p.f.Seek(p.saved, io.SeekStart); err != nil {
		return fmt.Errorf("pgn %s: %w", p.path, err)
	}
	return nil
}

// close writes the buffered games and closes the file. A new run's file
// that was never committed (no dataset file was finished) is removed.
func (p *pgnFile) close() error {
	err := p.flush()
	if e := p.f.Close(); err == nil && e != nil {
		err = fmt.Errorf("pgn %s: %w", p.path, e)
	}
	if p.tmp != "" {
		os.Remove(p.tmp)
	}
	return err
}
