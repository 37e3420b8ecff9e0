package selfplay

import (
	"context"
	"fmt"
	"math/rand/v2"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/dama"
	"chessforge/engine/nnue"
	"chessforge/engine/pgn"
	"chessforge/engine/search"
)

// How a ply's move was chosen.
const (
	choiceBook    uint8 = iota // the opening's move
	choiceRandom               // a uniformly random legal move
	choiceMultiPV              // a random one of the top lines within the margin
	choiceBest                 // the search's best move
)

// Ply is one move of a game with what the search said about the position
// it was played from.
type Ply struct {
	Move     board.Move // the chess move played (NullMove in a draughts game)
	DamaMove dama.Move  // the draughts move played (NullMove in a chess game)
	Best     board.Move // the search's best chess move; NullMove when not searched
	Score    int32      // centipawns (draughts: centi-men) from White's point of view (mates, wins ±(32000 − plies))
	Depth    int32
	Nodes    int64
	Searched bool
	choice   uint8 // how the move was chosen: choiceBook, choiceRandom, ...
}

// setSearch records the search of the ply's position: its score (from the
// side to move's point of view, stored from White's), depth and nodes.
func (pl *Ply) setSearch(score, depth int, nodes uint64, whiteToMove bool) {
	pl.Searched = true
	pl.Score, pl.Depth, pl.Nodes = int32(score), int32(depth), int64(nodes)
	if !whiteToMove {
		pl.Score = -pl.Score
	}
}

// Game is one finished game and the rows it contributes to the dataset.
type Game struct {
	Game        string // the game played: encoder.GameChess or encoder.GameDama
	Number      int    // the job's game number, 0-based
	ID          int64  // GameID(seed, Number)
	Opening     string
	StartFEN    string // the game's first position (a PDN FEN for draughts)
	Plies       []Ply
	Result      float32 // for White: 1, 0.5, 0
	Termination datasets.Termination
	Rows        []datasets.Row // every position from ply WriteMinPly to the end, in ply order: no gaps
	Hashes      []uint64       // the Zobrist key of each row's position
	// lost says that an outside engine failed during the game: it has no
	// rows and is not saved (see uciPlayer.play).
	lost bool
	// engine is the name of the outside engine that played both sides,
	// for the PGN; "" for ours.
	engine string
}

// begin starts g afresh, reusing its slices, as game n of the job cfg of
// the game kind (encoder.GameChess or encoder.GameDama) from the position
// startFEN named opening, and returns the number of random plies to play
// after the opening: cfg.RandomPlies, which the opening's name then
// mentions, or none after a generated endgame (random enough).
func (g *Game) begin(cfg *Config, kind string, n int, opening, startFEN string, endgame bool) (randomPlies int) {
	*g = Game{
		Game: kind, Number: n, ID: GameID(cfg.Seed, n), Opening: opening, StartFEN: startFEN,
		Plies: g.Plies[:0], Rows: g.Rows[:0], Hashes: g.Hashes[:0],
	}
	if endgame {
		return 0
	}
	if cfg.RandomPlies > 0 {
		g.Opening += fmt.Sprintf(", %d random plies", cfg.RandomPlies)
	}
	return cfg.RandomPlies
}

// addRow appends a row for the position of key hash, searched at ply pl,
// holding the game's ID and the search's score, depth and nodes, and
// returns it for the caller to fill the columns that follow from the
// position (datasets.Row.SetPosition or SetDamaPosition).
func (g *Game) addRow(pl *Ply, hash uint64) *datasets.Row {
	g.Rows = append(g.Rows, datasets.Row{})
	r := &g.Rows[len(g.Rows)-1]
	r.GameID, r.ScoreCP, r.Depth, r.Nodes = g.ID, pl.Score, pl.Depth, pl.Nodes
	g.Hashes = append(g.Hashes, hash)
	return r
}

// end copies the game's result and termination into each of its rows.
func (g *Game) end() {
	for i := range g.Rows {
		g.Rows[i].Result, g.Rows[i].Termination = g.Result, g.Termination
	}
}

// GameID returns the game_id of game number n of a job with the given seed:
// the seed's hash in the high 31 bits and n in the low 32, so that IDs are
// unique in a job (whatever its sharding: a game's number does not depend on
// the shard that plays it) and differ between jobs of different seeds.
func GameID(seed uint64, n int) int64 {
	h := splitmix(seed ^ 0x5e1f_91a7_c0de_f00d)
	return int64(h>>33)<<32 | int64(uint32(n))
}

// GameNumber returns the game number held in a game ID.
func GameNumber(id int64) int { return int(uint32(id)) }

// splitmix is the SplitMix64 finaliser, a bijective mixer of 64 bits.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// gameRand returns game n's random source: a function of the seed and n only.
func gameRand(seed uint64, n int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix(uint64(n))))
}

// openings chooses each game's start.
type openings struct {
	book  []pgn.Opening
	order []int // a seed-shuffled order of the book, so games cover it evenly
	sigs  []Signature
	share float64
}

func newOpenings(cfg *Config, book []pgn.Opening) (*openings, error) {
	sigs, err := ParseSignatures(cfg.Endgames)
	if err != nil {
		return nil, err
	}
	o := &openings{book: book, sigs: sigs, share: cfg.EndgameShare}
	if len(book) > 0 {
		o.order = rand.New(rand.NewPCG(cfg.Seed, 0xb00c)).Perm(len(book))
	}
	return o, nil
}

// pick returns game n's opening and whether it is a generated endgame.
func (o *openings) pick(n int, rng *rand.Rand) (pgn.Opening, bool, error) {
	if len(o.sigs) > 0 && rng.Float64() < o.share {
		s := o.sigs[rng.IntN(len(o.sigs))]
		pos, err := s.RandomPosition(rng)
		if err != nil {
			return pgn.Opening{}, false, err
		}
		return pgn.Opening{FEN: pos.FEN(), Name: "endgame " + s.Text}, true, nil
	}
	if len(o.book) > 0 {
		return o.book[o.order[n%len(o.book)]], false, nil
	}
	return pgn.Opening{Name: "startpos"}, false, nil
}

// gamePlayer plays games of one job with one engine, for one goroutine:
// play plays game number n into g (reusing g's slices), a game that
// depends only on the job config and n, and returns ctx's error, leaving
// g unfinished, when ctx is cancelled during the game. The chess player
// and the draughts one (damaPlayer) share the job machinery around it:
// scheduling, the reorder buffer, output, resume and shards.
type gamePlayer interface {
	play(ctx context.Context, n int, g *Game) error
}

// adjudication counts the consecutive searched plies that meet the
// adjudication conditions of a job, for either game.
type adjudication struct {
	cfg          *Config
	resign, draw int // consecutive plies: resign > 0 White winning, < 0 Black winning
}

// end returns how the game ends before ply (0-based) by adjudication or
// the ply cap, if it does.
func (a *adjudication) end(ply int) (datasets.Termination, float32, bool) {
	cfg := a.cfg
	switch {
	case cfg.ResignScore > 0 && abs(a.resign) >= cfg.ResignPlies:
		if a.resign < 0 {
			return datasets.TerminationAdjudicatedWin, 0, true
		}
		return datasets.TerminationAdjudicatedWin, 1, true
	case cfg.DrawPlies > 0 && a.draw >= cfg.DrawPlies:
		return datasets.TerminationAdjudicatedDraw, 0.5, true
	case cfg.MaxPlies > 0 && ply >= cfg.MaxPlies:
		return datasets.TerminationPlyCap, 0.5, true
	}
	return datasets.TerminationUnknown, 0, false
}

// count adds the ply just played, pl (at ply), to the counts: the scores
// of consecutive searched positions.
func (a *adjudication) count(ply int, pl *Ply) {
	cfg := a.cfg
	if !pl.Searched {
		a.resign, a.draw = 0, 0
		return
	}
	s := int(pl.Score)
	switch {
	case cfg.ResignScore > 0 && s >= cfg.ResignScore:
		a.resign = max(a.resign, 0) + 1
	case cfg.ResignScore > 0 && s <= -cfg.ResignScore:
		a.resign = min(a.resign, 0) - 1
	default:
		a.resign = 0
	}
	if ply >= cfg.DrawPly && abs(s) <= cfg.DrawScore {
		a.draw++
	} else {
		a.draw = 0
	}
}

// player plays chess games with one engine. It is used by one goroutine.
type player struct {
	cfg      *Config
	eng      *search.Engine
	openings *openings
	limits   search.Limits
	list     board.MoveList
	cands    []board.Move
}

func newPlayer(cfg *Config, net *nnue.Network, o *openings) *player {
	eng := search.New(search.Options{HashMB: cfg.Hash, Threads: 1, MultiPV: 1})
	eng.SetNetwork(net)
	return &player{
		cfg:      cfg,
		eng:      eng,
		openings: o,
		limits:   search.Limits{Nodes: cfg.Nodes, SoftNodes: cfg.SoftNodes, Depth: cfg.Depth},
	}
}

// play plays game number n into g (whose slices it reuses). The game depends
// only on the job config and n. It returns ctx's error, leaving g
// unfinished, when ctx is cancelled during the game.
func (p *player) play(ctx context.Context, n int, g *Game) error {
	cfg := p.cfg
	st, err := beginChess(cfg, p.openings, n, g)
	if err != nil {
		return err
	}
	rng, pos := st.rng, st.pos
	p.eng.Clear()

	return playChess(ctx, g, cfg, n, st, false, &p.list, func(ply int, pl *Ply) error {
		lim := p.limits
		if pl.choice == choiceMultiPV {
			lim.MultiPV = cfg.MultiPV
		}
		res := p.eng.Search(pos, lim, nil)
		pl.Best = res.BestMove
		pl.setSearch(res.Score, res.Depth, res.Nodes, pos.SideToMove() == board.White)
		switch pl.choice {
		case choiceBest:
			pl.Move = res.BestMove
		case choiceMultiPV:
			pl.Move = p.chooseLine(&res, rng)
		}
		return nil
	}, nil)
}

// chessStart is a chess game set up to be played: its random source, its
// start position, the opening's book moves and the random plies after them.
type chessStart struct {
	rng         *rand.Rand
	pos         *board.Position
	book        []board.Move
	randomPlies int
}

// beginChess sets up game number n of job cfg in g: its random source, its
// opening (from the book, or a random endgame) and its start.
func beginChess(cfg *Config, o *openings, n int, g *Game) (chessStart, error) {
	rng := gameRand(cfg.Seed, n)
	op, endgame, err := o.pick(n, rng)
	if err != nil {
		return chessStart{}, fmt.Errorf("game %d: %w", n, err)
	}
	pos, err := op.Start()
	if err != nil {
		return chessStart{}, fmt.Errorf("game %d: opening %s: %w", n, op.Name, err)
	}
	randomPlies := g.begin(cfg, encoder.GameChess, n, op.Name, pos.FEN(), endgame)
	return chessStart{rng: rng, pos: pos, book: op.Moves, randomPlies: randomPlies}, nil
}

// playChess plays the chess game st of job cfg to its end into g, game
// number n: first the opening's book moves, then the random plies,
// then cfg.MultiPVPlies plies of choice (random too when noMultiPV: a
// player that cannot search several lines), then the best moves. search
// fills a ply's search and, on a ply of choice or of the best move, its
// move; it is called on every ply that is a row, from cfg.WriteMinPly on,
// so that a game's rows have no gap, and on every ply of choice. played,
// when not nil, is told each move before it is made.
func playChess(ctx context.Context, g *Game, cfg *Config, n int, st chessStart, noMultiPV bool, list *board.MoveList,
	search func(ply int, pl *Ply) error, played func(board.Move)) error {
	pos, book, randomPlies, rng := st.pos, st.book, st.randomPlies, st.rng
	adj := adjudication{cfg: cfg}
	for ply := 0; ; ply++ {
		if o := pos.Outcome(); o != board.Ongoing {
			g.Termination, g.Result = ruleResult(o, pos.SideToMove())
			break
		}
		if term, result, over := adj.end(ply); over {
			g.Termination, g.Result = term, result
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}

		pl := Ply{choice: choiceBest}
		switch k := ply - len(book); {
		case k < 0:
			pl.choice, pl.Move = choiceBook, book[ply]
		case k < randomPlies, k < randomPlies+cfg.MultiPVPlies && noMultiPV:
			pos.GenerateLegal(list)
			pl.choice, pl.Move = choiceRandom, list.Moves[rng.IntN(list.N)]
		case k < randomPlies+cfg.MultiPVPlies:
			pl.choice = choiceMultiPV
		}
		record := ply >= cfg.WriteMinPly
		if record || pl.choice >= choiceMultiPV {
			if err := search(ply, &pl); err != nil {
				return err
			}
		}
		if record {
			if err := g.addRow(&pl, pos.Hash()).SetPosition(pos, 0, pl.Move, pl.Best); err != nil {
				return fmt.Errorf("game %d ply %d: %w", n, ply, err)
			}
		}
		g.Plies = append(g.Plies, pl)
		if played != nil {
			played(pl.Move)
		}
		pos.MakeMove(pl.Move)
		adj.count(ply, &pl)
	}
	g.end()
	return nil
}

// chooseLine picks uniformly among the MultiPV lines whose score is within
// the margin of the best line's.
func (p *player) chooseLine(res *search.Result, rng *rand.Rand) board.Move {
	p.cands = p.cands[:0]
	for _, l := range res.Lines {
		if len(l.PV) > 0 && l.Score > -search.Infinity && l.Score >= res.Lines[0].Score-p.cfg.MultiPVMargin {
			p.cands = append(p.cands, l.PV[0])
		}
	}
	if len(p.cands) == 0 {
		return res.BestMove
	}
	return p.cands[rng.IntN(len(p.cands))]
}

// ruleResult gives the termination and White's result of a game the rules
// ended, with side to move in the final position (see pgn.RuleResult).
func ruleResult(o board.Outcome, side board.Color) (datasets.Termination, float32) {
	result, _ := pgn.RuleResult(o, side)
	white, _ := pgn.Points(result)
	return datasets.RuleTermination(o), white
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
