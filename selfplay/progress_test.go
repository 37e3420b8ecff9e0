package selfplay

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// progressLine is a plain progress line of a run: the count, and this
// run's W/D/L with, on a resumed run, the games of the earlier runs.
var progressLine = regexp.MustCompile(`^selfplay: (\d+)/(\d+) games \(\d+%\)(?:, [^,]+)*?, (?:(\d+) games before this run; this run: )?\d+ positions, \+(\d+) =(\d+) -(\d+)$`)

// checkProgress checks the plain progress lines of a run of a job of total
// games, earlier of them done before the run and last done when it ends: no
// carriage return, a line for each game counted, each with W+D+L equal to
// the games this run counted, and a last line at last.
func checkProgress(t *testing.T, out string, earlier, last, total int) {
	t.Helper()
	if strings.Contains(out, "\r") {
		t.Fatalf("carriage returns in progress written to a buffer: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	seen := map[int]bool{}
	for _, l := range lines {
		m := progressLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("progress line %q", l)
		}
		n, _ := strconv.Atoi(m[1])
		tot, _ := strconv.Atoi(m[2])
		before, _ := strconv.Atoi(m[3])
		w, _ := strconv.Atoi(m[4])
		d, _ := strconv.Atoi(m[5])
		lo, _ := strconv.Atoi(m[6])
		if tot != total || before != earlier || w+d+lo != n-earlier {
			t.Fatalf("line %q: %d games counted, %d before this run, W+D+L = %d", l, n, before, w+d+lo)
		}
		seen[n] = true
	}
	for n := earlier + 1; n <= last; n++ {
		if !seen[n] {
			t.Errorf("no progress line at %d games:\n%s", n, out)
		}
	}
	if m := progressLine.FindStringSubmatch(lines[len(lines)-1]); m[1] != strconv.Itoa(last) {
		t.Errorf("last line %q, not at %d games", lines[len(lines)-1], last)
	}
}

// TestProgressCountsAndResultsComeFromTheSameGame runs a job, stops it, and
// resumes it with progress written to a buffer, a line at every game: each
// line's W/D/L adds up to the games it counts.
func TestProgressCountsAndResultsComeFromTheSameGame(t *testing.T) {
	cfg := tinyConfig()
	cfg.Out = filepath.Join(t.TempDir(), "out.parquet")
	var w bytes.Buffer
	runJob(t, cfg, Options{Progress: &w, progressEvery: time.Nanosecond, stopAfter: 3})
	checkProgress(t, w.String(), 0, 3, cfg.Games)
	w.Reset()
	runJob(t, cfg, Options{Progress: &w, progressEvery: time.Nanosecond, Resume: true})
	checkProgress(t, w.String(), 3, cfg.Games, cfg.Games)
}
