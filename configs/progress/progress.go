// Package progress shows the progress of the long-running commands
// (self-play, tuning, dataset tools, matches), usually on standard error.
//
// On a terminal a Bar is a line redrawn in place with carriage returns. On
// anything else (a log file, a pipe, a buffer) it writes a plain line every
// Style.Every (10 s by default) and a last one when it is finished, such as
//
//	selfplay: 120/400 games (30%), 12.3 games/s, 10s elapsed, ETA 23s, +50 =40 -30
//
// so that a log stays small and readable. A rate is shown once the bar has
// run for a second, measured from its start over the units done since, so
// that a first large step does not show an absurd rate.
//
// Every method of a nil *Bar does nothing, so a quiet run passes a nil
// writer to New and calls the same methods.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Style is how a bar looks. Every bar shows its count, its percentage when
// the total is known, and its details (Describe, Update) last.
type Style struct {
	Width     int           // columns of a terminal bar (0: 40)
	Throttle  time.Duration // least time between two terminal redraws (0: none)
	Every     time.Duration // least time between two plain lines off a terminal (0: 10 s)
	Elapsed   bool          // show the elapsed time
	NoPredict bool          // hide the predicted time left
	Unit      string        // when set, name the count in these units ("rows") and show their rate per second
	// ClearOnFinish erases a terminal bar when it is finished, so that the
	// next output takes its place.
	ClearOnFinish bool
	// EndLine ends a terminal bar's line when it is finished or exited, so
	// that the next output starts on a new line.
	EndLine bool
	// RenderBlank draws the empty terminal bar at once rather than at the
	// first change.
	RenderBlank bool
}

// DefaultEvery is the time between two plain progress lines when a bar's
// writer is not a terminal and its Style does not say otherwise.
const DefaultEvery = 10 * time.Second

// minRateTime is how long a bar runs before it shows a rate or a time left.
const minRateTime = time.Second

// Bar shows the progress of one piece of work; a nil *Bar shows nothing. Its
// methods may be called from several goroutines.
type Bar struct {
	mu        sync.Mutex
	w         io.Writer
	st        Style
	term      bool             // w is a terminal: redraw in place
	now       func() time.Time // the clock (tests replace it)
	label     string
	detail    string
	n, total  int64
	base      int64     // units done before the bar started (StartAt), not part of the rate
	start     time.Time // when the bar started
	last      time.Time // the last terminal frame or plain line
	drawn     bool      // a terminal frame is on the line
	width     int       // the columns of the last terminal frame
	done      bool      // finished or exited: nothing more is shown
	lastLine  string    // the last plain line written
	lastFrame string    // the last terminal frame drawn
}

// New starts a bar on w counting to total (-1: unknown) and labelled
// label. It returns nil, a bar that shows nothing, when w is nil. The bar
// redraws itself in place when w is a terminal (an *os.File on a character
// device) and writes plain periodic lines otherwise.
func New(w io.Writer, total int64, label string, st Style) *Bar {
	if w == nil {
		return nil
	}
	return newBar(w, total, label, st, IsTerminal(w), time.Now)
}

// newBar is New with the choice of mode and the clock given.
func newBar(w io.Writer, total int64, label string, st Style, term bool, now func() time.Time) *Bar {
	if st.Width <= 0 {
		st.Width = 40
	}
	if st.Every <= 0 {
		st.Every = DefaultEvery
	}
	b := &Bar{w: w, st: st, term: term, now: now, label: label, total: total}
	b.start = now()
	b.last = b.start
	if term && st.RenderBlank {
		b.drawFrame(b.start)
	}
	return b
}

// IsTerminal reports whether w is a terminal: an *os.File on a character
// device.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Set moves the bar to n.
func (b *Bar) Set(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n = n
	b.show()
}

// Add moves the bar on by n; it suits a callback reporting n more done.
func (b *Bar) Add(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n += int64(n)
	b.show()
}

// Update moves the bar to n and sets its details together, so that what is
// shown always pairs a count with the details of that same count.
func (b *Bar) Update(n int64, detail string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n, b.detail = n, detail
	b.show()
}

// StartAt sets the count to n units done before the bar started (a resumed
// run): they count towards the total but not towards the rate.
func (b *Bar) StartAt(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n, b.base = n, n
	if b.term && b.drawn {
		b.drawFrame(b.now())
	}
}

// Describe changes the bar's details, shown after its counts. It shows
// nothing by itself: the next change of the count does.
func (b *Bar) Describe(detail string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.detail = detail
}

// SetTotal changes the count the bar goes to (a run that stopped early).
func (b *Bar) SetTotal(total int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total = total
}

// Finish fills the bar (when its total is known) and shows it a last time:
// a last frame, erased with ClearOnFinish, or a last plain line.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total >= 0 {
		b.n = b.total
	}
	b.end()
}

// Exit stops the bar where it is and shows it a last time without filling
// it.
func (b *Bar) Exit() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.end()
}

// show shows a change of the count when the bar's throttle allows it; the
// caller holds b.mu.
func (b *Bar) show() {
	if b.done {
		return
	}
	now := b.now()
	if !b.term {
		if now.Sub(b.last) >= b.st.Every {
			b.last = now
			b.writeLine(now)
		}
		return
	}
	if b.drawn && now.Sub(b.last) < b.st.Throttle && (b.total < 0 || b.n < b.total) {
		return
	}
	b.drawFrame(now)
}

// end shows the bar a last time; the caller holds b.mu.
func (b *Bar) end() {
	if b.done {
		return
	}
	b.done = true
	now := b.now()
	if !b.term {
		b.writeLine(now)
		return
	}
	if b.st.ClearOnFinish {
		if b.drawn {
			fmt.Fprint(b.w, "\r"+strings.Repeat(" ", b.width)+"\r")
		}
		return
	}
	if f := b.frame(now); !b.drawn || f != b.lastFrame {
		b.drawFrame(now)
	}
	if b.st.EndLine {
		fmt.Fprintln(b.w)
	}
}

// writeLine writes a plain line, unless it would repeat the last one (a
// bar finished just after a periodic line); the caller holds b.mu.
func (b *Bar) writeLine(now time.Time) {
	l := b.line(now)
	if l != b.lastLine {
		fmt.Fprintln(b.w, l)
		b.lastLine = l
	}
}

// drawFrame redraws the terminal line; the caller holds b.mu.
func (b *Bar) drawFrame(now time.Time) {
	f := b.frame(now)
	w := utf8.RuneCountInString(f)
	pad := ""
	if w < b.width {
		pad = strings.Repeat(" ", b.width-w) // rub out the end of a longer frame
	}
	fmt.Fprint(b.w, "\r"+f+pad)
	b.width, b.drawn, b.last, b.lastFrame = w, true, now, f
}

// frame is the text of a terminal bar:
// "label  30% |██████              | (120/400 games, 12.3 games/s) [10s, ETA 23s] details".
func (b *Bar) frame(now time.Time) string {
	var s strings.Builder
	if b.label != "" {
		s.WriteString(b.label + " ")
	}
	if b.total > 0 {
		filled := int(min(max(b.n, 0), b.total) * int64(b.st.Width) / b.total)
		fmt.Fprintf(&s, "%3d%% |%s%s| ", b.percent(), strings.Repeat("█", filled), strings.Repeat(" ", b.st.Width-filled))
	}
	s.WriteString("(" + b.count())
	rate, ok := b.rate(now)
	if ok && b.st.Unit != "" {
		s.WriteString(", " + formatRate(rate) + " " + b.st.Unit + "/s")
	}
	s.WriteString(")")
	var times []string
	if b.st.Elapsed {
		times = append(times, now.Sub(b.start).Round(time.Second).String())
	}
	if eta, ok := b.eta(rate, ok); ok {
		times = append(times, "ETA "+eta)
	}
	if len(times) > 0 {
		s.WriteString(" [" + strings.Join(times, ", ") + "]")
	}
	if b.detail != "" {
		s.WriteString(" " + b.detail)
	}
	return s.String()
}

// line is the text of a plain progress line:
// "label: 120/400 games (30%), 12.3 games/s, 10s elapsed, ETA 23s, details".
func (b *Bar) line(now time.Time) string {
	var s strings.Builder
	if b.label != "" {
		s.WriteString(b.label + ": ")
	}
	s.WriteString(b.count())
	if b.total > 0 {
		fmt.Fprintf(&s, " (%d%%)", b.percent())
	}
	rate, ok := b.rate(now)
	if ok && b.st.Unit != "" {
		s.WriteString(", " + formatRate(rate) + " " + b.st.Unit + "/s")
	}
	if b.st.Elapsed {
		s.WriteString(", " + now.Sub(b.start).Round(time.Second).String() + " elapsed")
	}
	if eta, ok := b.eta(rate, ok); ok {
		s.WriteString(", ETA " + eta)
	}
	if b.detail != "" {
		s.WriteString(", " + b.detail)
	}
	return s.String()
}

// count is "n/total unit", or "n unit" when the total is unknown.
func (b *Bar) count() string {
	c := fmt.Sprint(b.n)
	if b.total >= 0 {
		c += fmt.Sprintf("/%d", b.total)
	}
	if b.st.Unit != "" {
		c += " " + b.st.Unit
	}
	return c
}

func (b *Bar) percent() int64 {
	if b.total <= 0 {
		return 0
	}
	return min(max(b.n, 0), b.total) * 100 / b.total
}

// rate returns the units done per second since the bar started, not
// counting those done before it (StartAt); false before the bar has run
// for minRateTime or done anything, when a rate would mean little.
func (b *Bar) rate(now time.Time) (float64, bool) {
	t := now.Sub(b.start)
	if t < minRateTime || b.n <= b.base {
		return 0, false
	}
	return float64(b.n-b.base) / t.Seconds(), true
}

// eta returns the predicted time left at rate, when the bar predicts it and
// it can be known.
func (b *Bar) eta(rate float64, ok bool) (string, bool) {
	if b.st.NoPredict || !ok || rate <= 0 || b.total < 0 || b.n >= b.total || b.done {
		return "", false
	}
	left := float64(max(b.total-b.n, 0)) / rate
	return (time.Duration(left * float64(time.Second))).Round(time.Second).String(), true
}

// formatRate writes a rate with three significant figures or as a whole
// number.
func formatRate(r float64) string {
	switch {
	case r < 10:
		return fmt.Sprintf("%.2f", r)
	case r < 100:
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.0f", r)
}
