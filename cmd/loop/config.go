package main

import (
	"fmt"
	"io"

	"chessforge/cmd/internal/stage"
	"chessforge/configs"
	"chessforge/selfplay/match"
)

// defaultConfigFile is the configuration `make loop` and a bare `loop` read.
const defaultConfigFile = "configs/loop.json"

// The cycles the loop runs (Config.Cycle).
const (
	cycleTexel = "texel" // tune the hand-crafted evaluation's tables
	cycleNNUE  = "nnue"  // train the next network
)

// Config is the loop's settings: which cycle, where to work and the extra
// arguments of each stage's command. Each is declared here once: its json
// name is both its key in the config file (configs/loop.json,
// configs/loop-nnue.json) and its flag (see package configs);
// defaultConfig gives the defaults. The keys marked "texel:" or "nnue:"
// serve only that cycle.
type Config struct {
	Game            string   `json:"game" usage:"texel: the game whose evaluation the cycle tunes: chess, or dama (Italian draughts: -game dama goes to each stage, see configs/dama-loop.json)"`
	Cycle           string   `json:"cycle" usage:"the cycle: texel (tune the hand-crafted tables) or nnue (train the next network)"`
	WorkDir         string   `json:"work-dir" usage:"the cycle's directory (texel: cleared first; nnue: kept, each cycle in its own directory beside the current network)"`
	WeightsFile     string   `json:"weights-file" usage:"texel: the generated evaluation tables"`
	SelfplayArgs    []string `json:"selfplay-args" usage:"bin/selfplay arguments (besides -out, -pgn; nnue: and -nnue, -eval-file, -seed, -resume), space-separated"`
	TuneArgs        []string `json:"tune-args" usage:"texel: bin/tune arguments (besides -data, -out, -report), space-separated"`
	MatchArgs       []string `json:"match-args" usage:"bin/match arguments (besides -a, -b, their names and options, -pgn), space-separated"`
	KeepIfUndecided bool     `json:"keep-if-undecided" usage:"keep the new tables or network when the SPRT ends undecided but the Elo interval lies above zero"`

	Cycles           int      `json:"cycles" usage:"nnue: cycles to run, each resuming an unfinished one or starting the next"`
	Seed             int      `json:"seed" usage:"nnue: self-play seed of cycle 1 (cycle N plays seed+N-1)"`
	PythonEnv        string   `json:"python-env" usage:"nnue: virtual environment with chessforge-nnue (made from datasets/python when missing)"`
	ExportArgs       []string `json:"export-args" usage:"nnue: bin/dataset export arguments (besides -format npy, the data, -out), space-separated"`
	TrainArgs        []string `json:"train-args" usage:"nnue: chessforge-nnue train arguments (besides DATA, --out, --init, --resume), space-separated"`
	TrainData        []string `json:"train-data" usage:"nnue: further datasets trained on beside every cycle's positions (NumPy exports or Parquet, e.g. an earlier network's self-play), space-separated"`
	TrainFromScratch bool     `json:"train-from-scratch" usage:"nnue: train each network from random weights, not from the current network's"`
	NetworkFile      string   `json:"network-file" usage:"nnue: the embedded network's file: the first cycle's current network, and where -promote copies a kept one"`
	Promote          bool     `json:"promote" usage:"nnue: copy a kept network to network-file and rebuild the binaries (make build): it becomes the embedded default"`
	// The pawn table of the new network (nnue: fit-pawn-scale, pawn-scale-args).
	stage.PawnTable
	MatchLevel bool `json:"match-level" usage:"nnue: fit the new network's pawn table at the level that puts its scores on the current network's scale (chessforge-nnue pawnscale --level-of), for which the search's margins were tuned; false: at the exported file's level (needs fit-pawn-scale)"`
	// The history file of each cycle's records (record).
	stage.Record
}

// defaultConfig returns the defaults of every setting.
func defaultConfig() Config {
	return Config{Game: match.Chess, Cycle: cycleTexel, WorkDir: "data/loop", WeightsFile: chessWeights, KeepIfUndecided: true,
		Cycles: 1, Seed: 1, PythonEnv: ".venv", NetworkFile: "engine/nnue/default.nnue",
		PawnTable: stage.PawnTable{Fit: true}, MatchLevel: true}
}

// chessWeights is the chess evaluation's generated tables, the default
// weights-file; damaWeights is the draughts evaluation's.
const (
	chessWeights = "engine/eval/weights_gen.go"
	damaWeights  = "engine/dama/eval/weights_gen.go"
)

// validate reports a setting that cannot be used.
func (c *Config) validate() error {
	if c.WorkDir == "" {
		return fmt.Errorf("work-dir must not be empty")
	}
	switch c.Cycle {
	case cycleTexel:
		if c.WeightsFile == "" {
			return fmt.Errorf("weights-file must not be empty")
		}
	case cycleNNUE:
		if c.Cycles < 1 {
			return fmt.Errorf("cycles %d: must be positive", c.Cycles)
		}
		if c.PythonEnv == "" {
			return fmt.Errorf("python-env must not be empty")
		}
		if c.NetworkFile == "" {
			return fmt.Errorf("network-file must not be empty")
		}
		if c.MatchLevel && !c.PawnTable.Fit {
			return fmt.Errorf("match-level needs fit-pawn-scale: the level is fitted with the pawn table")
		}
	default:
		return fmt.Errorf("cycle %q: want %s or %s", c.Cycle, cycleTexel, cycleNNUE)
	}
	switch c.Game {
	case match.Chess:
	case match.Dama:
		if c.WeightsFile == chessWeights {
			return fmt.Errorf("game dama with weights-file %s, the chess tables: a draughts cycle tunes %s (see configs/dama-loop.json)", chessWeights, damaWeights)
		}
	default:
		return fmt.Errorf("game %q: want %s or %s", c.Game, match.Chess, match.Dama)
	}
	if c.Cycle == cycleNNUE && c.Game != match.Chess {
		return fmt.Errorf("cycle %s with game %s: the network cycle trains chess networks only", cycleNNUE, c.Game)
	}
	return nil
}

// about is the loop's description in its usage.
const about = `Runs the improvement cycle. texel: self-play, tune, rebuild, match; keeps the new tables
if they win. nnue: self-play with the current network, train the next one on every cycle's
positions, export it, match it against the current one; keeps it (as work-dir/current.nnue)
if it wins. Each nnue stage resumes what an interrupted run left. With record, each cycle
appends its match, network and cycle records to the results history once its match began.`

// parseArgs reads the flags over the config file (-config, by default
// configs/loop.json) over the defaults. The usage, when asked for (-h), goes to stdout
// and the error is flag.ErrHelp; a mistake in the command line or the
// config file is a *configs.UsageError.
func parseArgs(args []string, stdout io.Writer) (Config, error) {
	c := defaultConfig()
	if err := configs.ParseCommand("loop", about, defaultConfigFile, &c, args, stdout); err != nil {
		return c, err
	}
	if err := c.validate(); err != nil {
		return c, configs.AsUsage(err)
	}
	return c, nil
}
