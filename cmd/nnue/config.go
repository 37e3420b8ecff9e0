package main

import (
	"fmt"
	"io"

	"chessforge/cmd/internal/stage"
	"chessforge/configs"
)

// defaultConfigFile is the configuration `make nnue` and a bare `nnue` read.
const defaultConfigFile = "configs/nnue.json"

// Config is the recipe's settings: where it works, the Python environment
// that trains, and the extra arguments of each stage's command. Each is
// declared here once: its json name is both its key in the config file
// (configs/nnue.json) and its flag (see package configs); defaultConfig
// gives the defaults.
type Config struct {
	WorkDir      string   `json:"work-dir" usage:"directory of the recipe's data, kept between runs so that each stage resumes"`
	PythonEnv    string   `json:"python-env" usage:"virtual environment with chessforge-nnue (made from datasets/python when missing)"`
	SelfplayArgs []string `json:"selfplay-args" usage:"bin/selfplay arguments (besides -out, -pgn, -resume), space-separated"`
	ExportArgs   []string `json:"export-args" usage:"bin/dataset export arguments (besides -format npy, the data, -out), space-separated"`
	TrainArgs    []string `json:"train-args" usage:"chessforge-nnue train arguments (besides DATA, --out, --resume), space-separated"`
	MatchArgs    []string `json:"match-args" usage:"bin/match arguments (besides -a, -b, their names and options, -pgn), space-separated"`
	// The network's pawn table (fit-pawn-scale, pawn-scale-args).
	stage.PawnTable
	// The history file of the run's records (record).
	stage.Record
}

// defaultConfig returns the defaults of every setting.
func defaultConfig() Config {
	return Config{WorkDir: "data/nnue-recipe", PythonEnv: ".venv", PawnTable: stage.PawnTable{Fit: true}}
}

// validate reports a setting that cannot be used.
func (c *Config) validate() error {
	if c.WorkDir == "" {
		return fmt.Errorf("work-dir must not be empty")
	}
	if c.PythonEnv == "" {
		return fmt.Errorf("python-env must not be empty")
	}
	return nil
}

// parseArgs reads the flags over the config file (-config, by default
// configs/nnue.json) over the defaults. The usage, when asked for (-h), goes to stdout
// and the error is flag.ErrHelp; a mistake in the command line or the
// config file is a *configs.UsageError.
func parseArgs(args []string, stdout io.Writer) (Config, error) {
	c := defaultConfig()
	if err := configs.ParseCommand("nnue", "Runs the network recipe in work-dir: self-play, export to NumPy, train, export the\nnetwork and fit its pawn table, match it against the hand-crafted evaluation. Each\nstage resumes or skips what an earlier run made. With record, the match, the network\nand the run are appended to the results history (configs/nnue.json: docs/history/networks.jsonl).", defaultConfigFile, &c, args, stdout); err != nil {
		return c, err
	}
	if err := c.validate(); err != nil {
		return c, configs.AsUsage(err)
	}
	return c, nil
}
