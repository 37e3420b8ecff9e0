package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"chessforge/datasets"
	"chessforge/selfplay"
)

// TestMain lets the test binary run as the command, for the signal test.
func TestMain(m *testing.M) {
	if args := os.Getenv("SELFPLAY_CMD_ARGS"); args != "" {
		os.Exit(run(strings.Fields(args), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestFlagsOverrideTheConfigFileWhichOverridesTheDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.json")
	os.WriteFile(path, []byte(`{"games": 40, "nodes": 800, "endgames": "KRPvKR", "pgn": "x.pgn"}`), 0o644)
	cfg, opt, err := parseArgs([]string{"-config", path, "-nodes", "300", "-seed", "9", "-resume", "-quiet"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := selfplay.DefaultConfig()
	want.Games, want.Endgames, want.PGN = 40, "KRPvKR", "x.pgn" // from the file
	want.Nodes, want.Seed = 300, 9                              // from the flags
	if cfg != want {
		t.Fatalf("got  %+v\nwant %+v", cfg, want)
	}
	if !opt.Resume || opt.Progress != nil {
		t.Fatalf("options %+v", opt)
	}
	// A flag set to its default value still overrides the file.
	cfg, _, err = parseArgs([]string{"-config", path, "-games", "100"}, io.Discard)
	if err != nil || cfg.Games != 100 {
		t.Fatalf("games %d, %v", cfg.Games, err)
	}
}

func TestBadArgumentsAreNamed(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-games", "0"}, "-games"},
		{[]string{"-shard", "5/4"}, "-shard"},
		{[]string{"-config", "/nonexistent/job.json"}, "job.json"},
		{[]string{"extra"}, `"extra"`},
		{[]string{"-multipv", "1"}, "-multipv"},
	}
	for _, tt := range tests {
		_, _, err := parseArgs(tt.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one naming %s", tt.args, err, tt.want)
		}
	}
	var stderr bytes.Buffer
	if code := run([]string{"-shard", "5/4", "-games", "2"}, io.Discard, &stderr); code == 0 || !strings.Contains(stderr.String(), "5/4") {
		t.Errorf("bad shard: exit %d, %q", code, stderr.String())
	}
}

var summaryLine = regexp.MustCompile(`^selfplay: (\d+) games, (\d+) positions, [0-9.]+ s, [0-9]+ positions/s$`)

func TestRunEndsWithTheSummaryLine(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-games", "2", "-nodes", "200", "-hash", "1", "-max-plies", "30", "-quiet",
		"-out", filepath.Join(dir, "o.parquet"), "-pgn", filepath.Join(dir, "o.pgn")}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	m := summaryLine.FindStringSubmatch(lines[len(lines)-1])
	if m == nil || m[1] != "2" {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
	for _, want := range []string{"unique positions:", "output: " + filepath.Join(dir, "o.parquet"), "pgn: " + filepath.Join(dir, "o.pgn")} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestInterruptClosesTheFilesAndResumeFinishesTheJob(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := "-games 60 -nodes 200 -hash 1 -max-plies 30 -workers 1 -part-games 3 -quiet -out " + out
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SELFPLAY_CMD_ARGS="+args)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the first part file is finished.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if parts, _ := filepath.Glob(filepath.Join(out, "*.parquet")); len(parts) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no part file written")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	errText, _ := io.ReadAll(bufio.NewReader(stderr))
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit %v after SIGINT; stderr %s; stdout %s", err, errText, stdout.String())
	}
	if !strings.Contains(string(errText), "stopping") || !strings.Contains(stdout.String(), "-resume") {
		t.Fatalf("the interrupted run does not say what happened:\n%s\n%s", errText, stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	m := summaryLine.FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
	if tmp, _ := filepath.Glob(filepath.Join(out, "*"+datasets.TempSuffix)); len(tmp) > 0 {
		t.Fatalf("temporary files left after SIGINT: %v", tmp)
	}
	r, err := datasets.Open(out, nil) // every file is valid
	if err != nil {
		t.Fatal(err)
	}
	r.Close()

	var resumed bytes.Buffer
	if code := run(append(strings.Fields(args), "-resume"), &resumed, io.Discard); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, resumed.String())
	}
	if !strings.Contains(resumed.String(), "shard 1/1: 60 of 60 games done") {
		t.Fatalf("resume did not finish the job:\n%s", resumed.String())
	}
}
