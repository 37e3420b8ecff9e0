package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clock is a fake clock that tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func TestNilBarDrawsNothing(t *testing.T) {
	b := New(nil, 10, "games", Style{EndLine: true})
	if b != nil {
		t.Fatal("New(nil writer) is not nil")
	}
	b.Set(3)
	b.Add(1)
	b.Update(4, "x")
	b.StartAt(2)
	b.Describe("x")
	b.SetTotal(5)
	b.Finish()
	b.Exit()
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file is a terminal")
	}
	var nilFile *os.File
	if IsTerminal(nilFile) {
		t.Error("a nil *os.File is a terminal")
	}
}

// TestOffATerminalPlainPeriodicLines checks that a bar on a writer that is
// not a terminal writes no carriage returns, a line per period at most, and
// a last line when finished.
func TestOffATerminalPlainPeriodicLines(t *testing.T) {
	var w bytes.Buffer
	b := New(&w, 400, "selfplay", Style{Unit: "games", Throttle: time.Millisecond, RenderBlank: true, EndLine: true})
	b.Add(1)
	if w.Len() != 0 {
		t.Fatalf("a line before the first period: %q", w.String())
	}
	c := newClock()
	w.Reset()
	b = newBar(&w, 400, "selfplay", Style{Unit: "games", Elapsed: true}, false, c.now)
	for i := range 400 {
		c.advance(100 * time.Millisecond) // 10 games a second: a line every 100 games
		b.Update(int64(i+1), "detail")
	}
	b.Finish()
	out := w.String()
	if strings.Contains(out, "\r") {
		t.Fatalf("carriage returns off a terminal: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		"selfplay: 100/400 games (25%), 10.0 games/s, 10s elapsed, ETA 30s, detail",
		"selfplay: 200/400 games (50%), 10.0 games/s, 20s elapsed, ETA 20s, detail",
		"selfplay: 300/400 games (75%), 10.0 games/s, 30s elapsed, ETA 10s, detail",
		"selfplay: 400/400 games (100%), 10.0 games/s, 40s elapsed, detail",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines\n%s\nwant\n%s", out, strings.Join(want, "\n"))
	}
	b.Add(1) // after Finish: nothing more
	b.Finish()
	if w.String() != out {
		t.Errorf("a finished bar went on writing: %q", w.String()[len(out):])
	}

	// Exit writes the last line where the bar stopped; Every sets the period.
	w.Reset()
	c = newClock()
	b = newBar(&w, -1, "importing", Style{Unit: "rows", Every: time.Second}, false, c.now)
	c.advance(time.Second)
	b.Add(5000)
	c.advance(time.Second)
	b.Add(1000)
	b.Exit()
	if got, want := w.String(), "importing: 5000 rows, 5000 rows/s\nimporting: 6000 rows, 3000 rows/s\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestNoRateAtFirst checks that a bar shows no rate and no time left until
// it has run for a second, however large its first step (the first frame of
// a dataset command used to show billions of rows per second), and that
// units done before it started (StartAt) do not count in its rate.
func TestNoRateAtFirst(t *testing.T) {
	var w bytes.Buffer
	c := newClock()
	b := newBar(&w, 3_000_000, "reading", Style{Unit: "rows", Elapsed: true}, true, c.now)
	c.advance(time.Microsecond)
	b.Add(1_000_000)
	if out := w.String(); strings.Contains(out, "rows/s") || strings.Contains(out, "ETA") || !strings.Contains(out, "(1000000/3000000 rows)") {
		t.Errorf("first frame %q", out)
	}
	w.Reset()
	c.advance(2 * time.Second)
	b.Add(1_000_000)
	if out := w.String(); !strings.Contains(out, "1000000 rows/s") || !strings.Contains(out, "ETA 1s") {
		t.Errorf("frame after 2 s %q", out)
	}

	w.Reset()
	c = newClock()
	b = newBar(&w, 100, "selfplay", Style{Unit: "games", Every: time.Second}, false, c.now)
	b.StartAt(60)
	c.advance(2 * time.Second)
	b.Set(70)
	if got, want := w.String(), "selfplay: 70/100 games (70%), 5.00 games/s, ETA 6s\n"; got != want {
		t.Errorf("resumed bar: %q, want %q", got, want)
	}
}

// TestTerminalFrames checks the terminal bar: frames redrawn in place with
// the count and the details of the same update, throttled, ended by a new
// line with EndLine or erased with ClearOnFinish.
func TestTerminalFrames(t *testing.T) {
	var w bytes.Buffer
	c := newClock()
	b := newBar(&w, 4, "rows", Style{Width: 10, Unit: "rows", EndLine: true, RenderBlank: true}, true, c.now)
	if got, want := w.String(), "\rrows   0% |          | (0/4 rows)"; got != want {
		t.Fatalf("blank frame %q, want %q", got, want)
	}
	b.Update(2, "reading")
	b.Set(4)
	b.Finish()
	out := w.String()
	if !strings.Contains(out, "\rrows  50% |█████     | (2/4 rows) reading") || !strings.Contains(out, "(4/4 rows) reading") || !strings.HasSuffix(out, "\n") {
		t.Fatalf("bar output %q", out)
	}

	w.Reset()
	b = newBar(&w, 100, "", Style{Throttle: time.Second, ClearOnFinish: true}, true, c.now)
	for i := range 50 {
		b.Set(int64(i + 1))
	}
	if n := strings.Count(w.String(), "\r"); n != 1 {
		t.Errorf("%d frames within the throttle, want 1: %q", n, w.String())
	}
	c.advance(time.Second)
	b.Set(60)
	b.Finish()
	out = w.String()
	if strings.HasSuffix(out, "\n") || !strings.HasSuffix(out, "\r") || strings.Count(out, "\r") != 4 {
		t.Fatalf("a cleared bar: %q", out)
	}
}
