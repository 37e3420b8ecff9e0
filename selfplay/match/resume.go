package match

import (
	"fmt"
	"slices"
	"strconv"

	"chessforge/engine/board"
	"chessforge/engine/pgn"
)

// resume checks the games of an earlier run of the match (cfg.Earlier)
// against the games this match would play, spec giving game g's, and
// returns them as records to count. A game must carry a Round within the
// match, once; the tags this match would write (Event, White, Black,
// Opening, the time controls), the start position and the book moves of
// its opening; and a result. Anything else is an error naming the game's
// place in its file and what differs: the games of another match (other
// engines, seed, openings, time control) are never counted as this one's.
func (h *pgnHeader) resume(cfg *Config, spec func(g int) gameSpec) ([]*gameRecord, error) {
	if len(cfg.Earlier) == 0 {
		return nil, nil
	}
	if cfg.dama() {
		return nil, fmt.Errorf("resuming: only a chess match resumes from its games")
	}
	recs := make([]*gameRecord, 0, len(cfg.Earlier))
	seen := make(map[int]string, len(cfg.Earlier))
	for i := range cfg.Earlier {
		g := &cfg.Earlier[i]
		round, err := strconv.Atoi(g.Tags["Round"])
		if err != nil || round < 1 || round > cfg.Games {
			return nil, fmt.Errorf("%s: Round %q: not a game of this match of %d games", g.Source, g.Tags["Round"], cfg.Games)
		}
		if at, ok := seen[round]; ok {
			return nil, fmt.Errorf("%s: round %d again (first at %s)", g.Source, round, at)
		}
		seen[round] = g.Source
		rec := &gameRecord{spec: spec(round - 1), result: g.Tags["Result"], termination: g.Tags["Termination"]}
		if err := h.sameGame(g, rec); err != nil {
			return nil, fmt.Errorf("%s: round %d: %w", g.Source, round, err)
		}
		if isFault(rec.termination) {
			rec.fault[faultSide(g, rec)] = rec.termination
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// sameGame checks that g, read back from a PGN file, is the game rec.spec
// describes: the tags that h would write for it, its start, its book moves
// and a finished result.
func (h *pgnHeader) sameGame(g *pgn.Game, rec *gameRecord) error {
	want, _ := h.record(rec, rec.spec.opening.Name, 0, TimeControl.pgnTag)
	for _, tag := range []string{"White", "Black", "Opening", "TimeControl", "WhiteTimeControl", "BlackTimeControl", "Event"} {
		if g.Tags[tag] != want[tag] {
			return fmt.Errorf("its %s tag is %q, this match's is %q", tag, g.Tags[tag], want[tag])
		}
	}
	if _, ok := pgn.Points(rec.result); !ok {
		return fmt.Errorf("its result %q is not a finished game's", rec.result)
	}
	o := &rec.spec.opening
	start, err := o.Start()
	if err != nil {
		return err
	}
	got, err := g.Start()
	if err != nil {
		return err
	}
	if got.FEN() != start.FEN() || len(g.Moves) < len(o.Moves) || !slices.Equal(g.Moves[:len(o.Moves)], o.Moves) {
		return fmt.Errorf("it does not begin with its opening, %s", o.Name)
	}
	return nil
}

// faultSide returns the side (0 = A, 1 = B) that forfeited the game g,
// read back: the loser, or, when a loss on time became a draw because the
// opponent had only its king, the side to move at the end.
func faultSide(g *pgn.Game, rec *gameRecord) int {
	white, _ := pgn.Points(rec.result)
	loserWhite := white == 0
	if white == 0.5 {
		end, err := g.End()
		loserWhite = err == nil && end.SideToMove() == board.White
	}
	if loserWhite == rec.spec.aWhite {
		return 0
	}
	return 1
}
