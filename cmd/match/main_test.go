package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"chessforge/engine/pgn"
	"chessforge/internal/record"
	"chessforge/selfplay/match/matchtest"
)

func TestMain(m *testing.M) { os.Exit(matchtest.Run(m)) }

// fake returns the command line of a fake engine (see matchtest.Engine).
func fake(t *testing.T, words ...string) []string {
	return matchtest.Command(t, words...)
}

// readBack parses the PGN the match wrote, replaying every game's moves.
func readBack(t *testing.T, text string) []pgn.Game {
	t.Helper()
	games, err := pgn.ReadGames(strings.NewReader(text), "match.pgn")
	if err != nil {
		t.Fatalf("the PGN does not read back: %v\n%s", err, text)
	}
	return games
}

func TestRunPrintsTheSummaryLineAndWritesThePGN(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "games.pgn")
	exe := fake(t)[0]
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-a", exe + " random", "-b", exe + " 'illegal' 4", "-games", "3", "-tc", "nodes=1",
		"-pgn", path, "-quiet"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := lines[len(lines)-1]
	if last != "match: fake random vs fake illegal: +3 =0 -0, Elo > -153.5 (95%)" {
		t.Errorf("last line %q", last)
	}
	if !strings.Contains(stdout.String(), "Pairs:       1, pentanomial [0, 1/2, 1, 3/2, 2 points] = [0 0 0 0 1]") {
		t.Errorf("no pentanomial line:\n%s", stdout.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readBack(t, string(data))); n != 3 {
		t.Errorf("PGN holds %d games, want 3", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left files behind: %v", entries)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-tc", "nodes=0"}, "nodes must be a positive integer"},
		{[]string{"-tc", "clock=10"}, ""},
		{[]string{"-sprt", "elo0=5,elo1=0"}, "elo1 (0) must be greater than elo0 (5)"},
		{[]string{"-games", "0"}, "-games 0: must be positive"},
		{[]string{"-a", "'unterminated"}, "unterminated single quote"},
		{[]string{"-openings", "/nonexistent.epd"}, "no such file"},
		{[]string{"-a", "/nonexistent/engine"}, "engine A"},
		{[]string{"-b-opt", "NoSuchOption=1"}, `has no option "NoSuchOption"`},
		{[]string{"-resign", "300"}, "want 2 comma-separated integers"},
	}
	exe := fake(t)[0]
	for _, tc := range tests {
		if tc.want == "" {
			continue
		}
		args := append([]string{"-a", exe, "-b", exe, "-games", "2", "-quiet"}, tc.args...)
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

func TestRunReadsAConfigFileThatFlagsOverride(t *testing.T) {
	exe := fake(t)[0]
	dir := t.TempDir()
	path := filepath.Join(dir, "match.json")
	text := fmt.Sprintf(`{
  "a": %q,
  "b": %q,
  "a-name": "from the file",
  "games": 6,
  "tc": "nodes=1",
  "resign": "600,3",
  "timeout-margin": "2s",
  "quiet": true
}`, exe+" random", exe+" illegal 4")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-config", path, "-games", "2", "-b-name", "flagged"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if last := lines[len(lines)-1]; last != "match: from the file vs flagged: +2 =0 -0, Elo > -290.5 (95%)" {
		t.Errorf("last line %q", last)
	}
	if stderr.Len() != 0 {
		t.Errorf("quiet from the file, yet stderr holds %q", stderr.String())
	}

	if err := os.WriteFile(path, []byte("{\n  \"games\": 2,\n  \"move_timeout\": \"1s\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"-config", path}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), path+": line 3: key \"move_timeout\" is now \"move-timeout\"") {
		t.Errorf("a snake_case key: error %v", err)
	}
}

// TestRunPlaysDraughts plays a draughts match through the command line
// against fake text-protocol engines, one of which plays an illegal move in
// every game: the report ends with the same summary line as chess, each
// forfeit has its line on stderr, and the games go to a PDN file.
func TestRunPlaysDraughts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "games.pdn")
	exe := fake(t)[0]
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-game", "dama", "-a", exe + " dama random", "-a-name", "random", "-b", exe + " dama illegal 4",
		"-b-name", "illegal", "-games", "4", "-tc", "depth=2", "-pgn", path}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if last := lines[len(lines)-1]; last != "match: random vs illegal: +4 =0 -0, Elo > -72.1 (95%)" {
		t.Errorf("last line %q", last)
	}
	if !strings.Contains(stdout.String(), "Forfeits B:  illegal move 4") {
		t.Errorf("no forfeits line:\n%s", stdout.String())
	}
	if n := strings.Count(stderr.String(), ": engine B loses, illegal move: illegal played "); n != 4 {
		t.Errorf("%d forfeit lines on stderr, want 4:\n%s", n, stderr.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "[GameType \"22\"]"); n != 4 || !strings.Contains(string(data), "[Event \"chessforge draughts match, depth=2\"]") {
		t.Errorf("the PDN holds %d draughts games:\n%s", n, data)
	}
}

// TestRunRecordsEachMatch plays two short matches with -record: the first
// creates the file (and its directory) with one valid record, the second
// appends its own, and the summary line stays the last line of stdout.
func TestRunRecordsEachMatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history", "engine.jsonl")
	exe := fake(t)[0]
	for i, what := range []string{"", "the second match"} {
		var stdout, stderr bytes.Buffer
		args := []string{"-a", exe + " random", "-b", exe + " illegal 4", "-games", "4", "-tc", "nodes=1", "-quiet",
			"-record", path}
		if what != "" {
			args = append(args, "-what", what)
		}
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("match %d: %v\n%s", i+1, err, stderr.String())
		}
		if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); !strings.HasPrefix(lines[len(lines)-1], "match: ") {
			t.Errorf("match %d: the last line is %q", i+1, lines[len(lines)-1])
		}
		recs, err := record.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != i+1 {
			t.Fatalf("after match %d the file holds %d records", i+1, len(recs))
		}
		r := recs[i]
		if !strings.Contains(stderr.String(), "match: recorded "+r.ID+" in "+path) {
			t.Errorf("stderr does not name the record:\n%s", stderr.String())
		}
		if r.Kind != "match" || r.Games != 4 || fmt.Sprint(r.WDL) != "[4 0 0]" || r.TC != "nodes=1" ||
			r.Ended != "complete" || r.Engines[0].Name != "fake random" || r.Engines[1].Name != "fake illegal" {
			t.Errorf("match %d's record: %+v", i+1, r)
		}
		if want := "fake random vs fake illegal at nodes=1"; what == "" && r.What != want || what != "" && r.What != what {
			t.Errorf("match %d's what %q", i+1, r.What)
		}
	}
}

// TestRunRecordsAnInterruptedMatch ends a match through its context, as
// Ctrl-C does, and finds it recorded as interrupted.
func TestRunRecordsAnInterruptedMatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.jsonl")
	exe := fake(t)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // a game or more on a busy machine, far from 400
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"-a", exe + " slow 20", "-b", exe + " illegal 1", "-games", "400", "-tc", "nodes=1",
		"-concurrency", "1", "-quiet", "-record", path}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	recs, err := record.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Ended != "interrupted" || recs[0].Games == 0 || recs[0].Games >= 400 {
		t.Errorf("records %+v, want one of an interrupted match", recs)
	}
}

// TestRunChecksTheRecordBeforeTheMatch: a -what too long, or a -record file
// that does not read, stops bin/match before it plays.
func TestRunChecksTheRecordBeforeTheMatch(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := fake(t)[0]
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-what", strings.Repeat("x", 121)}, "want one line of at most 120 characters"},
		{[]string{"-what", "two\nlines"}, "want one line"},
		{[]string{"-record", bad}, "-record: " + bad + ":1: kind: want match"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-a", exe + " random", "-b", exe + " random", "-games", "2", "-tc", "nodes=1", "-quiet"}, tc.args...)
		err := run(context.Background(), args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
		if stdout.Len() > 0 {
			t.Errorf("%v: the match was played:\n%s", tc.args, stdout.String())
		}
	}
}
