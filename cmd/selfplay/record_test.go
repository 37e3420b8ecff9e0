package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/internal/record"
)

// rows counts the rows of a dataset file.
func rows(t *testing.T, path string) int64 {
	t.Helper()
	r, err := datasets.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.NumRows()
}

// TestRecordDescribesTheRun checks that -record appends one bench record of
// subject selfplay whose figures are the run's: its games, the rows it
// wrote, the results that sum to its games, and the command that made it.
func TestRecordDescribesTheRun(t *testing.T) {
	dir := t.TempDir()
	out, hist := filepath.Join(dir, "o.parquet"), filepath.Join(dir, "history", "bench.jsonl")
	args := []string{"-games", "3", "-nodes", "200", "-hash", "1", "-max-plies", "30", "-seed", "7", "-quiet", "-out", out, "-record", hist}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	recs, err := record.Read(hist)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	r := recs[0]
	if r.Kind != record.KindBench || r.Subject != "selfplay" {
		t.Fatalf("a %s record of %q, want a bench record of selfplay", r.Kind, r.Subject)
	}
	if !strings.Contains(stderr.String(), "recorded "+r.ID+" in "+hist) {
		t.Errorf("stderr does not name the record: %s", stderr.String())
	}
	f := r.Figures
	if f["games"] != 3 || f["positions"] != float64(rows(t, out)) {
		t.Errorf("games %v positions %v, want 3 and the file's %d rows", f["games"], f["positions"], rows(t, out))
	}
	if f["white_wins"]+f["draws"]+f["black_wins"] != 3 {
		t.Errorf("results %v+%v+%v do not sum to the games", f["white_wins"], f["draws"], f["black_wins"])
	}
	if f["wall_s"] < 0 || f["cpu_s"] <= 0 || f["positions_per_s"] <= 0 || f["nodes_per_search"] <= 0 || f["nodes_per_search"] > 400 {
		t.Errorf("figures %v", f)
	}
	if _, ok := f["shard_games_done"]; ok {
		t.Errorf("a whole run's record counts shard games: %v", f)
	}
	if want := "bin/selfplay " + strings.Join(args, " "); r.Command != want {
		t.Errorf("command %q, want %q", r.Command, want)
	}
	if want := "self-play at 200 nodes: 3 games, seed 7"; r.What != want {
		t.Errorf("what %q, want %q", r.What, want)
	}
	if !strings.Contains(r.Note, "the embedded network") {
		t.Errorf("note %q does not name the network", r.Note)
	}
	// The history file is appended to, never rewritten.
	out2 := filepath.Join(dir, "o2.parquet")
	args = []string{"-games", "1", "-nodes", "100", "-hash", "1", "-max-plies", "20", "-quiet", "-out", out2, "-record", hist, "-what", "a second run"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	recs, err = record.Read(hist)
	if err != nil || len(recs) != 2 || recs[0].ID != r.ID || recs[1].What != "a second run" {
		t.Fatalf("after a second run: %v, %+v", err, recs)
	}
	// A finished job resumed plays nothing, records nothing, and succeeds.
	stderr.Reset()
	if code := run(append(args, "-resume"), &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "nothing recorded") {
		t.Fatalf("a finished job resumed: exit %d, stderr %q", code, stderr.String())
	}
	if recs, err = record.Read(hist); err != nil || len(recs) != 2 {
		t.Fatalf("a run without games added a record: %v, %d", err, len(recs))
	}
}

// TestRecordOfARunFromAFirstGame checks that a run from -first-game says
// where its games start: the figure first_game, the shard's games done from
// there, and a note that the games before are elsewhere.
func TestRecordOfARunFromAFirstGame(t *testing.T) {
	dir := t.TempDir()
	out, hist := filepath.Join(dir, "o"), filepath.Join(dir, "bench.jsonl")
	args := []string{"-games", "4", "-nodes", "100", "-hash", "1", "-max-plies", "20", "-seed", "7", "-quiet", "-part-games", "1",
		"-out", out, "-first-game", "3", "-record", hist}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "4 of 4 games done, the output holding those from game 3") {
		t.Errorf("the report does not say where the output starts: %s", stdout.String())
	}
	recs, err := record.Read(hist)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	f := recs[0].Figures
	if f["games"] != 1 || f["first_game"] != 3 || f["shard_games_done"] != 4 || f["shard_games"] != 4 || f["positions"] != float64(rows(t, out)) {
		t.Errorf("figures %v, want 1 game from game 3, the job done", f)
	}
	if !strings.Contains(recs[0].Note, "games from 3 (-first-game)") || strings.Contains(recs[0].Note, "Resumed") {
		t.Errorf("note %q", recs[0].Note)
	}
	stderr.Reset()
	if code := run(append(args, "-first-game", "5"), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-first-game 5") {
		t.Errorf("-first-game past the games: exit %d, %s", code, stderr.String())
	}
}

// TestBadRecordSettingsAreRefusedBeforePlay checks that a -what that no
// record can hold, -what alone, and a -record file that does not read are
// usage errors (exit 2) before any game, and that the file is left as it was.
func TestBadRecordSettingsAreRefusedBeforePlay(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	const text = "{\"kind\": \"bench\"}\n"
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.parquet")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-record", filepath.Join(dir, "h.jsonl"), "-what", strings.Repeat("x", 121)}, "at most 120"},
		{[]string{"-record", filepath.Join(dir, "h.jsonl"), "-what", "two\nlines"}, "one line"},
		{[]string{"-what", "no file"}, "-what needs -record"},
		{[]string{"-record", bad}, "bad.jsonl:1"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-games", "1", "-nodes", "100", "-quiet", "-out", out}, tt.args...)
		if code := run(args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run wrote its output")
	}
	if got, _ := os.ReadFile(bad); string(got) != text {
		t.Errorf("the bad history file changed: %q", got)
	}
}
