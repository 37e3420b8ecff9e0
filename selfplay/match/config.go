package match

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"chessforge/selfplay/match/stats"
	"chessforge/selfplay/match/uciclient"
)

// TCKind says how a search is limited.
type TCKind int

// The kinds of time control.
const (
	TCNodes    TCKind = iota // a node count per search
	TCDepth                  // a depth per search
	TCMovetime               // a fixed time per move
	TCClock                  // a clock with a base time and an increment
)

// TimeControl limits each search: a node count, a depth, a fixed time per
// move, or a clock with a base time and an increment per move. As a setting
// (-tc, and "tc" in a config file) it is written as parseTC reads it:
// nodes=N, depth=N, movetime=MS or clock=SECONDS+INC. The zero TimeControl
// is none, written "": an engine without a time control of its own (-a-tc,
// -b-tc) plays the match's.
type TimeControl struct {
	Kind     TCKind
	N        int64         // nodes or depth
	Movetime time.Duration // fixed time per move
	Base     time.Duration // clock: time for the game
	Inc      time.Duration // clock: added after each move
}

// parseTC reads nodes=N, depth=N, movetime=MS or clock=SECONDS+INC.
func parseTC(s string) (TimeControl, error) {
	key, val, ok := strings.Cut(s, "=")
	if !ok {
		return TimeControl{}, fmt.Errorf("time control %q: want nodes=N, depth=N, movetime=MS or clock=SECONDS+INC", s)
	}
	switch key {
	case "nodes", "depth":
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n <= 0 {
			return TimeControl{}, fmt.Errorf("time control %q: %s must be a positive integer", s, key)
		}
		if key == "depth" {
			return TimeControl{Kind: TCDepth, N: n}, nil
		}
		return TimeControl{Kind: TCNodes, N: n}, nil
	case "movetime":
		ms, err := strconv.ParseInt(val, 10, 64)
		if err != nil || ms <= 0 {
			return TimeControl{}, fmt.Errorf("time control %q: movetime must be a positive number of milliseconds", s)
		}
		return TimeControl{Kind: TCMovetime, Movetime: time.Duration(ms) * time.Millisecond}, nil
	case "clock":
		baseS, incS, _ := strings.Cut(val, "+")
		base, err := parseSeconds(baseS)
		if err != nil || base <= 0 {
			return TimeControl{}, fmt.Errorf("time control %q: clock base must be a positive number of seconds", s)
		}
		var inc time.Duration
		if incS != "" {
			if inc, err = parseSeconds(incS); err != nil || inc < 0 {
				return TimeControl{}, fmt.Errorf("time control %q: clock increment must be a non-negative number of seconds", s)
			}
		}
		return TimeControl{Kind: TCClock, Base: base, Inc: inc}, nil
	}
	return TimeControl{}, fmt.Errorf("time control %q: unknown kind %q (want nodes, depth, movetime or clock)", s, key)
}

// Validate reports a time control that limits nothing: none at all, a
// count or a time that is not positive, an unknown kind. parseTC makes only
// valid ones; this checks those set in code.
func (tc TimeControl) Validate() error {
	switch {
	case tc == (TimeControl{}):
		return errors.New("no time control (want nodes=N, depth=N, movetime=MS or clock=SECONDS+INC)")
	case (tc.Kind == TCNodes || tc.Kind == TCDepth) && tc.N <= 0,
		tc.Kind == TCMovetime && tc.Movetime <= 0,
		tc.Kind == TCClock && (tc.Base <= 0 || tc.Inc < 0),
		tc.Kind < TCNodes || tc.Kind > TCClock:
		return fmt.Errorf("time control %+v limits nothing", tc)
	}
	return nil
}

func parseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(f * float64(time.Second)), nil
}

// Set reads a time control as the -tc flag takes it; "" is none.
func (tc *TimeControl) Set(s string) error {
	if s == "" {
		*tc = TimeControl{}
		return nil
	}
	v, err := parseTC(s)
	if err != nil {
		return err
	}
	*tc = v
	return nil
}

// UnmarshalText reads a time control from a config file, as Set does.
func (tc *TimeControl) UnmarshalText(text []byte) error { return tc.Set(string(text)) }

// MarshalText writes the time control as String does.
func (tc TimeControl) MarshalText() ([]byte, error) { return []byte(tc.String()), nil }

// String writes the time control as the -tc flag takes it; "" for none.
func (tc TimeControl) String() string {
	if tc == (TimeControl{}) {
		return ""
	}
	switch tc.Kind {
	case TCNodes:
		return fmt.Sprintf("nodes=%d", tc.N)
	case TCDepth:
		return fmt.Sprintf("depth=%d", tc.N)
	case TCMovetime:
		return fmt.Sprintf("movetime=%d", tc.Movetime.Milliseconds())
	}
	return fmt.Sprintf("clock=%g+%g", tc.Base.Seconds(), tc.Inc.Seconds())
}

// pgnTag returns the PGN TimeControl tag value: "base+inc" in seconds for a
// clock, "-" otherwise (the PGN standard has no notation for node or depth
// limits; the Event tag names them).
func (tc TimeControl) pgnTag() string {
	if tc.Kind == TCClock {
		return fmt.Sprintf("%g+%g", tc.Base.Seconds(), tc.Inc.Seconds())
	}
	return "-"
}

// SPRTSetting is the -sprt setting: a sequential test written
// elo0=E0,elo1=E1,alpha=A,beta=B, the keys omitted taking the defaults
// elo0=0, elo1=5, alpha=0.05, beta=0.05; or none, the zero value, written "".
type SPRTSetting stats.SPRT

// Set reads the test as the -sprt flag takes it; "" is none.
func (t *SPRTSetting) Set(s string) error {
	if s == "" {
		*t = SPRTSetting{}
		return nil
	}
	v, err := parseSPRT(s)
	if err != nil {
		return err
	}
	*t = SPRTSetting(v)
	return nil
}

// String writes the test as Set reads it; "" for none.
func (t SPRTSetting) String() string {
	if t == (SPRTSetting{}) {
		return ""
	}
	return fmt.Sprintf("elo0=%g,elo1=%g,alpha=%g,beta=%g", t.Elo0, t.Elo1, t.Alpha, t.Beta)
}

// UnmarshalText reads the test from a config file, as Set does.
func (t *SPRTSetting) UnmarshalText(text []byte) error { return t.Set(string(text)) }

// MarshalText writes the test as String does.
func (t SPRTSetting) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// parseSPRT reads elo0=E0,elo1=E1,alpha=A,beta=B; omitted keys take the
// defaults elo0=0, elo1=5, alpha=0.05, beta=0.05.
func parseSPRT(s string) (stats.SPRT, error) {
	t := stats.SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return t, fmt.Errorf("%q is not key=value", kv)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return t, fmt.Errorf("%s: %v", k, err)
		}
		switch k {
		case "elo0":
			t.Elo0 = f
		case "elo1":
			t.Elo1 = f
		case "alpha":
			t.Alpha = f
		case "beta":
			t.Beta = f
		default:
			return t, fmt.Errorf("unknown key %q (want elo0, elo1, alpha, beta)", k)
		}
	}
	if err := t.Validate(); err != nil {
		return t, err
	}
	return t, nil
}

// ResignRule adjudicates a loss when, for Moves moves of each side in a row,
// both engines agree that one side is behind by at least Score centipawns.
// As a setting (-resign) it is written SCORE,MOVES; the zero ResignRule is
// none, written "".
type ResignRule struct {
	Score int
	Moves int
}

// Set reads the rule as the -resign flag takes it; "" is none.
func (r *ResignRule) Set(s string) error {
	if s == "" {
		*r = ResignRule{}
		return nil
	}
	v, err := parseResign(s)
	if err != nil {
		return err
	}
	*r = *v
	return nil
}

// String writes the rule as Set reads it; "" for none.
func (r ResignRule) String() string {
	if r == (ResignRule{}) {
		return ""
	}
	return fmt.Sprintf("%d,%d", r.Score, r.Moves)
}

// UnmarshalText reads the rule from a config file, as Set does.
func (r *ResignRule) UnmarshalText(text []byte) error { return r.Set(string(text)) }

// MarshalText writes the rule as String does.
func (r ResignRule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// DrawRule adjudicates a draw when, from ply MinPly on, both engines report a
// score within ±Score centipawns for Moves moves of each side in a row. As
// a setting (-draw) it is written SCORE,MOVES,MINPLY; the zero DrawRule is
// none, written "".
type DrawRule struct {
	Score  int
	Moves  int
	MinPly int
}

// Set reads the rule as the -draw flag takes it; "" is none.
func (d *DrawRule) Set(s string) error {
	if s == "" {
		*d = DrawRule{}
		return nil
	}
	v, err := parseDraw(s)
	if err != nil {
		return err
	}
	*d = *v
	return nil
}

// String writes the rule as Set reads it; "" for none.
func (d DrawRule) String() string {
	if d == (DrawRule{}) {
		return ""
	}
	return fmt.Sprintf("%d,%d,%d", d.Score, d.Moves, d.MinPly)
}

// UnmarshalText reads the rule from a config file, as Set does.
func (d *DrawRule) UnmarshalText(text []byte) error { return d.Set(string(text)) }

// MarshalText writes the rule as String does.
func (d DrawRule) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// parseInts reads n comma-separated non-negative integers.
func parseInts(s string, n int) ([]int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d comma-separated integers", n)
	}
	out := make([]int, n)
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%q is not a non-negative integer", p)
		}
		out[i] = v
	}
	return out, nil
}

func parseResign(s string) (*ResignRule, error) {
	v, err := parseInts(s, 2)
	if err != nil {
		return nil, err
	}
	if v[0] == 0 || v[1] == 0 {
		return nil, errors.New("score and moves must be positive")
	}
	return &ResignRule{Score: v[0], Moves: v[1]}, nil
}

func parseDraw(s string) (*DrawRule, error) {
	v, err := parseInts(s, 3)
	if err != nil {
		return nil, err
	}
	if v[1] == 0 {
		return nil, errors.New("moves must be positive")
	}
	return &DrawRule{Score: v[0], Moves: v[1], MinPly: v[2]}, nil
}

// OptionList is a list of UCI options: the repeatable -a-opt and -b-opt
// flags, each Name=Value, and in a config file a JSON list of such strings
// (see uciclient.OptionList).
type OptionList = uciclient.OptionList

// SplitCommand splits an engine command line into words (see
// uciclient.SplitCommand).
func SplitCommand(s string) ([]string, error) { return uciclient.SplitCommand(s) }
