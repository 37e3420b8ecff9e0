// Package progress draws the progress bars of the long-running commands
// (self-play, tuning, dataset tools, matches) on a terminal, usually
// standard error. Every method of a nil *Bar does nothing, so a quiet run
// passes a nil writer to New and calls the same methods.
package progress

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Style is how a bar looks. Every bar shows its count; the zero Style is
// the progressbar library's defaults otherwise (40 columns, redrawn on every
// change, the time left predicted, elapsed time only without a total).
type Style struct {
	Width     int           // columns of the bar (0: the library's 40)
	Throttle  time.Duration // least time between two redraws (0: none)
	Elapsed   bool          // show the elapsed time
	NoPredict bool          // hide the predicted time left
	Unit      string        // when set, show the rate in these units per second ("rows")
	// ClearOnFinish erases the bar when it is finished, so that the next
	// output takes its place.
	ClearOnFinish bool
	// EndLine ends the bar's line when it is finished or exited, so that
	// the next output starts on a new line.
	EndLine bool
	// RenderBlank draws the empty bar at once rather than at the first
	// change.
	RenderBlank bool
}

// Bar is a progress bar; a nil *Bar draws nothing.
type Bar struct {
	pb      *progressbar.ProgressBar
	w       io.Writer
	endLine bool
}

// New starts a bar on w counting to total (-1: unknown, a spinner) and
// labelled description. It returns nil, a bar that draws nothing, when w is
// nil.
func New(w io.Writer, total int64, description string, st Style) *Bar {
	if w == nil {
		return nil
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowCount(),
	}
	if description != "" {
		opts = append(opts, progressbar.OptionSetDescription(description))
	}
	if st.Unit != "" {
		opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString(st.Unit))
	}
	opts = append(opts, progressbar.OptionSetPredictTime(!st.NoPredict), progressbar.OptionSetElapsedTime(st.Elapsed))
	if st.Width > 0 {
		opts = append(opts, progressbar.OptionSetWidth(st.Width))
	}
	if st.Throttle > 0 {
		opts = append(opts, progressbar.OptionThrottle(st.Throttle))
	}
	if st.ClearOnFinish {
		opts = append(opts, progressbar.OptionClearOnFinish())
	}
	if st.RenderBlank {
		opts = append(opts, progressbar.OptionSetRenderBlankState(true))
	}
	return &Bar{pb: progressbar.NewOptions64(total, opts...), w: w, endLine: st.EndLine}
}

// Set moves the bar to n.
func (b *Bar) Set(n int64) {
	if b != nil {
		_ = b.pb.Set64(n)
	}
}

// Add moves the bar on by n; it suits a callback reporting n more done.
func (b *Bar) Add(n int) {
	if b != nil {
		_ = b.pb.Add(n)
	}
}

// Describe changes the bar's label.
func (b *Bar) Describe(description string) {
	if b != nil {
		b.pb.Describe(description)
	}
}

// SetTotal changes the count the bar goes to (a run that stopped early).
func (b *Bar) SetTotal(total int64) {
	if b != nil {
		b.pb.ChangeMax64(total)
	}
}

// Finish fills the bar and draws it a last time (or erases it, with
// ClearOnFinish).
func (b *Bar) Finish() {
	if b != nil {
		_ = b.pb.Finish()
		b.endLineIfAsked()
	}
}

// Exit stops the bar where it is, drawing it a last time without filling
// it.
func (b *Bar) Exit() {
	if b != nil {
		_ = b.pb.Exit()
		b.endLineIfAsked()
	}
}

func (b *Bar) endLineIfAsked() {
	if b.endLine {
		fmt.Fprintln(b.w)
	}
}
