package selfplay

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress shows a bar of the shard's games with positions, games/s, W/D/L
// and the time left.
type progress struct {
	bar  *progressbar.ProgressBar
	w    io.Writer
	last time.Time
}

func newProgress(w io.Writer, s *Summary) *progress {
	if w == nil {
		return &progress{}
	}
	bar := progressbar.NewOptions(s.Total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("games"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetRenderBlankState(true),
	)
	bar.Set(s.Done)
	return &progress{bar: bar, w: w}
}

// update shows the counts after a game is written.
func (p *progress) update(s *Summary, elapsed time.Duration) {
	if p.bar == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 200*time.Millisecond || s.Done == s.Total {
		p.last = now
		rate := 0.0
		if secs := elapsed.Seconds(); secs > 0 {
			rate = float64(s.Games) / secs
		}
		p.bar.Describe(fmt.Sprintf("games (%d positions, %.2f games/s, +%d =%d -%d)", s.Positions, rate, s.Wins, s.Draws, s.Losses))
	}
	p.bar.Set(s.Done)
}

// finish ends the bar's line so that what follows starts on a new one.
func (p *progress) finish(s *Summary) {
	if p.bar == nil {
		return
	}
	p.bar.Describe(fmt.Sprintf("games (%d positions, +%d =%d -%d)", s.Positions, s.Wins, s.Draws, s.Losses))
	if s.Done == s.Total {
		p.bar.Finish()
	} else {
		p.bar.Exit()
	}
	fmt.Fprintln(p.w)
}
