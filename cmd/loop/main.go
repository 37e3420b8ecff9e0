// Command loop runs one improvement cycle of the pipeline: self-play a
// dataset with the current engine, tune the evaluation on it, build the
// engine with the new tables, and match it against the engine from before
// the tune with SPRT. The new tables are kept when the match shows a gain
// and reverted otherwise. `make loop` runs it with configs/loop.json.
//
// It is run from the repository root and drives the project's binaries in
// bin/ (built by `make build`) and the Go toolchain for the rebuild.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func main() {
	cfg, err := parseArgs(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loop:", err)
		os.Exit(2)
	}
	if err := run(cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loop:", err)
		os.Exit(1)
	}
}

// stage runs one command, echoing its output and keeping a copy of stdout.
func stage(name string, stdout, stderr io.Writer, args ...string) (string, error) {
	fmt.Fprintf(stdout, "\n== %s: %s\n", name, strings.Join(args, " "))
	var buf bytes.Buffer
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout = io.MultiWriter(stdout, &buf)
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return buf.String(), fmt.Errorf("%s failed: %w", name, err)
	}
	return buf.String(), nil
}

// matchSummary is what the loop reads from bin/match's report.
type matchSummary struct {
	Elo, Margin float64
	Verdict     string // "H1 accepted", "H0 accepted" or "undecided" (no SPRT: "")
	Line        string
}

var (
	summaryRE = regexp.MustCompile(`(?m)^match: .*: \+(\d+) =(\d+) -(\d+), Elo ([-+]?[\d.]+|[-+]?Inf) ± ([\d.]+|Inf)\s*$`)
	sprtRE    = regexp.MustCompile(`(?m)^SPRT:.*: (H1 accepted|H0 accepted|undecided)`)
)

func parseMatch(out string) (matchSummary, error) {
	m := summaryRE.FindStringSubmatch(out)
	if m == nil {
		return matchSummary{}, errors.New("no summary line \"match: A vs B: +W =D -L, Elo E ± C\" in bin/match's output")
	}
	var s matchSummary
	s.Line = strings.TrimSpace(m[0])
	s.Elo, _ = strconv.ParseFloat(m[4], 64)
	s.Margin, _ = strconv.ParseFloat(m[5], 64)
	if v := sprtRE.FindStringSubmatch(out); v != nil {
		s.Verdict = v[1]
	}
	return s, nil
}

// keep decides whether the tuned tables stay.
func keep(s matchSummary, keepIfUndecided bool) bool {
	switch s.Verdict {
	case "H1 accepted":
		return true
	case "H0 accepted":
		return false
	}
	return keepIfUndecided && s.Elo-s.Margin > 0
}

func copyFile(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

func run(cfg Config, stdout, stderr io.Writer) error {
	start := time.Now()
	for _, b := range []string{"bin/selfplay", "bin/tune", "bin/match"} {
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("%s is missing: run make build first", b)
		}
	}
	if err := os.RemoveAll(cfg.WorkDir); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return err
	}
	work := func(name string) string { return filepath.Join(cfg.WorkDir, name) }

	// The engine before the tune, and a copy of its tables to restore.
	baseEngine, tunedEngine := work("engine-base"), work("engine-tuned")
	if _, err := stage("build the engine before the tune", stdout, stderr, "go", "build", "-o", baseEngine, "./cmd/engine"); err != nil {
		return err
	}
	backup := work("weights_gen.go.before")
	if err := copyFile(backup, cfg.WeightsFile); err != nil {
		return fmt.Errorf("back up %s: %w", cfg.WeightsFile, err)
	}

	data := work("selfplay")
	args := append([]string{"bin/selfplay"}, cfg.SelfplayArgs...)
	args = append(args, "-out", data, "-pgn", work("selfplay.pgn"))
	if _, err := stage("self-play", stdout, stderr, args...); err != nil {
		return err
	}

	args = append([]string{"bin/tune", "-data", data, "-out", cfg.WeightsFile, "-report", work("tune-report")}, cfg.TuneArgs...)
	if _, err := stage("tune", stdout, stderr, args...); err != nil {
		copyFile(cfg.WeightsFile, backup)
		return err
	}
	restore := func() error {
		if err := copyFile(cfg.WeightsFile, backup); err != nil {
			return fmt.Errorf("restore %s from %s: %w", cfg.WeightsFile, backup, err)
		}
		_, err := stage("rebuild bin/engine with the tables from before", stdout, stderr, "go", "build", "-o", "bin/", "./cmd/engine")
		return err
	}
	if _, err := stage("build the tuned engine", stdout, stderr, "go", "build", "-o", tunedEngine, "./cmd/engine"); err != nil {
		if rerr := restore(); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}

	args = append([]string{"bin/match", "-a", tunedEngine, "-a-name", "tuned", "-b", baseEngine, "-b-name", "before",
		"-pgn", work("match.pgn")}, cfg.MatchArgs...)
	out, err := stage("match: tuned against the engine before the tune", stdout, stderr, args...)
	if err != nil {
		if rerr := restore(); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	sum, err := parseMatch(out)
	if err != nil {
		if rerr := restore(); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}

	decision := "kept"
	if keep(sum, cfg.KeepIfUndecided) {
		if _, err := stage("rebuild bin/engine with the tuned tables", stdout, stderr, "go", "build", "-o", "bin/", "./cmd/engine"); err != nil {
			return err
		}
	} else {
		decision = "reverted"
		if err := restore(); err != nil {
			return err
		}
	}
	verdict := sum.Verdict
	if verdict == "" {
		verdict = "no SPRT"
	}
	fmt.Fprintf(stdout, "\n%s\n", sum.Line)
	fmt.Fprintf(stdout, "loop: Elo gain %+.1f ± %.1f (%s), new tables %s, %s\n",
		sum.Elo, sum.Margin, verdict, decision, time.Since(start).Round(time.Second))
	return nil
}
