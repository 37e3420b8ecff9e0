package selfplay

import (
	"fmt"
	"io"
	"time"

	"chessforge/configs/progress"
)

// gameBar shows the shard's games with their rate, the time left and, from
// the same update, the positions and W/D/L of the games counted: on a
// terminal a bar, elsewhere a plain line every ten seconds.
type gameBar struct {
	bar     *progress.Bar // nil: no bar
	earlier int           // games done by earlier runs (a resumed job)
}

// newProgress starts the bar of the run s sums up; every sets the time
// between two plain lines (0: the progress package's default).
func newProgress(w io.Writer, s *Summary, every time.Duration) *gameBar {
	bar := progress.New(w, int64(s.Total), "selfplay", progress.Style{
		Width: 20, Throttle: 200 * time.Millisecond, Every: every, Unit: "games",
		Elapsed: true, RenderBlank: true, EndLine: true,
	})
	bar.StartAt(int64(s.Done))
	return &gameBar{bar: bar, earlier: s.Done}
}

// update shows the counts after a game is written and counted in s.
func (p *gameBar) update(s *Summary) {
	if p.bar != nil {
		p.bar.Update(int64(s.Done), p.details(s))
	}
}

// details are the figures shown after the count: the positions and W/D/L of
// this run's games (which, with the games of earlier runs, make the count).
func (p *gameBar) details(s *Summary) string {
	d := fmt.Sprintf("%d positions, +%d =%d -%d", s.Positions, s.Wins, s.Draws, s.Losses)
	if p.earlier > 0 {
		d = fmt.Sprintf("%d games before this run; this run: %s", p.earlier, d)
	}
	return d
}

// finish shows the bar a last time and ends its line so that what follows
// starts on a new one.
func (p *gameBar) finish(s *Summary) {
	if p.bar == nil {
		return
	}
	p.bar.Update(int64(s.Done), p.details(s))
	if s.Done == s.Total {
		p.bar.Finish()
	} else {
		p.bar.Exit()
	}
}
