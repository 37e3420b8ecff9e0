package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/configs"
	"chessforge/internal/record"
	"chessforge/tuner/spsa"
)

// engineBin is the engine TestMain builds for the runs.
var engineBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "spsa-test")
	if err != nil {
		panic(err)
	}
	engineBin = filepath.Join(dir, "engine")
	build := exec.Command("go", "build", "-o", engineBin, "chessforge/cmd/engine")
	build.Stderr = os.Stderr
	code := 1
	if build.Run() == nil {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestRunAndResume plays a short run with the real engine, stopped
// nowhere, and checks its output and state file; then a longer plan on the
// same file is refused, and the same plan resumed plays nothing more.
func TestRunAndResume(t *testing.T) {
	state, history := filepath.Join(t.TempDir(), "run.json"), filepath.Join(t.TempDir(), "tuning.jsonl")
	args := []string{"-engine", engineBin, "-params", "LMRBase, SEEQuietMargin=30:2.5", "-pairs", "2", "-batch", "2",
		"-tc", "nodes=300", "-max-plies", "60", "-concurrency", "2", "-state", state, "-quiet", "-record", history}
	var stdout, stderr bytes.Buffer
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "LMRBase ") || !strings.HasPrefix(lines[1], "SEEQuietMargin               30 -> ") ||
		!strings.HasPrefix(lines[2], "engine flags: -param LMRBase=") || !strings.HasPrefix(lines[4], "spsa: 2 of 2 pairs, +") {
		t.Errorf("output:\n%s", stdout.String())
	}
	st, err := spsa.LoadState(state, mustPlan(t, args))
	if err != nil {
		t.Fatal(err)
	}
	if st.Played != 2 || st.W+st.D+st.L != 4 || st.Forfeits != 0 {
		t.Errorf("state: %d pairs, +%d =%d -%d, %d forfeits", st.Played, st.W, st.D, st.L, st.Forfeits)
	}
	if lines[4] != st.Summary() {
		t.Errorf("last line %q, the state's summary %q", lines[4], st.Summary())
	}
	v := st.Values()
	if want := fmt.Sprintf("next run from here: -params LMRBase=%d,SEEQuietMargin=%d:2.5", v[0], v[1]); lines[3] != want {
		t.Errorf("line 4 %q, want %q", lines[3], want)
	}
	// Without -resume the file is not overwritten.
	stdout.Reset()
	err = run(args, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "the file exists; -resume continues its run") {
		t.Errorf("a second run on the state file: %v", err)
	}
	err = run(append(args, "-resume", "-pairs", "3"), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `the run was made with -pairs "2", this one has "3"`) {
		t.Errorf("resumed with another plan: %v", err)
	}
	stdout.Reset()
	if err := run(append(args, "-resume"), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(stdout.String()); !strings.HasSuffix(got, st.Summary()) {
		t.Errorf("resuming a finished run printed\n%s\nwant it to end with %q", got, st.Summary())
	}
	// Each run that finished appended its tune record; the refused ones none.
	recs, err := record.Read(history)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID == recs[1].ID {
		t.Fatalf("%d records, want one from each finished run: %+v", len(recs), recs)
	}
	for _, r := range recs {
		if r.Kind != record.KindTune || r.Tool != "spsa" || r.Iterations != 2 || r.Params["LMRBase"] != float64(v[0]) ||
			r.Params["SEEQuietMargin"] != float64(v[1]) || r.Figures["wins"]+r.Figures["draws"]+r.Figures["losses"] != 4 {
			t.Errorf("record %+v", r)
		}
	}
	// A history file that does not read is refused before any game.
	os.WriteFile(history, []byte("not json\n"), 0o644)
	if err := run(append(args, "-resume"), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "-record: "+history+":1: ") {
		t.Errorf("a bad history file: %v", err)
	}
}

// mustPlan is the plan a command line gives.
func mustPlan(t *testing.T, args []string) spsa.Plan {
	t.Helper()
	s := spsa.DefaultSettings()
	if err := configs.ParseCommand("spsa", about, "", &s, args, io.Discard); err != nil {
		t.Fatal(err)
	}
	return s.Plan
}

// TestTheStateAndRecordAreNotInputs: a -state that is the -openings book,
// or a -record that is the state or the book, is refused with exit status
// 2 before anything is read or written.
func TestTheStateAndRecordAreNotInputs(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "run.json")
	book := filepath.Join(dir, "book.epd")
	os.WriteFile(state, []byte(`{"not": "read"}`), 0o644)
	os.WriteFile(book, []byte("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"), 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink(state, link)
	base := []string{"-engine", engineBin, "-params", "LMRBase", "-pairs", "2", "-tc", "nodes=300", "-quiet"}
	for _, extra := range [][]string{
		{"-state", state, "-resume", "-openings", link},
		{"-state", state, "-resume", "-record", link},
		{"-state", filepath.Join(dir, "new.json"), "-openings", book, "-record", book},
	} {
		var stdout, stderr bytes.Buffer
		err := run(append(append([]string{}, base...), extra...), &stdout, &stderr)
		if code := configs.Exit(io.Discard, "spsa", err); code != 2 || !strings.Contains(fmt.Sprint(err), "choose another output") {
			t.Errorf("%v: exit %d, error %v; want 2 and a refusal", extra, code, err)
		}
	}
	if data, _ := os.ReadFile(state); string(data) != `{"not": "read"}` {
		t.Errorf("the state file changed: %q", data)
	}
	if data, _ := os.ReadFile(book); !strings.HasPrefix(string(data), "rnbqkbnr/") || strings.Count(string(data), "\n") != 1 {
		t.Errorf("the book changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.json")); !os.IsNotExist(err) {
		t.Error("a refused run wrote its state file")
	}
}
