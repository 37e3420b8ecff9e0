package match

import (
	"slices"
	"testing"
	"time"

	"chessforge/selfplay/match/uciclient"
)

func TestParseTC(t *testing.T) {
	tests := []struct {
		in   string
		want TimeControl
		ok   bool
	}{
		{"nodes=5000", TimeControl{Kind: TCNodes, N: 5000}, true},
		{"depth=3", TimeControl{Kind: TCDepth, N: 3}, true},
		{"movetime=250", TimeControl{Kind: TCMovetime, Movetime: 250 * time.Millisecond}, true},
		{"clock=10+0.1", TimeControl{Kind: TCClock, Base: 10 * time.Second, Inc: 100 * time.Millisecond}, true},
		{"clock=60", TimeControl{Kind: TCClock, Base: time.Minute}, true},
		{"nodes=-1", TimeControl{}, false},
		{"clock=0+1", TimeControl{}, false},
		{"clock=10+x", TimeControl{}, false},
		{"hours=1", TimeControl{}, false},
		{"5000", TimeControl{}, false},
	}
	for _, tc := range tests {
		got, err := parseTC(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseTC(%q) = %+v, %v; want %+v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"bin/engine", []string{"bin/engine"}},
		{"  /usr/games/stockfish   bench ", []string{"/usr/games/stockfish", "bench"}},
		{`engine -weights 'my file.bin'`, []string{"engine", "-weights", "my file.bin"}},
		{`engine "a \"b\" c" d\ e`, []string{"engine", `a "b" c`, "d e"}},
		{`x ''`, []string{"x", ""}},
	}
	for _, tc := range tests {
		got, err := SplitCommand(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", `a "b`, "a 'b"} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q): want an error", bad)
		}
	}
}

func TestParseSPRTDefaultsAndErrors(t *testing.T) {
	s, err := parseSPRT("elo1=10")
	if err != nil || s.Elo0 != 0 || s.Elo1 != 10 || s.Alpha != 0.05 || s.Beta != 0.05 {
		t.Errorf("parseSPRT(elo1=10) = %+v, %v", s, err)
	}
	for _, bad := range []string{"elo0", "gamma=1", "alpha=2", "elo0=3,elo1=3"} {
		if _, err := parseSPRT(bad); err == nil {
			t.Errorf("parseSPRT(%q): want an error", bad)
		}
	}
}

func TestParseOptionAndAdjudication(t *testing.T) {
	o, err := uciclient.ParseOption("Skill Level=3")
	if err != nil || o.Name != "Skill Level" || o.Value != "3" {
		t.Errorf("ParseOption = %+v, %v", o, err)
	}
	if _, err := uciclient.ParseOption("=3"); err == nil {
		t.Error("uciclient.ParseOption(=3): want an error")
	}
	if r, err := parseResign("600,4"); err != nil || *r != (ResignRule{600, 4}) {
		t.Errorf("parseResign = %+v, %v", r, err)
	}
	if d, err := parseDraw("10,8,80"); err != nil || *d != (DrawRule{10, 8, 80}) {
		t.Errorf("parseDraw = %+v, %v", d, err)
	}
	for _, bad := range []string{"0,4", "600", "a,b", "-1,3"} {
		if _, err := parseResign(bad); err == nil {
			t.Errorf("parseResign(%q): want an error", bad)
		}
	}
}
