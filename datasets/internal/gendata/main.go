// Command gendata writes a dataset of random-and-greedy playouts, sharded
// into a directory, plus expect.json describing it (rows, games, files), for
// checks with outside readers (datasets/nodecheck) and for read benchmarks.
// With -selfplay it writes a real self-play job instead, played as K shards
// (bin/selfplay -shard k/K) into the one directory, at few nodes a move.
// With -selfplay -game dama the job is of Italian draughts (bin/selfplay
// -game dama).
//
//	go run ./datasets/internal/gendata -out DIR [-games N] [-shards K] [-seed S] [-selfplay [-game dama] [-nodes N]]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"context"
	"sort"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/datasets/fixture/playout"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/selfplay"
)

func main() {
	out := flag.String("out", "", "output directory (created)")
	games := flag.Int("games", 40, "games to play")
	shards := flag.Int("shards", 2, "files to spread the games over")
	seed := flag.Uint64("seed", 1, "random seed")
	maxPlies := flag.Int("max-plies", 160, "ply cap per game")
	self := flag.Bool("selfplay", false, "play a sharded self-play job instead of playouts")
	nodes := flag.Uint64("nodes", 300, "with -selfplay: nodes per move")
	game := flag.String("game", encoder.GameChess, "the game: chess or dama")
	flag.Parse()
	if _, err := encoder.LayoutOf(*game); *out == "" || *games < 1 || *shards < 1 || err != nil {
		fmt.Fprintln(os.Stderr, "gendata: -out is required; -games and -shards must be positive; -game chess or dama")
		os.Exit(2)
	}
	if *game != encoder.GameChess && !*self {
		fmt.Fprintln(os.Stderr, "gendata: -game dama writes a self-play job: add -selfplay")
		os.Exit(2)
	}
	write := run
	if *self {
		write = func(out string, games, shards int, seed uint64, maxPlies int) error {
			return runSelfplay(out, *game, games, shards, seed, maxPlies, *nodes)
		}
	}
	if err := write(*out, *games, *shards, *seed, *maxPlies); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

type expect struct {
	Game  string   `json:"game,omitempty"` // absent for chess
	Rows  int64    `json:"rows"`
	Games int      `json:"games"`
	Files []string `json:"files"`
	Seed  uint64   `json:"seed"`
}

func run(out string, games, shards int, seed uint64, maxPlies int) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	config, _ := json.Marshal(map[string]any{"source": "gendata playouts", "games": games, "seed": seed, "max_plies": maxPlies})
	rng := rand.New(rand.NewPCG(seed, 0))
	ex := expect{Games: games, Seed: seed}
	var row datasets.Row
	for s := 0; s < shards; s++ {
		name := fmt.Sprintf("part-%03d.parquet", s)
		w, err := datasets.Create(filepath.Join(out, name), datasets.WriterOptions{EngineVersion: "chessforge gendata", Config: config})
		if err != nil {
			return err
		}
		for g := s; g < games; g += shards {
			if err := writeGame(w, rng, int64(g), maxPlies, &row); err != nil {
				w.Abort()
				return err
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		ex.Rows += w.Rows()
		ex.Files = append(ex.Files, name)
	}
	data, _ := json.MarshalIndent(ex, "", "  ")
	return os.WriteFile(filepath.Join(out, "expect.json"), append(data, '\n'), 0o644)
}

func writeGame(w *datasets.Writer, rng *rand.Rand, id int64, maxPlies int, row *datasets.Row) error {
	end, plies, outcome := playout.Play(rng, maxPlies, 0.6)
	res, term := fixture.Outcome(end, outcome)
	pos := board.NewPosition()
	for _, p := range plies {
		if err := row.SetPosition(pos, 0, p.Move, p.Best); err != nil {
			return err
		}
		row.GameID, row.ScoreCP, row.Result, row.Termination = id, int32(p.Score), res, term
		row.Depth, row.Nodes = 1, 1
		if err := w.Write(row); err != nil {
			return err
		}
		pos.MakeMove(p.Move)
	}
	return nil
}

// runSelfplay plays a self-play job of the game of games games as shards
// shards, each shard's part files in out, and describes the whole job in
// expect.json.
func runSelfplay(out, game string, games, shards int, seed uint64, maxPlies int, nodes uint64) error {
	ex := expect{Games: games, Seed: seed}
	if game != encoder.GameChess {
		ex.Game = game
	}
	for k := 1; k <= shards; k++ {
		cfg := selfplay.DefaultsFor(game)
		cfg.Games, cfg.Seed, cfg.Nodes, cfg.MaxPlies, cfg.Hash = games, seed, nodes, maxPlies, 1
		cfg.Out, cfg.Shard, cfg.Workers = out, fmt.Sprintf("%d/%d", k, shards), 2
		sum, err := selfplay.Run(context.Background(), cfg, selfplay.Options{})
		if err != nil {
			return fmt.Errorf("shard %d/%d: %w", k, shards, err)
		}
		ex.Rows += sum.Positions
		for _, f := range sum.Files {
			ex.Files = append(ex.Files, filepath.Base(f))
		}
	}
	sort.Strings(ex.Files)
	data, _ := json.MarshalIndent(ex, "", "  ")
	return os.WriteFile(filepath.Join(out, "expect.json"), append(data, '\n'), 0o644)
}
