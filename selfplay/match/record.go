package match

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"chessforge/configs"
	"chessforge/internal/record"
	"chessforge/selfplay/match/stats"
	"chessforge/selfplay/match/uciclient"
)

// identifyTimeout bounds the conversation in which Record asks an engine
// for its id name and network.
const identifyTimeout = 10 * time.Second

// checkRecord checks, before a match is played, what its record will need:
// a what of one line and at most 120 characters, and a -record file that
// reads (or does not exist yet), so that a long match does not end in a
// record that cannot be written.
func (s *Settings) checkRecord() error {
	if err := record.CheckWhat(s.What); err != nil {
		return configs.Usagef("-what %q: %v", s.What, err)
	}
	if s.Record == "" {
		return nil
	}
	if _, err := record.Read(s.Record); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("-record: %w", err)
	}
	return nil
}

// Record returns the match record (docs/records.md) of a match that the
// settings s described and that ended, complete, stopped by its SPRT or
// interrupted, with the result r; what says what it measured ("" for
// "A vs B at TC"). bin/match -record appends it with record.Append, and a
// Go caller that plays a match through Play (cmd/loop) does the same:
//
//	r, err := match.Play(ctx, s, stderr)
//	...
//	rec, err := r.Record(s, "capture futility at 4+0.04")
//	...
//	err = record.Append("docs/history/engine.jsonl", rec)
//
// Its date and id are made now, its commit is this binary's build
// (record.Build). Each chess engine is started once more, briefly, to learn
// its id name (the build) and the network it evaluates with, which
// bin/engine names in an info string when its evaluation options are set;
// an engine that does not say leaves them out. After a perfect or a zero
// score, whose Elo is infinite, elo is the finite end of its 95% interval,
// elo_bound says which end, and a note says so. A match that finished no game has no record: the
// error says so.
func (r *Result) Record(s *Settings, what string) (record.Record, error) {
	games := r.Score.Games()
	if games == 0 {
		return record.Record{}, errors.New("no game finished: nothing to record")
	}
	tc := r.TC[0].String()
	if r.TC[1] != r.TC[0] {
		tc = "a:" + r.TC[0].String() + "/b:" + r.TC[1].String()
	}
	if what == "" {
		what = fmt.Sprintf("%s vs %s at %s", r.Names[0], r.Names[1], tc)
		what = record.ClipWhat(what)
	}
	now := time.Now().UTC().Truncate(time.Second)
	rec := record.Record{
		Kind:        record.KindMatch,
		ID:          record.NewID(now, what),
		Date:        now.Format(time.RFC3339),
		What:        what,
		Commit:      record.Build(),
		TC:          tc,
		Openings:    s.openingsName(),
		Seed:        ptr(s.Seed),
		Games:       games,
		WDL:         []int{r.Score.W, r.Score.D, r.Score.L},
		Ended:       "complete",
		WallS:       ptr(math.Round(r.Elapsed.Seconds()*10) / 10),
		Concurrency: r.Concurrency,
	}
	if s.Game == Dama {
		rec.Game = Dama
	}
	if p := r.Pairs; p.Pairs() == games/2 {
		rec.Penta = p[:]
	}
	est := r.Estimate()
	switch {
	case math.IsInf(est.Elo, 1):
		rec.Elo, rec.EloBound = ptr(record.Round(est.Lo, 1)), "above"
		rec.Note = fmt.Sprintf("A scored every point: its Elo is infinite, above %.1f with 95%% confidence (elo).", est.Lo)
	case math.IsInf(est.Elo, -1):
		rec.Elo, rec.EloBound = ptr(record.Round(est.Hi, 1)), "below"
		rec.Note = fmt.Sprintf("A scored no point: its Elo is minus infinity, below %.1f with 95%% confidence (elo).", est.Hi)
	default:
		rec.Elo = ptr(record.Round(est.Elo, 1))
		if m := est.Margin(); !math.IsInf(m, 0) && !math.IsNaN(m) {
			rec.EloCI = ptr(record.Round(m, 1))
		}
	}
	if t := r.SPRT; t != nil {
		lo, hi := t.Bounds()
		rec.SPRT = &record.SPRT{Elo0: t.Elo0, Elo1: t.Elo1, Alpha: t.Alpha, Beta: t.Beta,
			LLR: record.Round(r.LLR, 3), Lower: record.Round(lo, 3), Upper: record.Round(hi, 3)}
		rec.Verdict = "undecided"
		switch r.Decision {
		case stats.AcceptH1:
			rec.Verdict = "H1"
		case stats.AcceptH0:
			rec.Verdict = "H0"
		}
	}
	switch {
	case r.Interrupted:
		rec.Ended = "interrupted"
	case r.Stopped:
		rec.Ended = "sprt"
	}
	sides := [2]struct {
		command string
		options OptionList
	}{{s.A, s.AOpt}, {s.B, s.BOpt}}
	for side, e := range sides {
		eng := record.Engine{Name: r.Names[side], Command: e.command}
		if len(e.options) > 0 {
			eng.Options = map[string]string{}
			for _, o := range e.options {
				eng.Options[o.Name] = o.Value
			}
		}
		if s.Game == Dama {
			if e.command == DefaultSettings().A {
				eng.Command += " -game " + Dama
			}
		} else if argv, err := SplitCommand(e.command); err == nil {
			eng.Build, eng.Network, eng.Eval = identify(argv, e.options, identifyTimeout)
		}
		rec.Engines = append(rec.Engines, eng)
	}
	if err := rec.Validate(); err != nil {
		return rec, fmt.Errorf("the match's record: %w", err)
	}
	return rec, nil
}

// openingsName names the openings of the settings as a record gives them:
// the book's path, random-plies=N, or the built-in lines; with
// book-plies=N when the lines are cut.
func (s *Settings) openingsName() string {
	name := "built-in"
	switch {
	case s.Openings != "":
		name = s.Openings
	case s.RandomPlies > 0:
		name = fmt.Sprintf("random-plies=%d", s.RandomPlies)
	case s.Game == Dama:
		name = "random-plies=2-4"
	}
	if s.BookPlies > 0 {
		name += fmt.Sprintf(" book-plies=%d", s.BookPlies)
	}
	return name
}

// networkInfo finds the network id in an info string: bin/engine says
// "info string NNUE evaluation using FILE, network ID, pawn table ..."
// when its evaluation options are set (engine/uci).
var networkInfo = regexp.MustCompile(`^info string .*\bnetwork ([0-9a-f]{16})\b`)

// identify starts the UCI engine argv, sets its options, and returns its
// id name (the build), the network it evaluates with and the evaluation's
// name, nnue or hce, where it says them ("" where not). An engine that
// declares a "Use NNUE" option that the options do not set has it set to
// its default, which changes nothing but makes bin/engine name its
// network; with Use NNUE false, or a network that did not load, the
// evaluation is hce. The engine is told to quit and, if it lingers, killed.
func identify(argv []string, opts []uciclient.Option, timeout time.Duration) (build, network, eval string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", "", ""
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", ""
	}
	if err := cmd.Start(); err != nil {
		return "", "", ""
	}
	defer func() {
		// Told to quit, the engine has a moment to do so before it is killed.
		stdin.Close()
		timer := time.AfterFunc(time.Second, cancel)
		cmd.Wait()
		timer.Stop()
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	// await reads lines up to the one that is want, handing each to fn.
	await := func(want string, fn func(string)) bool {
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					return false
				}
				if strings.TrimSpace(line) == want {
					return true
				}
				fn(line)
			case <-ctx.Done():
				return false
			}
		}
	}
	useNNUE := "" // the default of the engine's Use NNUE option, "" if none
	fmt.Fprintln(stdin, "uci")
	ok := await("uciok", func(line string) {
		if name, found := strings.CutPrefix(line, "id name "); found {
			build = strings.TrimSpace(name)
		}
		if rest, found := strings.CutPrefix(line, "option name Use NNUE type check default "); found {
			useNNUE = strings.TrimSpace(rest)
		}
	})
	if !ok {
		return build, "", ""
	}
	nnue := useNNUE
	for _, o := range opts {
		fmt.Fprintf(stdin, "setoption name %s value %s\n", o.Name, o.Value)
		if strings.EqualFold(o.Name, "Use NNUE") {
			nnue, useNNUE = o.Value, ""
		}
	}
	if useNNUE != "" {
		fmt.Fprintf(stdin, "setoption name Use NNUE value %s\n", useNNUE)
	}
	fmt.Fprintln(stdin, "isready")
	hce := false
	ok = await("readyok", func(line string) {
		if m := networkInfo.FindStringSubmatch(line); m != nil {
			network, hce = m[1], false
		} else if strings.HasPrefix(line, "info string ") && strings.Contains(line, "hand-crafted evaluation") {
			network, hce = "", true
		}
	})
	fmt.Fprintln(stdin, "quit")
	switch {
	case !ok:
		return build, "", ""
	case network != "":
		return build, network, "nnue"
	case hce || strings.EqualFold(nnue, "false"):
		return build, "", "hce"
	}
	return build, "", ""
}

func ptr[T any](v T) *T { return &v }
