// Package record is the Go form of docs/records.md: the results history's
// records, one JSON object a line in docs/history/*.jsonl, with their
// validation, an appender that the tools call and the strict reader that
// cmd/history draws from.
package record

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The kinds of record (Record.Kind).
const (
	KindMatch   = "match"
	KindNetwork = "network"
	KindCycle   = "cycle"
	KindTune    = "tune"
	KindBench   = "bench"
)

// Record is one record of any kind: the fields every record has, then those
// of each kind (docs/records.md). Validate says which fields a kind takes;
// the optional ones are left out of the JSON when unset.
type Record struct {
	// Every record.
	Kind       string `json:"kind"`
	ID         string `json:"id"`
	Date       string `json:"date"`
	What       string `json:"what"`
	Commit     string `json:"commit,omitempty"`
	Source     string `json:"source,omitempty"`
	Note       string `json:"note,omitempty"`
	Supersedes string `json:"supersedes,omitempty"`

	// match.
	Engines     []Engine `json:"engines,omitempty"`
	TC          string   `json:"tc,omitempty"`
	Game        string   `json:"game,omitempty"`
	Openings    string   `json:"openings,omitempty"`
	Seed        *uint64  `json:"seed,omitempty"`
	Games       int      `json:"games,omitempty"`
	WDL         []int    `json:"wdl,omitempty"`
	Score       *float64 `json:"score,omitempty"`
	Penta       []int    `json:"penta,omitempty"`
	Elo         *float64 `json:"elo,omitempty"`
	EloCI       *float64 `json:"elo_ci,omitempty"`
	EloBound    string   `json:"elo_bound,omitempty"` // "above" or "below": elo is a bound, the estimate infinite
	SPRT        *SPRT    `json:"sprt,omitempty"`
	Ended       string   `json:"ended,omitempty"`
	WallS       *float64 `json:"wall_s,omitempty"`
	Concurrency int      `json:"concurrency,omitempty"`

	// match (H1, H0, undecided) and cycle (kept, reverted, ...).
	Verdict string `json:"verdict,omitempty"`
	// match (optional) and network (required).
	Kept *bool `json:"kept,omitempty"`

	// network; Network also names a cycle's network.
	Network   string   `json:"network,omitempty"`
	Parent    string   `json:"parent,omitempty"`
	Arch      string   `json:"arch,omitempty"`
	Data      string   `json:"data,omitempty"` // network and tune
	Positions int64    `json:"positions,omitempty"`
	Command   string   `json:"command,omitempty"` // network and bench
	Epochs    []Epoch  `json:"epochs,omitempty"`
	PawnScale *float64 `json:"pawn_scale,omitempty"`
	Gate      string   `json:"gate,omitempty"`
	Embedded  *bool    `json:"embedded,omitempty"`

	// cycle; Match also names a tune's match.
	Loop   string  `json:"loop,omitempty"`
	Cycle  *int    `json:"cycle,omitempty"`
	Stages []Stage `json:"stages,omitempty"`
	Match  string  `json:"match,omitempty"`

	// tune; Figures also holds a bench's figures.
	Tool       string             `json:"tool,omitempty"`
	Iterations int                `json:"iterations,omitempty"`
	Params     map[string]float64 `json:"params,omitempty"`
	Figures    map[string]float64 `json:"figures,omitempty"`

	// bench.
	Subject   string `json:"subject,omitempty"`
	Machine   string `json:"machine,omitempty"`
	Reference bool   `json:"reference,omitempty"` // the figure the README's status shows for its subject
}

// Engine is one side of a match record.
type Engine struct {
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Build   string            `json:"build,omitempty"`
	Network string            `json:"network,omitempty"`
	Eval    string            `json:"eval,omitempty"`
	Options map[string]string `json:"options,omitempty"`
}

// SPRT is a match's sequential test: its hypotheses, error rates, the
// log-likelihood ratio reached and the bounds it was held to.
type SPRT struct {
	Elo0  float64 `json:"elo0"`
	Elo1  float64 `json:"elo1"`
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
	LLR   float64 `json:"llr"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// Epoch is one epoch of a network's training.
type Epoch struct {
	Epoch     int      `json:"epoch"`
	TrainLoss *float64 `json:"train_loss"`
	ValLoss   *float64 `json:"val_loss,omitempty"`
}

// Stage is one stage of a cycle and the seconds it took.
type Stage struct {
	Name    string   `json:"name"`
	Seconds *float64 `json:"seconds"`
}

// FieldError is a problem with one field of a record; Read and ReadDir
// prefix it with the file and the line.
type FieldError struct {
	Field   string // the json name, "engines[1].name" for one inside
	Problem string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// common are the fields every record may have.
var common = []string{"kind", "id", "date", "what", "commit", "source", "note", "supersedes"}

// fields are the fields of each kind beside the common ones.
var fields = map[string][]string{
	KindMatch: {"engines", "tc", "game", "openings", "seed", "games", "wdl", "score", "penta",
		"elo", "elo_ci", "elo_bound", "sprt", "verdict", "ended", "kept", "wall_s", "concurrency"},
	KindNetwork: {"network", "parent", "arch", "data", "positions", "command", "epochs",
		"pawn_scale", "gate", "kept", "embedded"},
	KindCycle: {"loop", "cycle", "stages", "verdict", "match", "network"},
	KindTune:  {"tool", "data", "iterations", "params", "figures", "match"},
	KindBench: {"subject", "command", "figures", "machine", "reference"},
}

// belongs reports whether a record of kind may have the field.
func belongs(kind, field string) bool {
	return slices.Contains(common, field) || slices.Contains(fields[kind], field)
}

// setFields returns the json names of the fields of r that are set (not
// their zero value), in the struct's order.
func setFields(r *Record) []string {
	var names []string
	v := reflect.ValueOf(r).Elem()
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			continue
		}
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

var (
	idPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	hexPattern  = regexp.MustCompile(`^[0-9a-f]{7,40}$`)
	netPattern  = regexp.MustCompile(`^[0-9a-f]{16}$`)
	tcOne       = `(nodes=[1-9][0-9]*|depth=[1-9][0-9]*|movetime=[1-9][0-9]*|clock=[0-9]+(\.[0-9]+)?\+[0-9]+(\.[0-9]+)?)`
	tcPattern   = regexp.MustCompile(`^(` + tcOne + `|a:` + tcOne + `/b:` + tcOne + `)$`)
	maxIDLength = 80
)

// MaxWhat is the most characters a record's what holds.
const MaxWhat = 120

// CheckWhat reports whether what can be a record's what, as a tool's
// -what flag is checked before the work it describes: one line of at most
// MaxWhat characters ("" too, for a tool to fill in).
func CheckWhat(what string) error {
	if strings.ContainsAny(what, "\r\n") || utf8.RuneCountInString(what) > MaxWhat {
		return fmt.Errorf("want one line of at most %d characters", MaxWhat)
	}
	return nil
}

// ClipWhat returns what cut to MaxWhat characters, for a what a tool
// makes from its settings.
func ClipWhat(what string) string {
	if utf8.RuneCountInString(what) > MaxWhat {
		return string([]rune(what)[:MaxWhat])
	}
	return what
}

// Round rounds x to the given decimals for a record's figure; a negative
// zero becomes 0, so that a figure never reads -0.
func Round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p)/p + 0
}

// Validate checks the record against docs/records.md: its kind, the
// fields every record has, the fields its kind requires, each field's
// range, and that it has no field of another kind. The error is a
// *FieldError naming the first field at fault.
func (r *Record) Validate() error {
	if _, ok := fields[r.Kind]; !ok {
		return fieldErr("kind", "want match, network, cycle, tune or bench, got %q", r.Kind)
	}
	for _, f := range setFields(r) {
		if !belongs(r.Kind, f) {
			return fieldErr(f, "not a field of a %s record", r.Kind)
		}
	}
	if err := checkID("id", r.ID, true); err != nil {
		return err
	}
	if err := checkDate(r.Date); err != nil {
		return err
	}
	switch {
	case r.What == "":
		return fieldErr("what", "missing")
	case strings.ContainsAny(r.What, "\n\r"):
		return fieldErr("what", "want one line")
	case utf8.RuneCountInString(r.What) > MaxWhat:
		return fieldErr("what", "%d characters, want at most %d", utf8.RuneCountInString(r.What), MaxWhat)
	}
	if r.Commit != "" && !hexPattern.MatchString(r.Commit) {
		return fieldErr("commit", "want 7 to 40 lower-case hex digits, got %q", r.Commit)
	}
	if err := checkID("supersedes", r.Supersedes, false); err != nil {
		return err
	}
	if r.Supersedes != "" && r.Supersedes == r.ID {
		return fieldErr("supersedes", "names the record itself")
	}
	switch r.Kind {
	case KindMatch:
		return r.validateMatch()
	case KindNetwork:
		return r.validateNetwork()
	case KindCycle:
		return r.validateCycle()
	case KindTune:
		return r.validateTune()
	}
	return r.validateBench()
}

// checkID checks an id, or a field that names one.
func checkID(field, id string, required bool) error {
	switch {
	case id == "" && required:
		return fieldErr(field, "missing")
	case id == "":
		return nil
	case len(id) > maxIDLength:
		return fieldErr(field, "%d characters, want at most %d", len(id), maxIDLength)
	case !idPattern.MatchString(id):
		return fieldErr(field, "want [a-z0-9][a-z0-9._-]*, got %q", id)
	}
	return nil
}

func checkDate(d string) error {
	if d == "" {
		return fieldErr("date", "missing")
	}
	if _, err := time.Parse(time.RFC3339, d); err == nil {
		return nil
	}
	if _, err := time.Parse(time.DateOnly, d); err == nil {
		return nil
	}
	return fieldErr("date", "want RFC 3339 (2026-11-28T14:03:00Z) or a day (2026-11-28), got %q", d)
}

func checkOneOf(field, v string, required bool, allowed ...string) error {
	if v == "" && !required {
		return nil
	}
	if v == "" {
		return fieldErr(field, "missing")
	}
	if !slices.Contains(allowed, v) {
		last := len(allowed) - 1
		return fieldErr(field, "want %s, got %q", strings.Join(allowed[:last], ", ")+" or "+allowed[last], v)
	}
	return nil
}

func checkNetwork(field, id string, required bool) error {
	switch {
	case id == "" && required:
		return fieldErr(field, "missing")
	case id != "" && !netPattern.MatchString(id):
		return fieldErr(field, "want a network id of 16 hex digits, got %q", id)
	}
	return nil
}

func checkFinite(field string, v *float64) error {
	if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
		return fieldErr(field, "want a finite number, got %v", *v)
	}
	return nil
}

func checkNonNegative(field string, v *float64) error {
	if err := checkFinite(field, v); err != nil {
		return err
	}
	if v != nil && *v < 0 {
		return fieldErr(field, "must not be negative, got %v", *v)
	}
	return nil
}

func (r *Record) validateMatch() error {
	if len(r.Engines) != 2 {
		return fieldErr("engines", "want 2 engines (A, B), got %d", len(r.Engines))
	}
	for i, e := range r.Engines {
		f := fmt.Sprintf("engines[%d].", i)
		if e.Name == "" {
			return fieldErr(f+"name", "missing")
		}
		if err := checkNetwork(f+"network", e.Network, false); err != nil {
			return err
		}
		if err := checkOneOf(f+"eval", e.Eval, false, "nnue", "hce"); err != nil {
			return err
		}
	}
	if r.TC == "" {
		return fieldErr("tc", "missing")
	}
	if !tcPattern.MatchString(r.TC) {
		return fieldErr("tc", "want nodes=N, depth=N, movetime=MS, clock=S+INC or a:TC/b:TC, got %q", r.TC)
	}
	if err := checkOneOf("game", r.Game, false, "chess", "dama"); err != nil {
		return err
	}
	if r.Games < 1 {
		return fieldErr("games", "want at least 1, got %d", r.Games)
	}
	if r.WDL != nil {
		if len(r.WDL) != 3 || r.WDL[0] < 0 || r.WDL[1] < 0 || r.WDL[2] < 0 || r.WDL[0]+r.WDL[1]+r.WDL[2] != r.Games {
			return fieldErr("wdl", "want three counts that sum to games (%d), got %v", r.Games, r.WDL)
		}
		if r.Score != nil {
			return fieldErr("score", "only where wdl is missing")
		}
	}
	if err := checkFinite("score", r.Score); err != nil {
		return err
	}
	if r.Score != nil && (*r.Score < 0 || *r.Score > 1) {
		return fieldErr("score", "want a fraction from 0 to 1, got %v", *r.Score)
	}
	if r.Penta != nil {
		sum := 0
		for _, n := range r.Penta {
			if n < 0 {
				sum = -1
				break
			}
			sum += n
		}
		if len(r.Penta) != 5 || sum != r.Games/2 {
			return fieldErr("penta", "want five counts that sum to the game pairs (%d), got %v", r.Games/2, r.Penta)
		}
	}
	if r.Elo == nil {
		return fieldErr("elo", "missing")
	}
	if err := checkFinite("elo", r.Elo); err != nil {
		return err
	}
	if err := checkNonNegative("elo_ci", r.EloCI); err != nil {
		return err
	}
	if err := checkOneOf("elo_bound", r.EloBound, false, "above", "below"); err != nil {
		return err
	}
	if r.EloBound != "" && r.EloCI != nil {
		return fieldErr("elo_bound", "a bound has no interval: elo_ci must be absent")
	}
	if s := r.SPRT; s != nil {
		switch {
		case !(s.Elo1 > s.Elo0):
			return fieldErr("sprt", "elo1 (%g) must be greater than elo0 (%g)", s.Elo1, s.Elo0)
		case !(s.Alpha > 0 && s.Alpha < 1 && s.Beta > 0 && s.Beta < 1):
			return fieldErr("sprt", "alpha (%g) and beta (%g) must be between 0 and 1", s.Alpha, s.Beta)
		case !(s.Lower < 0 && s.Upper > 0):
			return fieldErr("sprt", "want lower < 0 < upper, got %g and %g", s.Lower, s.Upper)
		}
		for _, v := range []float64{s.Elo0, s.Elo1, s.LLR, s.Lower, s.Upper} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fieldErr("sprt", "want finite numbers, got %v", v)
			}
		}
	}
	if r.Verdict != "" && r.SPRT == nil {
		return fieldErr("verdict", "only with sprt")
	}
	if err := checkOneOf("verdict", r.Verdict, false, "H1", "H0", "undecided"); err != nil {
		return err
	}
	if err := checkOneOf("ended", r.Ended, false, "complete", "sprt", "interrupted"); err != nil {
		return err
	}
	if r.Ended == "sprt" && r.SPRT == nil {
		return fieldErr("ended", "sprt: a match without sprt")
	}
	if err := checkNonNegative("wall_s", r.WallS); err != nil {
		return err
	}
	if r.Concurrency < 0 {
		return fieldErr("concurrency", "must not be negative, got %d", r.Concurrency)
	}
	return nil
}

func (r *Record) validateNetwork() error {
	if err := checkNetwork("network", r.Network, true); err != nil {
		return err
	}
	if r.Parent == "" {
		return fieldErr("parent", "missing")
	}
	if r.Parent != "hce" && !netPattern.MatchString(r.Parent) {
		return fieldErr("parent", "want hce or a network id of 16 hex digits, got %q", r.Parent)
	}
	if r.Parent == r.Network {
		return fieldErr("parent", "names the network itself")
	}
	if r.Arch == "" {
		return fieldErr("arch", "missing")
	}
	if r.Positions < 0 {
		return fieldErr("positions", "must not be negative, got %d", r.Positions)
	}
	for i, e := range r.Epochs {
		f := fmt.Sprintf("epochs[%d].", i)
		if e.Epoch < 1 {
			return fieldErr(f+"epoch", "want at least 1, got %d", e.Epoch)
		}
		if e.TrainLoss == nil {
			return fieldErr(f+"train_loss", "missing")
		}
		if err := checkNonNegative(f+"train_loss", e.TrainLoss); err != nil {
			return err
		}
		if err := checkNonNegative(f+"val_loss", e.ValLoss); err != nil {
			return err
		}
	}
	if err := checkFinite("pawn_scale", r.PawnScale); err != nil {
		return err
	}
	if r.PawnScale != nil && *r.PawnScale <= 0 {
		return fieldErr("pawn_scale", "must be positive, got %v", *r.PawnScale)
	}
	if err := checkID("gate", r.Gate, false); err != nil {
		return err
	}
	if r.Kept == nil {
		return fieldErr("kept", "missing")
	}
	return nil
}

func (r *Record) validateCycle() error {
	if err := checkOneOf("loop", r.Loop, true, "loop", "loop-nnue", "loop-dama", "nnue"); err != nil {
		return err
	}
	if r.Cycle != nil && *r.Cycle < 0 {
		return fieldErr("cycle", "must not be negative, got %d", *r.Cycle)
	}
	if len(r.Stages) == 0 {
		return fieldErr("stages", "missing")
	}
	for i, s := range r.Stages {
		f := fmt.Sprintf("stages[%d].", i)
		if s.Name == "" {
			return fieldErr(f+"name", "missing")
		}
		if s.Seconds == nil {
			return fieldErr(f+"seconds", "missing")
		}
		if err := checkNonNegative(f+"seconds", s.Seconds); err != nil {
			return err
		}
	}
	if err := checkOneOf("verdict", r.Verdict, true, "kept", "reverted", "undecided", "failed"); err != nil {
		return err
	}
	if err := checkID("match", r.Match, false); err != nil {
		return err
	}
	return checkNetwork("network", r.Network, false)
}

func (r *Record) validateTune() error {
	if err := checkOneOf("tool", r.Tool, true, "texel", "spsa"); err != nil {
		return err
	}
	if r.Iterations < 0 {
		return fieldErr("iterations", "must not be negative, got %d", r.Iterations)
	}
	if err := checkFigures("params", r.Params); err != nil {
		return err
	}
	if err := checkFigures("figures", r.Figures); err != nil {
		return err
	}
	return checkID("match", r.Match, false)
}

func (r *Record) validateBench() error {
	if err := checkOneOf("subject", r.Subject, true, "search", "perft", "selfplay", "trainer", "export", "loader"); err != nil {
		return err
	}
	if r.Command == "" {
		return fieldErr("command", "missing")
	}
	if len(r.Figures) == 0 {
		return fieldErr("figures", "missing")
	}
	return checkFigures("figures", r.Figures)
}

func checkFigures(field string, m map[string]float64) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == "" {
			return fieldErr(field, "a name is empty")
		}
		if v := m[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fieldErr(field+"."+k, "want a finite number, got %v", v)
		}
	}
	return nil
}

// maxSlug is the most characters of what that an id made by NewID holds.
const maxSlug = 40

// NewID returns an id for a record made at t about what: the day, a slug
// of what (lower-case letters and digits, other runs as one "-", at most
// 40 characters) and 6 hex digits of a hash of t and what, so that two
// records made at different times differ:
// "2026-12-01-capture-futility-at-4-0-04-1a2b3c".
func NewID(t time.Time, what string) string {
	var slug strings.Builder
	dash := false
	for _, c := range strings.ToLower(what) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && slug.Len() > 0 {
				slug.WriteByte('-')
			}
			slug.WriteRune(c)
			dash = false
		} else {
			dash = true
		}
	}
	s := slug.String()
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	sum := sha256.Sum256([]byte(t.UTC().Format(time.RFC3339Nano) + "\x00" + what))
	parts := []string{t.UTC().Format(time.DateOnly)}
	if s != "" {
		parts = append(parts, s)
	}
	return strings.Join(append(parts, hex.EncodeToString(sum[:3])), "-")
}

// Build returns the VCS revision this binary was built from, its first 12
// hex digits (a record's commit), or "" when the build does not say (go
// test, go run outside a repository).
func Build() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			return s.Value[:min(12, len(s.Value))]
		}
	}
	return ""
}
