// Package pgnimport turns played games into a dataset (SPEC §3): a PGN
// file written by cutechess-cli, fastchess or bin/match, whose move
// comments carry the engines' scores.
//
// # Rows
//
// Every mainline move whose comment gives a score (see pgn.ParseEval:
// "+0.35/12 0.51s", "-M6/20 0.2s", fastchess's extra fields) gives a row:
// the position before the move (fen, planes), the move as both move and
// best_move (an engine played it), its policy index, the score turned to
// White's point of view in centipawns (a mate in n plies is ±(32000 − n)),
// the depth, the nodes when fastchess gives them ("n=N", else 0) and the
// game's result. ply counts from the game's first position, the standard
// one or its FEN tag's. A book move ("book") or a move without a score
// gives no row but is played; rows stay contiguous (SPEC §3), so a move
// without a score after scored ones ends a run of rows, and the scored
// moves after it start another, with a game id of its own.
//
// # Games
//
// game_id numbers the runs of rows 0, 1, 2, ... in file order (one run per
// game unless a move without a score interrupts it). termination is the
// rules' ending of the final position (checkmate, stalemate, threefold,
// fifty-move, insufficient material), and otherwise adjudicated win or
// adjudicated draw by the result, which comes from the Result tag and the
// movetext's termination marker (they must agree). A game is skipped,
// and the rest imported, when it is malformed (an illegal or unreadable
// move, a bad tag or FEN, an unbalanced variation), when its result is
// "*" or missing, or contradicts the final position's checkmate or
// draw, when it is of a variant other than standard chess, or when a
// comment's score cannot be one (pgn.ParseEval's errors).
//
// # Metadata
//
// Besides the writer's keys (the engine version "unknown (imported from
// PGN)", the config {"import": {"format": "pgn", "source": FILE}}), a file
// records KeyFormat, KeySource, KeyGames and KeySkipped (docs/format.md).
package pgnimport

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"chessforge/datasets"
	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// The metadata keys an import writes beside the writer's.
const (
	KeyFormat  = "chessforge.import.format"  // "pgn"
	KeySource  = "chessforge.import.source"  // the PGN file, as given
	KeyGames   = "chessforge.import.games"   // games that gave rows
	KeySkipped = "chessforge.import.skipped" // games skipped as malformed or unfinished
)

// mateScore is the score of a mate in 0 plies, as in the datasets.
const mateScore = 32000

// Options are an import's settings; the zero value is valid.
type Options struct {
	// Skipped, when set, is told of each game skipped, in file order.
	Skipped func(*Skip)
	// Progress, when set, is told of the rows each game gave, as it is
	// read.
	Progress func(rows int)
}

// Skip is a game of the PGN file that the import skipped, and why.
type Skip struct {
	Game   int    // its number in the file, from 1
	Source string // where it starts: "games.pgn:12"
	Reason string // "line 14: move 3 (Ke3): ...", "result * (unfinished)"
}

// Error says which game was skipped and why:
// "game 2 (games.pgn:12): line 14: move 3 (Ke3): ...".
func (s *Skip) Error() string {
	return fmt.Sprintf("game %d (%s): %s", s.Game, s.Source, s.Reason)
}

// Report says what an import read and wrote.
type Report struct {
	Games    int64 // games read (imported, skipped or without a score)
	Imported int64 // games that gave rows
	Skipped  int64 // games skipped (Options.Skipped)
	Unscored int64 // well-formed games of which no move has a score
	Runs     int64 // runs of rows written, one game id each
	Rows     int64 // rows written
}

// ErrNothing is the error of an import that found no game to import.
var ErrNothing = errors.New("no game to import")

// Import reads the PGN file src and writes its scored positions as a
// dataset file at out, as the package comment describes. The file is
// written under a temporary name and renamed when complete; a failed
// import leaves no file. An import in which no game gives a row fails
// with an error wrapping ErrNothing.
func Import(src, out string, opts Options) (*Report, error) {
	in, err := os.Open(src)
	if err != nil {
		return nil, fmt.Errorf("pgnimport: %w", err)
	}
	defer in.Close()
	config, err := json.Marshal(map[string]any{"import": map[string]string{"format": "pgn", "source": src}})
	if err != nil {
		return nil, err
	}
	w, err := datasets.Create(out, datasets.WriterOptions{
		EngineVersion: "unknown (imported from PGN)",
		Config:        config,
		Metadata:      map[string]string{KeyFormat: "pgn", KeySource: src},
	})
	if err != nil {
		return nil, err
	}
	im := &importer{w: w, rep: &Report{}, opts: opts}
	err = pgn.ReadEach(in, src, im.game)
	if err == nil && im.rep.Imported == 0 {
		err = fmt.Errorf("%s: %w (%d games read: %d skipped, %d without a scored move)",
			src, ErrNothing, im.rep.Games, im.rep.Skipped, im.rep.Unscored)
	}
	if err == nil {
		err = w.SetMetadata(KeyGames, strconv.FormatInt(im.rep.Imported, 10))
	}
	if err == nil {
		err = w.SetMetadata(KeySkipped, strconv.FormatInt(im.rep.Skipped, 10))
	}
	if err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return im.rep, nil
}

// importer turns the games ReadEach gives into rows.
type importer struct {
	w    *datasets.Writer
	rep  *Report
	opts Options
	runs [][]datasets.Row // the current game's runs of rows
}

// game imports one game, or reports it skipped.
func (im *importer) game(g *pgn.Game, bad *pgn.GameError) error {
	im.rep.Games++
	if bad != nil {
		im.skip(&Skip{Game: bad.Game, Source: fmt.Sprintf("%s:%d", bad.Name, bad.Start),
			Reason: fmt.Sprintf("line %d: %s", bad.Line, bad.Reason)})
		return nil
	}
	number := int(im.rep.Games)
	if reason := im.rows(g); reason != "" {
		im.skip(&Skip{Game: number, Source: g.Source, Reason: reason})
		return nil
	}
	if len(im.runs) == 0 {
		im.rep.Unscored++
		return nil
	}
	im.rep.Imported++
	for _, run := range im.runs {
		for i := range run {
			run[i].GameID = im.rep.Runs
			if err := im.w.Write(&run[i]); err != nil {
				return err
			}
		}
		im.rep.Runs++
		im.rep.Rows += int64(len(run))
		if im.opts.Progress != nil {
			im.opts.Progress(len(run))
		}
	}
	return nil
}

func (im *importer) skip(s *Skip) {
	im.rep.Skipped++
	if im.opts.Skipped != nil {
		im.opts.Skipped(s)
	}
}

// rows replays g into im.runs, returning why it must be skipped, or "".
func (im *importer) rows(g *pgn.Game) string {
	im.runs = im.runs[:0]
	if v := g.Tags["Variant"]; v != "" && !strings.EqualFold(v, "standard") && !strings.EqualFold(v, "chess") {
		return fmt.Sprintf("variant %q: only standard chess is imported", v)
	}
	white, reason := result(g)
	if reason != "" {
		return reason
	}
	pos, err := g.Start()
	if err != nil {
		return fmt.Sprintf("FEN tag: %v", err)
	}
	var run []datasets.Row
	endRun := func() {
		if len(run) > 0 {
			im.runs = append(im.runs, run)
			run = nil
		}
	}
	for i, m := range g.Moves {
		comment := ""
		if i < len(g.Comments) {
			comment = g.Comments[i]
		}
		e, err := pgn.ParseEval(comment)
		if err != nil {
			return fmt.Sprintf("move %d (%s): %v", i+1, pos.SAN(m), err)
		}
		if !e.Scored {
			endRun()
			pos.MakeMove(m)
			continue
		}
		run = append(run, datasets.Row{})
		r := &run[len(run)-1]
		if err := r.SetPosition(pos, 0, m, m); err != nil {
			return fmt.Sprintf("move %d (%s): %v", i+1, pos.SAN(m), err)
		}
		score := e.CP
		switch {
		case e.Mate > 0:
			score = mateScore - e.Mate
		case e.Mate < 0:
			score = -mateScore - e.Mate
		}
		if pos.SideToMove() == board.Black {
			score = -score
		}
		r.ScoreCP, r.Depth, r.Nodes, r.Result = int32(score), int32(e.Depth), e.Nodes, white
		pos.MakeMove(m)
	}
	endRun()
	term, reason := termination(pos, white)
	if reason != "" {
		return reason
	}
	for _, run := range im.runs {
		for i := range run {
			run[i].Termination = term
		}
	}
	return ""
}

// result returns White's points in g, from the Result tag and the
// termination marker, or why they give none.
func result(g *pgn.Game) (white float32, reason string) {
	tag, hasTag := g.Tags["Result"]
	if hasTag && g.Result != tag {
		return 0, fmt.Sprintf("bad result: the Result tag says %q, the movetext ends in %q", tag, g.Result)
	}
	switch g.Result {
	case pgn.Unfinished:
		return 0, "result * (an unfinished game)"
	case "":
		return 0, "bad result: no Result tag and no result after the moves"
	}
	white, ok := pgn.Points(g.Result)
	if !ok {
		return 0, fmt.Sprintf("bad result %q: want 1-0, 0-1 or 1/2-1/2", g.Result)
	}
	return white, ""
}

// termination returns how a game with White's points white ended in the
// final position pos, or why the result contradicts it.
func termination(pos *board.Position, white float32) (datasets.Termination, string) {
	o := pos.Outcome()
	if o == board.Ongoing {
		if white == 0.5 {
			return datasets.TerminationAdjudicatedDraw, ""
		}
		return datasets.TerminationAdjudicatedWin, ""
	}
	want, _ := pgn.RuleResult(o, pos.SideToMove())
	if got := pgn.ResultOf(white); got != want {
		return 0, fmt.Sprintf("bad result %s: the final position is %v (%s)", got, o, want)
	}
	return datasets.RuleTermination(o), ""
}
