package match

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"chessforge/configs"
	"chessforge/engine/pgn"
)

// playFile plays the match of bin/match's command line args (a -pgn file
// among them) and returns its result.
func playFile(t *testing.T, args ...string) (*Result, error) {
	t.Helper()
	settings, err := ParseArgs(append(args, "-quiet"), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	return Play(context.Background(), settings, &bytes.Buffer{})
}

// firstGames returns the text of the first n games of a PGN file's text.
func firstGames(t *testing.T, text string, n int) string {
	t.Helper()
	end := 0 // where game k+1 begins, after k steps
	for k := range n {
		j := strings.Index(text[end+1:], "\n[Event ")
		if j < 0 {
			t.Fatalf("the PGN has %d games, not more than %d", k+1, n)
		}
		end += j + 2
	}
	return text[:end]
}

// byRound reads a PGN file's games back, keyed by their Round tag, each
// round once.
func byRound(t *testing.T, path string) map[string]pgn.Game {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]pgn.Game{}
	for _, g := range readBack(t, string(data)) {
		if _, ok := m[g.Tags["Round"]]; ok {
			t.Fatalf("%s: round %s twice", path, g.Tags["Round"])
		}
		m[g.Tags["Round"]] = g
	}
	return m
}

// TestResumedMatchEqualsAWholeOne stops a match after some of its games
// (its partial file cut after them, as a killed run leaves it, or its PGN
// file, as an interrupted run leaves it) and resumes it: the games and the
// figures are those of the match played whole, and the games played before
// are not played again.
func TestResumedMatchEqualsAWholeOne(t *testing.T) {
	exe := fake(t)[0]
	args := func(path string) []string {
		return []string{"-a", exe + " random", "-b", exe + " random", "-games", "8", "-tc", "nodes=1",
			"-concurrency", "2", "-seed", "3", "-pgn", path}
	}
	dir := t.TempDir()
	wholePath := filepath.Join(dir, "whole.pgn")
	whole, err := playFile(t, args(wholePath)...)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(wholePath)
	if err != nil {
		t.Fatal(err)
	}
	want := byRound(t, wholePath)

	for _, c := range []struct {
		name   string
		file   func(path string) string
		played int
	}{
		{"from the partial file", PartialPGN, 5},
		{"from the PGN file", func(path string) string { return path }, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.pgn")
			if err := os.WriteFile(c.file(path), []byte(firstGames(t, string(data), c.played)), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := playFile(t, append(args(path), "-resume")...)
			if err != nil {
				t.Fatal(err)
			}
			if r.Resumed != c.played || r.Score != whole.Score || r.Pairs != whole.Pairs {
				t.Errorf("resumed after %d games: %d resumed, %+v %v; played whole: %+v %v",
					c.played, r.Resumed, r.Score, r.Pairs, whole.Score, whole.Pairs)
			}
			got := byRound(t, path)
			if len(got) != len(want) {
				t.Fatalf("the resumed PGN holds %d games, want %d", len(got), len(want))
			}
			for round, g := range want {
				if !slices.Equal(got[round].Moves, g.Moves) || got[round].Tags["Result"] != g.Tags["Result"] {
					t.Errorf("round %s differs from the match played whole", round)
				}
			}
			if _, err := os.Stat(PartialPGN(path)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the partial file is left after the match: %v", err)
			}
			var report bytes.Buffer
			r.Report(&report)
			if !strings.Contains(report.String(), "Resumed:     "+strconv.Itoa(c.played)+" of the games") {
				t.Errorf("the report does not say how many games were resumed:\n%s", report.String())
			}
		})
	}
}

// TestResumeRefusesAnotherMatchsGames resumes from games that another match
// played: other openings (another seed), another engine's name, a game that is not
// finished, a round beyond the match. Each is an error naming the file,
// the round and what differs, and the games are left as they were.
func TestResumeRefusesAnotherMatchsGames(t *testing.T) {
	exe := fake(t)[0]
	args := func(path string, more ...string) []string {
		return append([]string{"-a", exe + " random", "-b", exe + " random", "-games", "4", "-tc", "nodes=1",
			"-concurrency", "1", "-seed", "3", "-random-plies", "3", "-pgn", path}, more...)
	}
	earlier := filepath.Join(t.TempDir(), "earlier.pgn")
	if _, err := playFile(t, args(earlier)...); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(earlier)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, c := range []struct {
		name, text string
		more       []string
		want       string
	}{
		{"another seed", text, []string{"-seed", "4"}, "pgn:1: round 1: it does not begin with its opening"},
		{"another engine", text, []string{"-a-name", "other"}, `pgn:1: round 1: its White tag is "fake random (A)", this match's is "other"`},
		{"another time control", text, []string{"-tc", "nodes=2"}, `its Event tag is "chessforge match, nodes=1", this match's is "chessforge match, nodes=2"`},
		{"fewer games", text, []string{"-games", "2"}, `Round "3": not a game of this match of 2 games`},
		{"a round twice", text + firstGames(t, text, 1), nil, "round 1 again (first at "},
		{"a game cut short", text[:len(text)-1], nil, "does not end with a whole game"},
		{"an unfinished game", strings.Replace(text, `[Result "1-0"]`, `[Result "*"]`, 1), nil, "not a finished game's"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.text, "1-0") && c.name == "an unfinished game" {
				t.Skip("no game was won by White")
			}
			path := filepath.Join(t.TempDir(), "out.pgn")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := playFile(t, append(args(path, "-resume"), c.more...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v, want one naming %s and saying %q", err, path, c.want)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != c.text {
				t.Errorf("the games to resume from were changed (%v)", err)
			}
		})
	}
}

// TestResumeKeepsTheSPRTsDecisionAndTheForfeits resumes a match that its
// SPRT had stopped: no game is played, and the decision and the forfeits
// read back from the PGN are those of the match as it was played.
func TestResumeKeepsTheSPRTsDecisionAndTheForfeits(t *testing.T) {
	exe := fake(t)[0]
	path := filepath.Join(t.TempDir(), "out.pgn")
	args := []string{"-a", exe + " random", "-b", exe + " illegal 1", "-games", "200", "-tc", "nodes=1",
		"-concurrency", "2", "-pgn", path, "-sprt", "elo0=0,elo1=5,alpha=0.05,beta=0.05"}
	first, err := playFile(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	again, err := playFile(t, append(args, "-resume")...)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Stopped || again.Decision != first.Decision || again.Score != first.Score || again.Resumed != first.Score.Games() {
		t.Errorf("resumed: stopped %v, %v, %+v, %d resumed; played: %v, %+v",
			again.Stopped, again.Decision, again.Score, again.Resumed, first.Decision, first.Score)
	}
	if !reflect.DeepEqual(again.Forfeits, first.Forfeits) || first.Forfeits[1][FaultIllegal] != first.Score.Games() {
		t.Errorf("forfeits read back %v, counted in play %v", again.Forfeits, first.Forfeits)
	}
}

func TestResumeNeedsAChessPGN(t *testing.T) {
	for _, args := range [][]string{{"-resume"}, {"-resume", "-game", "dama", "-pgn", "x.pdn"}} {
		settings, err := ParseArgs(args, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		var usage *configs.UsageError
		if _, err := settings.Config(&bytes.Buffer{}); !errors.As(err, &usage) || !strings.Contains(err.Error(), "-resume") {
			t.Errorf("%v: error %v, want a usage error naming -resume", args, err)
		}
	}
}
