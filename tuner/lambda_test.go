package tuner

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLambdaParsesAutoOrANumberInRange: the flag and the config file take
// "auto" or a number in [0, 1], and it prints back as given.
func TestLambdaParsesAutoOrANumberInRange(t *testing.T) {
	for in, want := range map[string]Lambda{"auto": LambdaAuto, "0": Fixed(0), "1": Fixed(1), "0.25": Fixed(0.25)} {
		var l Lambda
		if err := l.Set(in); err != nil || l != want || l.String() != in {
			t.Errorf("Set(%q): %+v, %v; String %q", in, l, err, l.String())
		}
		var j Lambda
		text := in
		if in == "auto" {
			text = `"auto"`
		}
		if err := json.Unmarshal([]byte(text), &j); err != nil || j != want {
			t.Errorf("JSON %s: %+v, %v", text, j, err)
		}
		if b, err := json.Marshal(want); err != nil || string(b) != text {
			t.Errorf("JSON of %+v: %s, %v; want %s", want, b, err, text)
		}
	}
	for _, in := range []string{"-0.1", "1.5", "NaN", "x", ""} {
		var l Lambda
		if err := l.Set(in); err == nil {
			t.Errorf("Set(%q) accepted: %+v", in, l)
		}
	}
	for _, in := range []string{"2", `"x"`, "true"} {
		var l Lambda
		if err := json.Unmarshal([]byte(in), &l); err == nil {
			t.Errorf("JSON %s accepted: %+v", in, l)
		}
	}
	if err := new(Lambda).Set("1.5"); err == nil || !strings.Contains(err.Error(), "not in [0, 1]") {
		t.Errorf("out of range: %v", err)
	}
}

// TestLambdaResolve: auto is 0 when every position has a score and 1
// otherwise; a fixed value stays.
func TestLambdaResolve(t *testing.T) {
	for _, c := range []struct {
		l             Lambda
		scored, n     int
		want          float64
		wantWhySubstr string
	}{
		{LambdaAuto, 10, 10, LambdaScores, "every position carries a search score"},
		{LambdaAuto, 0, 10, LambdaResults, "game results only"},
		{LambdaAuto, 7, 10, LambdaResults, "3 of 10 positions carry no search score"},
		{Fixed(0.3), 10, 10, 0.3, "-lambda 0.3"},
		{Fixed(0), 0, 10, 0, "-lambda 0"},
	} {
		got, why := c.l.Resolve(c.scored, c.n)
		if got != c.want || !strings.Contains(why, c.wantWhySubstr) {
			t.Errorf("%v.Resolve(%d, %d) = %g, %q; want %g, %q", c.l, c.scored, c.n, got, why, c.want, c.wantWhySubstr)
		}
	}
}
