package selfplay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/dama"
	damasearch "chessforge/engine/dama/search"
)

// Italian draughts self-play (-game dama): the same job as chess's (seed,
// shards, parts, resume, adjudication, write window) with the draughts
// search playing itself. A game starts from the starting position, or
// from a generated endgame (-endgames with draughts signatures such as
// 2Kv1K1M, dama.RandomPosition, for -endgame-share of the games); then
// -random-plies uniformly random moves (not after an endgame start) and
// -multipv-plies moves chosen at random among the best (see chooseMove);
// then the search's best move. The rules end a game when the side to move
// has no move (it loses: "no moves"), at the third occurrence of a
// position ("threefold") and after forty moves each without a capture
// ("forty-move"); adjudication and the ply cap as for chess.

// parseDamaSignatures reads comma-separated draughts signatures ("" gives
// none).
func parseDamaSignatures(text string) ([]dama.Signature, error) {
	var sigs []dama.Signature
	for part := range strings.SplitSeq(text, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		s, err := dama.ParseSignature(part)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, s)
	}
	return sigs, nil
}

// damaPlayer plays draughts games with one searcher. It is used by one
// goroutine.
type damaPlayer struct {
	cfg    *Config
	eng    *damasearch.Searcher
	sigs   []dama.Signature
	limits damasearch.Limits
	list   dama.MoveList
	cands  []dama.Move
	scored []scoredMove
}

// scoredMove is a root move with the score of its own search.
type scoredMove struct {
	move  dama.Move
	score int
}

func newDamaPlayer(cfg *Config, sigs []dama.Signature) *damaPlayer {
	return &damaPlayer{
		cfg:    cfg,
		eng:    damasearch.New(cfg.Hash),
		sigs:   sigs,
		limits: damasearch.Limits{Nodes: cfg.Nodes, Depth: cfg.Depth},
	}
}

// start returns game n's first position and its name, and whether it is a
// generated endgame.
func (p *damaPlayer) start(rng *rand.Rand) (*dama.Position, string, bool, error) {
	if len(p.sigs) > 0 && rng.Float64() < p.cfg.EndgameShare {
		s := p.sigs[rng.IntN(len(p.sigs))]
		pos, err := dama.RandomPosition(s, rng)
		if err != nil {
			return nil, "", false, err
		}
		return pos, "endgame " + s.String(), true, nil
	}
	return dama.StartPosition(), "startpos", false, nil
}

// play plays game number n into g, as player.play does for chess.
func (p *damaPlayer) play(ctx context.Context, n int, g *Game) error {
	cfg := p.cfg
	rng := gameRand(cfg.Seed, n)
	pos, name, endgame, err := p.start(rng)
	if err != nil {
		return fmt.Errorf("game %d: %w", n, err)
	}
	randomPlies := g.begin(cfg, encoder.GameDama, n, name, pos.FEN(), endgame)
	p.eng.Clear()

	adj := adjudication{cfg: cfg}
	for ply := 0; ; ply++ {
		if o := pos.Outcome(); o != dama.Ongoing {
			g.Termination, g.Result = datasets.DamaRuleTermination(o, pos.SideToMove())
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
		switch {
		case ply < randomPlies:
			pos.GenerateMoves(&p.list)
			pl.choice, pl.DamaMove = choiceRandom, p.list.At(rng.IntN(p.list.Len()))
		case ply < randomPlies+cfg.MultiPVPlies:
			pl.choice = choiceMultiPV
		}
		record := ply >= cfg.WriteMinPly
		var best dama.Move
		if record || pl.choice >= choiceMultiPV {
			var res damasearch.Result
			if pl.choice == choiceMultiPV {
				res, pl.DamaMove = p.chooseMove(pos, rng)
			} else {
				res = p.eng.Search(pos, p.limits)
			}
			best = res.Best
			pl.setSearch(res.Score, res.Depth, res.Nodes, pos.SideToMove() == dama.White)
			if pl.choice == choiceBest {
				pl.DamaMove = best
			}
		}
		if record { // searched above: every ply from WriteMinPly on is a row
			if err := g.addRow(&pl, pos.Hash()).SetDamaPosition(pos, 0, pl.DamaMove, best); err != nil {
				return fmt.Errorf("game %d ply %d: %w", n, ply, err)
			}
		}
		g.Plies = append(g.Plies, pl)
		pos.MakeMove(pl.DamaMove)
		adj.count(ply, &pl)
	}
	g.end()
	return nil
}

// chooseMove is draughts' stand-in for chess's MultiPV plies (the draughts
// search keeps one line): every legal move is searched on its own, each
// with an equal share of the move's node budget (and one ply less of its
// depth), and one is chosen uniformly among the -multipv best whose scores
// are within -multipv-margin of the best one's. It returns the result for
// the position (the best move, its score from the side to move's view, the
// deepest depth and the nodes of all the searches) and the move chosen. A
// forced move (one legal move) is played without a search.
func (p *damaPlayer) chooseMove(pos *dama.Position, rng *rand.Rand) (damasearch.Result, dama.Move) {
	pos.GenerateMoves(&p.list)
	moves := p.list.Slice()
	if len(moves) == 1 {
		res := p.eng.Search(pos, p.limits)
		return res, res.Best
	}
	lim := p.limits
	if lim.Nodes > 0 {
		lim.Nodes = max(lim.Nodes/uint64(len(moves)), 1)
	}
	if lim.Depth > 1 {
		lim.Depth--
	}
	var res damasearch.Result
	p.scored = p.scored[:0]
	for _, m := range moves {
		pos.MakeMove(m)
		var score int
		if o := pos.Outcome(); o != dama.Ongoing {
			score = -damaOutcomeScore(o)
		} else {
			r := p.eng.Search(pos, lim)
			score = -r.Score
			res.Depth = max(res.Depth, r.Depth+1)
			res.Nodes += r.Nodes
		}
		// A win or loss n plies from the child is n+1 from this position,
		// as the search itself scores it.
		if score > damasearch.WinInMaxPly {
			score--
		} else if score < -damasearch.WinInMaxPly {
			score++
		}
		pos.UnmakeMove()
		// Insertion by score, best first; ties keep the generation order.
		i := len(p.scored)
		p.scored = append(p.scored, scoredMove{})
		for i > 0 && p.scored[i-1].score < score {
			p.scored[i] = p.scored[i-1]
			i--
		}
		p.scored[i] = scoredMove{m, score}
	}
	res.Best, res.Score = p.scored[0].move, p.scored[0].score
	p.cands = p.cands[:0]
	for _, s := range p.scored[:min(len(p.scored), p.cfg.MultiPV)] {
		if s.score >= res.Score-p.cfg.MultiPVMargin {
			p.cands = append(p.cands, s.move)
		}
	}
	return res, p.cands[rng.IntN(len(p.cands))]
}

// damaOutcomeScore is the score of a finished game for the side to move:
// a loss when it has no move, 0 for a draw.
func damaOutcomeScore(o dama.Outcome) int {
	if o == dama.NoMoves {
		return -damasearch.WinScore
	}
	return 0
}
