package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"runtime"
	"strings"
	"time"

	"chessforge/configs"
	"chessforge/engine/nnue"
	"chessforge/internal/record"
	"chessforge/selfplay"
)

// checkRecord checks, before any game is played, what the run's record
// will need: a -what of one line and at most record.MaxWhat characters, and a
// -record file that reads (or does not exist yet), so that a long run does
// not end in a record that cannot be written.
func checkRecord(path, what string) error {
	if err := record.CheckWhat(what); err != nil {
		return configs.Usagef("-what %q: %v", what, err)
	}
	if path == "" {
		if what != "" {
			return configs.Usagef("-what needs -record FILE")
		}
		return nil
	}
	if _, err := record.Read(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return configs.Usagef("-record: %v", err)
	}
	return nil
}

// selfplayRecord returns the bench record (docs/records.md, subject
// selfplay) of a run with settings cfg and command-line arguments args
// that ended with the summary s, having used cpu of CPU time; what says
// what it measured ("" for a description of the settings). Its figures
// are this run's: with -resume, the games of earlier runs are counted only
// in shard_games_done. A run that finished no game has no record.
func selfplayRecord(cfg *selfplay.Config, args []string, s *selfplay.Summary, cpu time.Duration, what string) (record.Record, error) {
	if s.Games == 0 {
		return record.Record{}, errors.New("no game finished: nothing to record")
	}
	if what == "" {
		what = defaultWhat(cfg, s)
	}
	now := time.Now().UTC() // to the nanosecond in the id: two short runs may end in one second
	secs := s.Elapsed.Seconds()
	figures := map[string]float64{
		"games":            float64(s.Games),
		"positions":        float64(s.Positions),
		"wall_s":           record.Round(secs, 1),
		"white_wins":       float64(s.Wins),
		"draws":            float64(s.Draws),
		"black_wins":       float64(s.Losses),
		"unique_positions": float64(s.Unique),
	}
	if secs > 0 {
		figures["positions_per_s"] = record.Round(float64(s.Positions)/secs, 1)
	}
	if c := cpu.Seconds(); c > 0 {
		figures["cpu_s"] = record.Round(c, 1)
		figures["positions_per_cpu_s"] = record.Round(float64(s.Positions)/c, 1)
	}
	if s.Searches > 0 {
		figures["nodes_per_search"] = record.Round(float64(s.Nodes)/float64(s.Searches), 1)
		if secs > 0 {
			figures["nodes_per_s"] = math.Round(float64(s.Nodes) / secs)
		}
	}
	if s.Lost > 0 {
		figures["lost_games"] = float64(s.Lost)
	}
	if s.Done != s.Games || s.Interrupted {
		figures["shard_games_done"] = float64(s.Done)
		figures["shard_games"] = float64(s.Total)
	}
	if s.First > 0 {
		figures["first_game"] = float64(s.First)
	}
	rec := record.Record{
		Kind:    record.KindBench,
		ID:      record.NewID(now, what),
		Date:    now.Truncate(time.Second).Format(time.RFC3339),
		What:    what,
		Commit:  record.Build(),
		Note:    note(cfg, s),
		Subject: "selfplay",
		Command: commandLine("bin/selfplay", args),
		Figures: figures,
		Machine: fmt.Sprintf("%d CPUs (GOMAXPROCS %d)", runtime.NumCPU(), runtime.GOMAXPROCS(0)),
	}
	if err := rec.Validate(); err != nil {
		return rec, fmt.Errorf("the run's record: %w", err)
	}
	return rec, nil
}

// defaultWhat describes the run from its settings: the player, the search
// limit, the games and the seed.
func defaultWhat(cfg *selfplay.Config, s *selfplay.Summary) string {
	player := "self-play"
	if cfg.Engine != "" {
		player = "outside-engine self-play"
	} else if cfg.Game != "" && cfg.Game != selfplay.DefaultConfig().Game {
		player = cfg.Game + " self-play"
	}
	var limits []string
	if cfg.SoftNodes > 0 {
		limits = append(limits, fmt.Sprintf("%d soft nodes", cfg.SoftNodes))
	}
	if cfg.Nodes > 0 {
		limits = append(limits, fmt.Sprintf("%d nodes", cfg.Nodes))
	}
	if cfg.Depth > 0 {
		limits = append(limits, fmt.Sprintf("depth %d", cfg.Depth))
	}
	if cfg.MoveTime > 0 {
		limits = append(limits, fmt.Sprintf("%d ms a move", cfg.MoveTime))
	}
	return record.ClipWhat(fmt.Sprintf("%s at %s: %d games, seed %d", player, strings.Join(limits, ", "), s.Games, cfg.Seed))
}

// note says how the run ended and what evaluated its positions.
func note(cfg *selfplay.Config, s *selfplay.Summary) string {
	var parts []string
	if s.First > 0 {
		parts = append(parts, fmt.Sprintf("The output holds the shard's games from %d (-first-game): the %d before are kept elsewhere.", s.First, s.First))
	}
	switch {
	case s.Interrupted:
		parts = append(parts, fmt.Sprintf("Interrupted after %d of the shard's %d games; the same command with -resume continues it.", s.Done, s.Total))
	case s.Done-s.First != s.Games:
		parts = append(parts, fmt.Sprintf("Resumed: the output holds %d games of the shard's %d, %d of them from this run.", s.Done-s.First, s.Total, s.Games))
	}
	if cfg.Engine == "" && cfg.Game == selfplay.DefaultConfig().Game {
		if cfg.NNUE {
			parts = append(parts, "Evaluation: "+networkName(cfg.EvalFile)+".")
		} else {
			parts = append(parts, "Evaluation: the hand-crafted one.")
		}
	}
	parts = append(parts, fmt.Sprintf("Output %s.", s.Out))
	return strings.Join(parts, " ")
}

// networkName names the network of -eval-file (or the embedded one) by
// its id, as bin/engine does.
func networkName(evalFile string) string {
	var (
		net *nnue.Network
		err error
	)
	if evalFile == "" {
		net, err = nnue.Default()
	} else {
		net, err = nnue.LoadFile(evalFile)
	}
	switch {
	case err != nil:
		return "a network that did not load (" + err.Error() + ")"
	case evalFile == "":
		return "the embedded network " + net.ID()
	}
	return "network " + net.ID() + " (" + evalFile + ")"
}

// commandLine joins a command and its arguments as a shell would read
// them, each argument that needs it in single quotes.
func commandLine(name string, args []string) string {
	words := []string{name}
	for _, a := range args {
		if a != "" && !strings.ContainsFunc(a, needsQuote) {
			words = append(words, a)
			continue
		}
		words = append(words, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(words, " ")
}

// needsQuote reports whether r makes a shell word need quotes.
func needsQuote(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=+./,:@%", r))
}
