package main

import (
	"fmt"
	"io"

	"chessforge/configs"
	"chessforge/selfplay/match"
)

// defaultConfigFile is the configuration `make loop` and a bare `loop` read.
const defaultConfigFile = "configs/loop.json"

// Config is the loop's settings: where to work and the extra arguments of
// each stage's command. Each is declared here once: its json name is both
// its key in the config file (configs/loop.json) and its flag (see package
// configs); defaultConfig gives the defaults.
type Config struct {
	Game            string   `json:"game" usage:"the game whose evaluation the cycle tunes: chess, or dama (Italian draughts: -game dama goes to each stage, see configs/dama-loop.json)"`
	WorkDir         string   `json:"work-dir" usage:"scratch directory for the cycle (cleared first)"`
	WeightsFile     string   `json:"weights-file" usage:"the generated evaluation tables"`
	SelfplayArgs    []string `json:"selfplay-args" usage:"bin/selfplay arguments (besides -out, -pgn), space-separated"`
	TuneArgs        []string `json:"tune-args" usage:"bin/tune arguments (besides -data, -out, -report), space-separated"`
	MatchArgs       []string `json:"match-args" usage:"bin/match arguments (besides -a, -b, -pgn), space-separated"`
	KeepIfUndecided bool     `json:"keep-if-undecided" usage:"keep the new tables when the SPRT ends undecided but the Elo interval lies above zero"`
}

// defaultConfig returns the defaults of every setting.
func defaultConfig() Config {
	return Config{Game: match.Chess, WorkDir: "data/loop", WeightsFile: chessWeights, KeepIfUndecided: true}
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
	if c.WeightsFile == "" {
		return fmt.Errorf("weights-file must not be empty")
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
	return nil
}

// parseArgs reads the flags over the config file (-config, by default
// configs/loop.json) over the defaults. The usage, when asked for (-h), goes to stdout
// and the error is flag.ErrHelp; a mistake in the command line or the
// config file is a *configs.UsageError.
func parseArgs(args []string, stdout io.Writer) (Config, error) {
	c := defaultConfig()
	if err := configs.ParseCommand("loop", "Runs one cycle: self-play, tune, rebuild, match; keeps the new tables if they win.", defaultConfigFile, &c, args, stdout); err != nil {
		return c, err
	}
	if err := c.validate(); err != nil {
		return c, configs.AsUsage(err)
	}
	return c, nil
}
