package selfplay

import (
	"fmt"
	"io"
	"time"

	"chessforge/configs/progress"
)

// gameBar shows a bar of the shard's games with positions, games/s, W/D/L
// and the time left.
type gameBar struct {
	bar  *progress.Bar // nil: no bar
	last time.Time
}

func newProgress(w io.Writer, s *Summary) *gameBar {
	bar := progress.New(w, int64(s.Total), "games", progress.Style{
		Width: 20, Throttle: 200 * time.Millisecond, Elapsed: true, RenderBlank: true, EndLine: true,
	})
	bar.Set(int64(s.Done))
	return &gameBar{bar: bar}
}

// update shows the counts after a game is written.
func (p *gameBar) update(s *Summary, elapsed time.Duration) {
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
	p.bar.Set(int64(s.Done))
}

// finish ends the bar's line so that what follows starts on a new one.
func (p *gameBar) finish(s *Summary) {
	if p.bar == nil {
		return
	}
	p.bar.Describe(fmt.Sprintf("games (%d positions, +%d =%d -%d)", s.Positions, s.Wins, s.Draws, s.Losses))
	if s.Done == s.Total {
		p.bar.Finish()
	} else {
		p.bar.Exit()
	}
}
