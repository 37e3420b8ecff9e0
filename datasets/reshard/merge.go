package reshard

import (
	"fmt"
	"strings"

	"chessforge/datasets"
)

// MergeOptions configures Merge.
type MergeOptions struct {
	// Dedup drops the rows at the start of each game whose positions came
	// earlier in the merge (in the order of the files): a game's rows are
	// kept from its first position not seen before, so the game stays
	// whole (a dataset is a record of games that replay from their rows;
	// docs/format.md §3), as if its write window started there. Duplicates
	// are mostly shared openings, which this removes; a position that
	// recurs later in a game is kept. Two rows hold the same position when
	// their FENs agree on the first four fields: placement, side to move,
	// castling rights and en-passant square; the move counters are
	// ignored, and so are the rows' other columns. Positions are compared
	// by a 64-bit FNV-1a hash of those fields: the chance that two
	// different positions collide among n is about n²/2⁶⁵, 3·10⁻⁴ for 10⁸
	// positions.
	Dedup    bool
	Progress Progress
}

// MergeReport counts what Merge did.
type MergeReport struct {
	Files   int   // source files read
	Rows    int64 // rows read
	Written int64 // rows written
	Dropped int64 // rows dropped by Dedup: the seen openings of games
	// SharedGameIDs counts game ids found in more than one source file:
	// game_id must be unique in a dataset, so merging files of different
	// runs with overlapping ids mixes games.
	SharedGameIDs int64
}

// Merge writes the rows of every dataset in srcs (files, directories or
// globs), file after file, into the one file out.
func Merge(srcs []string, out string, opts MergeOptions) (*MergeReport, error) {
	if len(srcs) == 0 {
		return nil, fmt.Errorf("reshard: merge needs at least one dataset")
	}
	infos, err := statAll(srcs)
	if err != nil {
		return nil, err
	}
	wo, err := writerOptions(infos, map[string]any{"op": "merge", "sources": srcs, "dedup": opts.Dedup})
	if err != nil {
		return nil, err
	}
	w, err := datasets.Create(out, wo)
	if err != nil {
		return nil, err
	}
	rep := &MergeReport{Files: len(infos)}
	seen := map[uint64]struct{}{}
	gameFile := map[int64]string{}
	shared := map[int64]bool{}
	// The game being read, and whether its rows are still the leading run
	// of positions seen before, which Dedup drops.
	var curFile string
	var curGame int64
	leading := false
	err = eachRow(infos, opts.Progress, func(file string, r *datasets.Row) error {
		rep.Rows++
		if file != curFile || r.GameID != curGame {
			curFile, curGame, leading = file, r.GameID, true
		}
		if f, ok := gameFile[r.GameID]; !ok {
			gameFile[r.GameID] = file
		} else if f != file && !shared[r.GameID] {
			shared[r.GameID] = true
			rep.SharedGameIDs++
		}
		if opts.Dedup {
			k := PositionKey(r.FEN)
			_, dup := seen[k]
			if leading && dup {
				rep.Dropped++
				return nil
			}
			leading = false
			seen[k] = struct{}{}
		}
		if err := w.Write(r); err != nil {
			return fmt.Errorf("reshard: %s: game %d ply %d: %w", file, r.GameID, r.Ply, err)
		}
		return nil
	})
	if err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	rep.Written = w.Rows()
	return rep, nil
}

// PositionKey is Merge's duplicate key of a FEN: the 64-bit FNV-1a hash of
// its first four fields (placement, side to move, castling, en passant).
func PositionKey(fen string) uint64 {
	end, fields := len(fen), 0
	for i := 0; i < len(fen); i++ {
		if fen[i] == ' ' {
			if fields++; fields == 4 {
				end = i
				break
			}
		}
	}
	fen = strings.TrimSpace(fen[:end])
	h := uint64(14695981039346656037)
	for i := 0; i < len(fen); i++ {
		h ^= uint64(fen[i])
		h *= 1099511628211
	}
	return h
}
