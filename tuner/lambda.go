package tuner

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The λ that -lambda auto resolves to.
const (
	// LambdaScores is auto's λ when every position carries a search
	// score: fit to the scores alone. On a few thousand self-play games
	// this gained +28 ± 21 Elo (tuner/README.md), where fitting to the
	// results overfit: a game's result is one label shared by a hundred
	// positions, a score is each position's own.
	LambdaScores = 0
	// LambdaResults is auto's λ when some position has no score (text
	// files hold results only): fit to the game results.
	LambdaResults = 1
)

// Lambda is the setting -lambda: the share of the game result in each
// position's target, target = λ·result + (1−λ)·σ(K·score), either a number
// in [0, 1] or auto (the zero Lambda is a λ of 0, not auto). Auto resolves,
// once the positions are read, to LambdaScores when every one carries a
// search score and to LambdaResults otherwise. As a flag and in a config
// file it is "auto" or a number.
type Lambda struct {
	Auto  bool
	Value float64 // λ when not Auto
}

// LambdaAuto is the setting -lambda auto, the default.
var LambdaAuto = Lambda{Auto: true}

// Fixed returns the setting -lambda v.
func Fixed(v float64) Lambda { return Lambda{Value: v} }

// String returns "auto" or the number.
func (l Lambda) String() string {
	if l.Auto {
		return "auto"
	}
	return strconv.FormatFloat(l.Value, 'g', -1, 64)
}

// Set parses "auto" or a number in [0, 1].
func (l *Lambda) Set(s string) error {
	if s == "auto" {
		*l = LambdaAuto
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("neither auto nor a number in [0, 1]")
	}
	n := Fixed(v)
	if err := n.check(); err != nil {
		return err
	}
	*l = n
	return nil
}

// check says whether a fixed λ lies in [0, 1].
func (l Lambda) check() error {
	if !l.Auto && !(l.Value >= 0 && l.Value <= 1) {
		return errors.New("not in [0, 1]")
	}
	return nil
}

// UnmarshalJSON reads "auto" or a number in [0, 1].
func (l *Lambda) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		return l.Set(s)
	}
	var v float64
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("%s is neither \"auto\" nor a number in [0, 1]", data)
	}
	n := Fixed(v)
	if err := n.check(); err != nil {
		return err
	}
	*l = n
	return nil
}

// MarshalJSON writes "auto" or the number.
func (l Lambda) MarshalJSON() ([]byte, error) {
	if l.Auto {
		return json.Marshal("auto")
	}
	return json.Marshal(l.Value)
}

// Resolve returns the λ to fit with, and why: the fixed value, or auto's
// choice given how many of the n positions carry a search score.
func (l Lambda) Resolve(scored, n int) (float64, string) {
	switch {
	case !l.Auto:
		return l.Value, "-lambda " + l.String()
	case n > 0 && scored == n:
		return LambdaScores, "-lambda auto: every position carries a search score"
	case scored == 0:
		return LambdaResults, "-lambda auto: the positions carry game results only"
	default:
		return LambdaResults, fmt.Sprintf("-lambda auto: %d of %d positions carry no search score", n-scored, n)
	}
}
