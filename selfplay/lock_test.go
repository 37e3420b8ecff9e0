package selfplay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/internal/outlock"
)

// pausedRun starts cfg in the background and returns once it has written
// pauseAt games; the run goes on when release is called, which returns its
// summary and error.
func pausedRun(t *testing.T, cfg Config, pauseAt int) (release func() (*Summary, error)) {
	t.Helper()
	paused, resume := make(chan struct{}), make(chan struct{})
	type result struct {
		sum *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := Run(context.Background(), cfg, Options{afterWrite: func(n int) {
			if n == pauseAt {
				close(paused)
				<-resume
			}
		}})
		done <- result{sum, err}
	}()
	select {
	case <-paused:
	case r := <-done:
		t.Fatalf("the first run ended before game %d: %+v, %v", pauseAt, r.sum, r.err)
	}
	released := false
	t.Cleanup(func() {
		if !released {
			close(resume)
			<-done
		}
	})
	return func() (*Summary, error) {
		released = true
		close(resume)
		r := <-done
		return r.sum, r.err
	}
}

// temporaries returns the temporary files in dir.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	tmp, err := filepath.Glob(filepath.Join(dir, "*"+datasets.TempSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return tmp
}

// TestASecondRunOfALiveJobIsRefused runs shard 1/2 of a job and pauses it
// with a part under its temporary name: shard 2/2 writes into the same
// directory meanwhile, but a second run of shard 1/2, with -resume or
// without, is refused with the holder's name and leaves the first's files
// alone; the first then finishes.
func TestASecondRunOfALiveJobIsRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games, cfg.PartGames = 8, 2
	cfg.Out, cfg.PGN = filepath.Join(dir, "parts"), filepath.Join(dir, "games.pgn")
	cfg.Shard = "1/2"
	release := pausedRun(t, cfg, 3) // shard 1/2's games 0-1 in a part, game 2 in the next one's temporary file
	tmp := temporaries(t, cfg.Out)
	if len(tmp) != 1 {
		t.Fatalf("temporary files %v, want the paused run's one", tmp)
	}
	pgnPath := PGNPath(cfg.PGN, Shard{K: 1, N: 2})
	pgnBefore, _ := os.ReadFile(pgnPath)

	other := cfg
	other.Shard = "2/2"
	if sum := runJob(t, other, Options{}); sum.Done != 4 {
		t.Fatalf("shard 2/2 beside the live shard 1/2: %+v", sum)
	}

	for _, resume := range []bool{true, false} {
		sum, err := Run(context.Background(), cfg, Options{Resume: resume})
		var held *outlock.HeldError
		if !errors.As(err, &held) || sum != nil {
			t.Fatalf("resume %v: error %v (summary %+v), want the lock's", resume, err, sum)
		}
		if held.PID != os.Getpid() || !strings.Contains(err.Error(), "is being written by process") || !strings.Contains(err.Error(), "-out "+cfg.Out) {
			t.Fatalf("resume %v: the error does not name the output and its writer: %v", resume, err)
		}
		if got := temporaries(t, cfg.Out); len(got) != 1 || got[0] != tmp[0] {
			t.Fatalf("resume %v: the live run's temporary file %v is now %v", resume, tmp, got)
		}
		if got, _ := os.ReadFile(pgnPath); string(got) != string(pgnBefore) {
			t.Fatalf("resume %v: the live run's PGN file changed", resume)
		}
	}

	sum, err := release()
	if err != nil || sum.Done != 4 {
		t.Fatalf("the first run after the refused ones: %+v, %v", sum, err)
	}
	if locks, _ := filepath.Glob(filepath.Join(dir, "*", "*"+outlock.Suffix)); len(locks) > 0 {
		t.Fatalf("locks left behind: %v", locks)
	}
}

// TestOneFileAndOnePGNHaveOneWriter checks the lock of a single output
// file and of a PGN file: a second run writing either is refused.
func TestOneFileAndOnePGNHaveOneWriter(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games = 3
	cfg.Out, cfg.PGN = filepath.Join(dir, "one.parquet"), filepath.Join(dir, "one.pgn")
	release := pausedRun(t, cfg, 1)

	second := cfg
	second.PGN = ""
	if _, err := Run(context.Background(), second, Options{Resume: true}); !errors.As(err, new(*outlock.HeldError)) || !strings.Contains(err.Error(), cfg.Out) {
		t.Fatalf("a second writer of %s: %v", cfg.Out, err)
	}
	third := cfg
	third.Out = filepath.Join(dir, "other.parquet")
	if _, err := Run(context.Background(), third, Options{}); !errors.As(err, new(*outlock.HeldError)) || !strings.Contains(err.Error(), "-pgn "+cfg.PGN) {
		t.Fatalf("a second writer of %s: %v", cfg.PGN, err)
	}
	if _, err := os.Stat(third.Out + outlock.Suffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused run left its own lock: %v", err)
	}
	if sum, err := release(); err != nil || sum.Done != 3 {
		t.Fatalf("the first run: %+v, %v", sum, err)
	}
}

// TestAStaleLockIsTakenOver leaves the lock files of a killed run (no
// process holds them): the next run takes them over and proceeds.
func TestAStaleLockIsTakenOver(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.Games = 2
	cfg.Out, cfg.PGN = filepath.Join(dir, "one.parquet"), filepath.Join(dir, "one.pgn")
	for _, p := range []string{cfg.Out, cfg.PGN} {
		writeFile(t, outlock.Path(p), "pid 999999999\ncommand selfplay -out gone\n")
	}
	if sum := runJob(t, cfg, Options{}); sum.Done != 2 {
		t.Fatalf("%+v", sum)
	}
	for _, p := range []string{cfg.Out, cfg.PGN} {
		if _, err := os.Stat(outlock.Path(p)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: %v", outlock.Path(p), err)
		}
	}
}

// TestARunThatFailsAtOnceCreatesNothing gives outputs that cannot be
// written, and inputs that cannot be read: the run fails before any game
// and leaves no directory, no lock and no file behind.
func TestARunThatFailsAtOnceCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		set  func(c *Config)
		want string
	}{
		{"pgn in a missing directory", func(c *Config) { c.PGN = filepath.Join(dir, "nowhere", "x.pgn") }, "-pgn "},
		{"missing book", func(c *Config) { c.Book = filepath.Join(dir, "no-book.epd") }, "no-book.epd"},
		{"missing network", func(c *Config) { c.NNUE, c.EvalFile = true, filepath.Join(dir, "no-net.nnue") }, "no-net.nnue"},
		{"part directory under a missing one, pgn nowhere", func(c *Config) {
			c.Out = filepath.Join(dir, "new", "deeper", "o")
			c.PGN = filepath.Join(dir, "nowhere", "x.pgn")
		}, "-pgn "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := tinyConfig()
			cfg.Out = filepath.Join(dir, "o")
			c.set(&cfg)
			sum, err := Run(context.Background(), cfg, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || sum != nil {
				t.Fatalf("error %v (summary %+v), want one naming %q", err, sum, c.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 0 {
				t.Fatalf("the failed run left %v in %s", entries, dir)
			}
		})
	}
}
