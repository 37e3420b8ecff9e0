package datasets

import (
	"math/rand/v2"
	"testing"

	"chessforge/datasets/fixture/playout"
	"chessforge/encoder"
	"chessforge/engine/board"
)

// testGame is a played game: its moves, the greedy policy's choices and
// material scores, and how it ended.
type testGame struct {
	id    int64
	plies []playout.Ply
	term  Termination
	res   float32
}

// playGames plays n games of random and greedy moves with a fixed seed.
func playGames(seed uint64, n, maxPlies int) []testGame {
	rng := rand.New(rand.NewPCG(seed, 99))
	games := make([]testGame, n)
	for i := range games {
		end, plies, outcome := playout.Play(rng, maxPlies, 0.6)
		g := testGame{id: int64(seed)<<32 | int64(i), plies: plies, res: 0.5}
		switch outcome {
		case board.Checkmate:
			g.term = TerminationCheckmate
			if end.SideToMove() == board.Black {
				g.res = 1
			} else {
				g.res = 0
			}
		case board.Stalemate:
			g.term = TerminationStalemate
		case board.ThreefoldRepetition:
			g.term = TerminationThreefold
		case board.FiftyMoveRule:
			g.term = TerminationFiftyMove
		case board.InsufficientMaterial:
			g.term = TerminationInsufficientMaterial
		default:
			g.term = TerminationPlyCap
		}
		games[i] = g
	}
	return games
}

// gameRows replays g, filling one Row per position through emit (the Row is
// reused between calls).
func gameRows(tb testing.TB, g testGame, row *Row, emit func(*Row)) {
	pos := board.NewPosition()
	for _, p := range g.plies {
		if err := row.SetPosition(pos, 0, p.Move, p.Best); err != nil {
			tb.Fatal(err)
		}
		row.GameID = g.id
		row.ScoreCP = int32(p.Score)
		row.Result = g.res
		row.Termination = g.term
		row.Depth = int32(1 + row.Ply%7)
		row.Nodes = int64(4000 + (row.Ply*7919)%2000)
		emit(row)
		pos.MakeMove(p.Move)
	}
}

// chessDict is the chess layout's planes dictionary.
var chessDict = planesDicts[encoder.Chess]

func testOptions() WriterOptions {
	return WriterOptions{EngineVersion: "chessforge-test", Config: []byte(`{"seed":1,"source":"playout"}`)}
}

// writeRows writes rows to a new dataset at path.
func writeRows(t testing.TB, path string, opts WriterOptions, rows []Row) {
	t.Helper()
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := w.Write(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// oddPlanesRows returns playout rows whose planes are replaced by patterns
// no real position has but every reader must take: random dictionary
// values, runs of every length, the largest index.
func oddPlanesRows(t *testing.T, n int) []Row {
	rng := rand.New(rand.NewPCG(7, 8))
	var rows []Row
	var row Row
	for _, g := range playGames(6, 20, 100) {
		gameRows(t, g, &row, func(r *Row) {
			if len(rows) == n {
				return
			}
			p := &r.Planes
			switch len(rows) % 4 {
			case 0: // unchanged, a real position
			case 1:
				for i := range p {
					p[i] = chessDict.values[rng.IntN(len(chessDict.values))]
				}
			case 2:
				for i := 0; i < len(p); {
					v, k := chessDict.values[rng.IntN(len(chessDict.values))], 1+rng.IntN(40)
					for ; k > 0 && i < len(p); k-- {
						p[i] = v
						i++
					}
				}
			case 3:
				for i := range p {
					p[i] = chessDict.values[len(chessDict.values)-1]
				}
			}
			rows = append(rows, *r)
		})
	}
	if len(rows) < n {
		t.Fatalf("only %d rows", len(rows))
	}
	return rows
}
