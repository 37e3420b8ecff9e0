package selfplay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
)

// errDiskFull is the error injected for a file that cannot be finished.
var errDiskFull = errors.New("no space left on device (injected)")

// failingClose returns a failClose hook that fails the n-th time (1-based)
// a file whose name ends in suffix is finished, and lets the others
// through.
func failingClose(suffix string, n int) func(string) error {
	closes := 0
	return func(path string) error {
		if !strings.HasSuffix(path, suffix) {
			return nil
		}
		closes++
		if closes == n {
			return errDiskFull
		}
		return nil
	}
}

// savedCounts are the counts of a Summary that say what was written.
type savedCounts struct {
	Games, Done         int
	Positions, Unique   int64
	Wins, Draws, Losses int
	Terminations        map[datasets.Termination]int
	Searches, Nodes     int64
}

func countsOf(s *Summary) savedCounts {
	return savedCounts{s.Games, s.Done, s.Positions, s.Unique, s.Wins, s.Draws, s.Losses, s.Terminations, s.Searches, s.Nodes}
}

// TestWriteErrorCountsOnlyTheSavedGames fails the second part file of a
// job when it is closed (a full disk), or the PGN file when that part's
// games are written to it: the summary, its line, the last progress line,
// the dataset and the PGN file hold only the games of the first part, the
// one finished file, as a run stopped after those games does; and -resume
// continues from them.
func TestWriteErrorCountsOnlyTheSavedGames(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games, cfg.PartGames = 7, 3
	cfg.Out, cfg.PGN = filepath.Join(dir, "stopped"), filepath.Join(dir, "stopped.pgn")
	want := runJob(t, cfg, Options{stopAfter: 3})
	wantPGN, _ := os.ReadFile(cfg.PGN)
	for _, failing := range []string{".parquet", ".pgn"} {
		t.Run(failing, func(t *testing.T) {
			cfg := cfg
			cfg.Out, cfg.PGN = filepath.Join(dir, "failed"+failing), filepath.Join(dir, "failed"+failing+".pgn")
			checkSavedAfterAFailure(t, cfg, failingClose(failing, 2), want, wantPGN)
		})
	}
}

func checkSavedAfterAFailure(t *testing.T, cfg Config, failClose func(string) error, want *Summary, wantPGN []byte) {
	var bar bytes.Buffer
	sum, err := Run(context.Background(), cfg, Options{failClose: failClose, Progress: &bar, progressEvery: time.Nanosecond})
	var werr *WriteError
	if !errors.As(err, &werr) || !errors.Is(err, errDiskFull) {
		t.Fatalf("error %v, want the injected write error", err)
	}
	if got, w := countsOf(sum), countsOf(want); !equalCounts(got, w) {
		t.Fatalf("after the failure the summary counts\n%+v\nthe saved games are\n%+v", got, w)
	}
	if len(sum.Files) != 1 || !sum.Interrupted {
		t.Fatalf("files %v, interrupted %v", sum.Files, sum.Interrupted)
	}
	if rows := fixture.Rows(t, cfg.Out); int64(len(rows)) != sum.Positions {
		t.Fatalf("%d rows saved, the summary says %d positions", len(rows), sum.Positions)
	}
	if line := sum.Line(); !strings.HasPrefix(line, "selfplay: 3 games, ") {
		t.Fatalf("summary line %q", line)
	}
	lines := strings.Split(strings.TrimSpace(bar.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "selfplay: 3/7 games") {
		t.Fatalf("last progress line %q, want 3/7 games", last)
	}
	if got, _ := os.ReadFile(cfg.PGN); string(got) != string(wantPGN) {
		t.Fatalf("the PGN file holds other games than the saved ones:\n%s", got)
	}

	sum = runJob(t, cfg, Options{Resume: true})
	if sum.Done != cfg.Games || sum.Games != 4 {
		t.Fatalf("resume: done %d, games %d", sum.Done, sum.Games)
	}
}

// TestWriteErrorOfASingleFileCountsNoGame fails the single output file
// when it is closed, or the PGN file when its games are written out before
// that: no game is saved, the summary says so, and no file is left.
func TestWriteErrorOfASingleFileCountsNoGame(t *testing.T) {
	for _, failing := range []string{".parquet", ".pgn"} {
		t.Run(failing, func(t *testing.T) {
			dir := t.TempDir()
			cfg := tinyConfig()
			cfg.Games = 3
			cfg.Out, cfg.PGN = filepath.Join(dir, "one.parquet"), filepath.Join(dir, "one.pgn")
			sum, err := Run(context.Background(), cfg, Options{failClose: failingClose(failing, 1)})
			if !errors.Is(err, errDiskFull) {
				t.Fatalf("error %v", err)
			}
			if sum.Done != 0 || sum.Games != 0 || sum.Positions != 0 || sum.Wins+sum.Draws+sum.Losses != 0 || sum.Unique != 0 || len(sum.Files) != 0 {
				t.Fatalf("nothing was saved, the summary says %+v", sum)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("the failed run left %v", entries)
			}
		})
	}
}

func equalCounts(a, b savedCounts) bool {
	if len(a.Terminations) != len(b.Terminations) {
		return false
	}
	for k, v := range a.Terminations {
		if b.Terminations[k] != v {
			return false
		}
	}
	a.Terminations, b.Terminations = nil, nil
	return reflect.DeepEqual(a, b)
}

// TestAFailedRunKeepsTheEarlierPGN runs a job into a dataset file and a
// PGN file, then a second job over both that fails when its file is
// closed: the earlier dataset and PGN files are as they were. The same
// holds for a directory of part files whose first part fails.
func TestAFailedRunKeepsTheEarlierPGN(t *testing.T) {
	for _, out := range []string{"one.parquet", "parts"} {
		t.Run(out, func(t *testing.T) {
			dir := t.TempDir()
			cfg := tinyConfig()
			cfg.Games, cfg.PartGames = 3, 2
			if out == "one.parquet" {
				cfg.PartGames = 5
			}
			cfg.Out, cfg.PGN = filepath.Join(dir, out), filepath.Join(dir, "games.pgn")
			runJob(t, cfg, Options{})
			if out == "parts" {
				cfg.Out = filepath.Join(dir, "parts2") // the old PGN file, a new directory
			}
			before, _ := os.ReadFile(cfg.PGN)
			beforeRows := fixture.Rows(t, filepath.Join(dir, out))

			cfg.Seed++
			if _, err := Run(context.Background(), cfg, Options{failClose: failingClose(".parquet", 1)}); !errors.Is(err, errDiskFull) {
				t.Fatalf("error %v", err)
			}
			if got, _ := os.ReadFile(cfg.PGN); string(got) != string(before) || len(before) == 0 {
				t.Fatalf("the earlier PGN file (%d bytes) is now %d bytes", len(before), len(got))
			}
			if got := fixture.Rows(t, filepath.Join(dir, out)); !reflect.DeepEqual(got, beforeRows) {
				t.Fatal("the earlier dataset changed")
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, "*"+datasets.TempSuffix)); len(tmp) > 0 {
				t.Fatalf("temporary files left: %v", tmp)
			}
		})
	}
}

// TestResumeTakesTheKilledRunsTemporaryPGN leaves what a new run killed
// between finishing its first part and renaming its PGN file leaves: the
// part, the games under the PGN's temporary name, and an earlier job's PGN
// file under its name. -resume continues from the temporary file, and the
// result is the uninterrupted run's.
func TestResumeTakesTheKilledRunsTemporaryPGN(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games, cfg.PartGames = 4, 2
	cfg.Out, cfg.PGN = filepath.Join(dir, "full"), filepath.Join(dir, "full.pgn")
	runJob(t, cfg, Options{})
	full, _ := os.ReadFile(cfg.PGN)

	cfg.Out, cfg.PGN = filepath.Join(dir, "killed"), filepath.Join(dir, "killed.pgn")
	runJob(t, cfg, Options{stopAfter: 2})
	if err := os.Rename(cfg.PGN, cfg.PGN+datasets.TempSuffix); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Seed++
	other.Out, other.PGN = filepath.Join(dir, "other"), filepath.Join(dir, "other.pgn")
	runJob(t, other, Options{})
	if err := os.Rename(other.PGN, cfg.PGN); err != nil {
		t.Fatal(err)
	}

	if sum := runJob(t, cfg, Options{Resume: true}); sum.Games != 2 {
		t.Fatalf("resume: %+v", sum)
	}
	if got, _ := os.ReadFile(cfg.PGN); string(got) != string(full) {
		t.Fatalf("resumed PGN:\n%s\nthe uninterrupted run's:\n%s", got, full)
	}
	if _, err := os.Stat(cfg.PGN + datasets.TempSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary PGN file: %v", err)
	}
}

// TestResumeKeepsThePGNOfTheFinishedFiles leaves what a new run killed
// before it finished any file leaves beside a complete job of the same
// settings: the job's files, and the new run's few games under the PGN's
// temporary name. -resume must keep the job's PGN file, which holds the
// games of its finished files, and drop the temporary one.
func TestResumeKeepsThePGNOfTheFinishedFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games = 4
	cfg.Out, cfg.PGN = filepath.Join(dir, "out.parquet"), filepath.Join(dir, "out.pgn")
	runJob(t, cfg, Options{})
	full, err := os.ReadFile(cfg.PGN)
	if err != nil {
		t.Fatal(err)
	}
	// The killed run's first game, or none at all.
	first := full[:bytes.Index(full, []byte("\n[Event "))+1]
	for _, tmp := range [][]byte{first, nil} {
		if err := os.WriteFile(cfg.PGN+datasets.TempSuffix, tmp, 0o644); err != nil {
			t.Fatal(err)
		}
		if sum := runJob(t, cfg, Options{Resume: true}); sum.Games != 0 || sum.Done != 4 {
			t.Fatalf("resume of a complete job: %+v", sum)
		}
		if got, _ := os.ReadFile(cfg.PGN); string(got) != string(full) {
			t.Fatalf("PGN after -resume with a temporary file of %d bytes:\n%s\nthe job's:\n%s", len(tmp), got, full)
		}
		if _, err := os.Stat(cfg.PGN + datasets.TempSuffix); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("temporary PGN file: %v", err)
		}
	}
}

// TestResumeRemovesTheTemporaryFileOfASingleFile: a -resume of a complete
// single-file job removes the half-written file a killed run left beside it.
func TestResumeRemovesTheTemporaryFileOfASingleFile(t *testing.T) {
	cfg := tinyConfig()
	cfg.Games = 2
	cfg.Out = filepath.Join(t.TempDir(), "out.parquet")
	runJob(t, cfg, Options{})
	tmp := cfg.Out + datasets.TempSuffix
	if err := os.WriteFile(tmp, []byte("PAR1 cut short"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum := runJob(t, cfg, Options{Resume: true}); sum.Games != 0 || sum.Done != 2 {
		t.Fatalf("resume of a complete job: %+v", sum)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed run's %s: %v", tmp, err)
	}
}

// TestResumeOfAnotherJobNamesTheSettingsThatDiffer: a job of the
// hand-crafted evaluation, its default before the network's, resumed
// without -nnue=false, is refused with the settings that differ and the
// flag that resumes it.
func TestResumeOfAnotherJobNamesTheSettingsThatDiffer(t *testing.T) {
	cfg := tinyConfig()
	cfg.Games = 2
	cfg.NNUE = false
	cfg.Out = filepath.Join(t.TempDir(), "out.parquet")
	runJob(t, cfg, Options{stopAfter: 1})
	now := cfg
	now.NNUE = true
	_, err := Run(t.Context(), now, Options{Resume: true})
	if err == nil {
		t.Fatal("resumed another job")
	}
	for _, want := range []string{"was written by another job", "nnue (none there, true here)", "network (none there, ", "-nnue=false"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q: want %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `"games"`) {
		t.Errorf("error %q names settings that agree", err)
	}
}
