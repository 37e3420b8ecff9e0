package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"unsafe"
)

// Score is a pair of weights, one for a full board (midgame) and one for
// a bare one (endgame), in centi-men.
type Score struct {
	MG, EG int32
}

// weightTable declares every feature group once, as one field: the
// field's array length is the group's size, its place in the struct the
// group's offset in the weight vector, and its tag says the rest:
//
//	group:"name"     the group's name, for -params and reports (required)
//	family:"name"    the -params family it belongs to (required)
//	layout:"rows"    how its entries are labelled: list (the default),
//	                 pieces (man, king), rows (relative row 0..7) or
//	                 backrank (which of the four back-row squares hold a man)
//	doc:"text"       one line, written above the group in the generated file
//
// Groups, the feature offsets, NumFeatures, the trace, the tuner's -params
// selection, the layout's fingerprint and the generated weights file all
// follow from this declaration. weights_gen.go assigns each group's values
// to its field by name in an array of the field's own length, so a group
// resized, renamed or removed fails to build until the file is regenerated.
//
// Rows and squares are from the owner's side: row 0 is the owner's back
// row, row 7 its crowning row (a man never stands there).
type weightTable struct {
	Material [2]Score `group:"material" family:"material" layout:"pieces" doc:"piece values: man, king"`

	ManRow      [8]Score  `group:"man_row" family:"men" layout:"rows" doc:"per man, by its row from its own side (advancement)"`
	ManCrowning [1]Score  `group:"man_crowning" family:"men" doc:"per man on the row before crowning with an empty square to step onto it"`
	ManBacked   [1]Score  `group:"man_backed" family:"men" doc:"per man off the back row whose squares behind are own pieces or off the board (no enemy man can jump it)"`
	BackRank    [16]Score `group:"back_rank" family:"men" layout:"backrank" doc:"the back-row guard: which of the four back-row squares, left to right from the owner's side, hold an own man"`

	Centre [2]Score `group:"centre" family:"position" layout:"pieces" doc:"per man or king on the central squares (files c-f, rows 2-5)"`
	Edge   [2]Score `group:"edge" family:"position" layout:"pieces" doc:"per man or king on the side files a and h"`

	MobMan  [1]Score `group:"mob_man" family:"mobility" doc:"per empty square a man can step to"`
	MobKing [1]Score `group:"mob_king" family:"mobility" doc:"per empty square a king can step to"`

	Simplify [1]Score `group:"simplify" family:"misc" doc:"the side ahead in pieces: its lead times the pieces off the board (24 minus the pieces on it), so that exchanges pay when ahead"`
	Tempo    [1]Score `group:"tempo" family:"misc" doc:"side to move"`
}

// scoreSize is the size of one feature's weights in weightTable.
const scoreSize = unsafe.Sizeof(Score{})

// Feature offsets: the index of each group's first feature, from its
// field's place in weightTable.
const (
	fMaterial    = int(unsafe.Offsetof(weightTable{}.Material) / scoreSize)
	fManRow      = int(unsafe.Offsetof(weightTable{}.ManRow) / scoreSize)
	fManCrowning = int(unsafe.Offsetof(weightTable{}.ManCrowning) / scoreSize)
	fManBacked   = int(unsafe.Offsetof(weightTable{}.ManBacked) / scoreSize)
	fBackRank    = int(unsafe.Offsetof(weightTable{}.BackRank) / scoreSize)
	fCentre      = int(unsafe.Offsetof(weightTable{}.Centre) / scoreSize)
	fEdge        = int(unsafe.Offsetof(weightTable{}.Edge) / scoreSize)
	fMobMan      = int(unsafe.Offsetof(weightTable{}.MobMan) / scoreSize)
	fMobKing     = int(unsafe.Offsetof(weightTable{}.MobKing) / scoreSize)
	fSimplify    = int(unsafe.Offsetof(weightTable{}.Simplify) / scoreSize)
	fTempo       = int(unsafe.Offsetof(weightTable{}.Tempo) / scoreSize)

	// NumFeatures is the number of features; the weight vector a tuner
	// sees has NumParams = 2·NumFeatures entries (see Weights.Vector).
	NumFeatures = int(unsafe.Sizeof(weightTable{}) / scoreSize)

	// NumParams is the length of the tuner's weight vector: NumFeatures
	// midgame weights followed by NumFeatures endgame weights.
	NumParams = 2 * NumFeatures
)

// Layout says how a group's entries are labelled.
type Layout uint8

// The layouts of groups.
const (
	List     Layout = iota // labelled by position: 0, 1, ...
	Pieces                 // man, king
	Rows                   // row0..row7, from the owner's side
	BackRank               // a pattern of the four back-row squares: "x.x." (x = an own man)
)

var layoutNames = [...]string{List: "list", Pieces: "pieces", Rows: "rows", BackRank: "backrank"}

// String returns the layout's name as a weightTable tag writes it.
func (l Layout) String() string {
	if int(l) < len(layoutNames) {
		return layoutNames[l]
	}
	return fmt.Sprintf("Layout(%d)", l)
}

// Group is a named range of features, one field of the weight table.
type Group struct {
	Name   string // unique, e.g. "man_row"
	Field  string // the field that holds its weights in weights_gen.go, e.g. "ManRow"
	Family string // the -params family it belongs to, e.g. "men"
	Doc    string // one line, written above the group in the generated file
	Offset int    // index of the first feature
	Size   int    // number of features
	Layout Layout
}

// Groups is the registry of every feature group, in index order.
var Groups = mustGroups()

// mustGroups reads the groups weightTable declares; a malformed
// declaration is a programming error every test meets at start-up.
func mustGroups() []Group {
	gs, err := groupsOf(reflect.TypeFor[weightTable]())
	if err != nil {
		panic(err)
	}
	return gs
}

// groupsOf reads the groups that the fields of struct type t declare.
func groupsOf(t reflect.Type) ([]Group, error) {
	score := reflect.TypeFor[Score]()
	var gs []Group
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Array || f.Type.Elem() != score || f.Type.Len() == 0 {
			return nil, fmt.Errorf("dama/eval: weight table field %s is a %s, want a non-empty array of Score", f.Name, f.Type)
		}
		g := Group{
			Name: f.Tag.Get("group"), Field: f.Name, Family: f.Tag.Get("family"), Doc: f.Tag.Get("doc"),
			Offset: int(f.Offset / score.Size()), Size: f.Type.Len(),
		}
		if g.Name == "" || g.Family == "" || names[g.Name] {
			return nil, fmt.Errorf("dama/eval: weight table field %s: want a unique group tag and a family tag", f.Name)
		}
		names[g.Name] = true
		if l := f.Tag.Get("layout"); l != "" {
			k := slices.Index(layoutNames[:], l)
			if k < 0 {
				return nil, fmt.Errorf("dama/eval: group %s: unknown layout %q", g.Name, l)
			}
			g.Layout = Layout(k)
		}
		if (g.Layout == Pieces && g.Size != 2) || (g.Layout == Rows && g.Size != 8) || (g.Layout == BackRank && g.Size != 16) {
			return nil, fmt.Errorf("dama/eval: group %s: %d entries do not fit layout %s", g.Name, g.Size, g.Layout)
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// LayoutFingerprint returns a short hash of the weight layout (every
// group's name, size and layout, in order); the generated weights file
// records the one it was written for, and a test checks it.
func LayoutFingerprint() string { return layoutFingerprint }

var layoutFingerprint = func() string {
	h := sha256.New()
	for _, g := range Groups {
		fmt.Fprintf(h, "%s %d %s\n", g.Name, g.Size, g.Layout)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}()

// GroupOf returns the group that holds feature f.
func GroupOf(f int) (Group, bool) {
	for _, g := range Groups {
		if f >= g.Offset && f < g.Offset+g.Size {
			return g, true
		}
	}
	return Group{}, false
}

// Label returns the label of the k-th entry of group g: "man" or "king",
// "row3", a back-row pattern such as "x..x", or the index.
func (g Group) Label(k int) string {
	switch g.Layout {
	case Pieces:
		return [...]string{"man", "king"}[k]
	case Rows:
		return fmt.Sprintf("row%d", k)
	case BackRank:
		var b [4]byte
		for i := range b {
			b[i] = '.'
			if k>>i&1 != 0 {
				b[i] = 'x'
			}
		}
		return string(b[:])
	}
	return fmt.Sprint(k)
}

// ParamName names entry j of the tuner's weight vector, e.g.
// "man_row[row3].mg" or "tempo.eg".
func ParamName(j int) string {
	if j < 0 || j >= NumParams {
		return fmt.Sprintf("param%d", j)
	}
	f, half := j, "mg"
	if j >= NumFeatures {
		f, half = j-NumFeatures, "eg"
	}
	g, _ := GroupOf(f)
	if g.Size == 1 {
		return g.Name + "." + half
	}
	return fmt.Sprintf("%s[%s].%s", g.Name, g.Label(f-g.Offset), half)
}

// Select parses a comma-separated list of group names and families (as in
// the tuner's -params: "material,men", or "all"), each optionally ending
// in ".mg" or ".eg" for that half only, and returns a mask over the
// NumParams weights, true where a weight may be tuned.
func Select(spec string) ([]bool, error) {
	mask := make([]bool, NumParams)
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, half := item, ""
		if i := strings.LastIndexByte(item, '.'); i >= 0 {
			name, half = item[:i], item[i+1:]
			if half != "mg" && half != "eg" {
				return nil, fmt.Errorf("dama/eval: -params %q: unknown half %q (want mg or eg)", item, half)
			}
		}
		found := false
		for _, g := range Groups {
			if name != "all" && name != g.Name && name != g.Family {
				continue
			}
			found = true
			for f := g.Offset; f < g.Offset+g.Size; f++ {
				mask[f] = mask[f] || half != "eg"
				mask[NumFeatures+f] = mask[NumFeatures+f] || half != "mg"
			}
		}
		if !found {
			return nil, fmt.Errorf("dama/eval: -params %q: no group or family of that name (families: %s)", item, strings.Join(Families(), ", "))
		}
	}
	return mask, nil
}

// Families returns the family names in registry order, each once.
func Families() []string {
	var out []string
	for _, g := range Groups {
		if !slices.Contains(out, g.Family) {
			out = append(out, g.Family)
		}
	}
	return out
}

// Weights is one set of evaluation weights. It is a small value (a
// pointer to its tables), so several sets coexist in one process and each
// evaluates through its Evaluate method; the zero Weights is not usable.
// Default returns the compiled-in set.
type Weights struct {
	t *weightSet
}

// weightSet is the weights by feature: midgame and endgame halves.
type weightSet struct {
	mg, eg [NumFeatures]int32
}

// Default returns the compiled-in weights (weights_gen.go).
func Default() Weights { return defaultWeights }

var defaultWeights = Weights{t: weights.set()}

// set returns t's weights by feature.
func (t *weightTable) set() *weightSet {
	s := new(weightSet)
	v := reflect.ValueOf(t).Elem()
	for i, g := range Groups {
		f := v.Field(i)
		for k := range g.Size {
			sc := f.Index(k).Interface().(Score)
			s.mg[g.Offset+k], s.eg[g.Offset+k] = sc.MG, sc.EG
		}
	}
	return s
}

// maxWeight bounds a weight's magnitude; larger values mean a tuner
// diverged (and could overflow the evaluation's sums).
const maxWeight = 1 << 20

// FromVector returns the weights of a tuner's vector w (NumParams entries,
// layout as Vector), each rounded to the nearest integer.
func FromVector(w []float64) (Weights, error) {
	if len(w) != NumParams {
		return Weights{}, fmt.Errorf("dama/eval: weight vector has %d entries, want %d", len(w), NumParams)
	}
	s := new(weightSet)
	for j, x := range w {
		if math.IsNaN(x) || math.Abs(x) > maxWeight {
			return Weights{}, fmt.Errorf("dama/eval: weight %d (%s) is %v, not a usable centi-man value", j, ParamName(j), x)
		}
		v := int32(math.Round(x))
		if j < NumFeatures {
			s.mg[j] = v
		} else {
			s.eg[j-NumFeatures] = v
		}
	}
	return Weights{t: s}, nil
}

// Vector returns the weights as the tuner's vector: entry f is feature
// f's midgame weight, entry NumFeatures+f its endgame weight.
func (w Weights) Vector() []float64 {
	v := make([]float64, NumParams)
	for f := range NumFeatures {
		v[f] = float64(w.t.mg[f])
		v[NumFeatures+f] = float64(w.t.eg[f])
	}
	return v
}

// Provenance says where a weight set came from; the generator writes it
// into the generated file's header and back into CurrentProvenance.
type Provenance struct {
	Source      string  // data the weights were fitted to, or "hand-set"
	Positions   int     // number of positions fitted
	K           float64 // sigmoid scale used by the tuner
	ErrorBefore float64 // validation error before tuning
	ErrorAfter  float64 // validation error after tuning
	// Layout is the LayoutFingerprint of the group layout the weights were
	// written for; the generator fills it in.
	Layout string
}

// CurrentProvenance returns the provenance of the compiled-in weights.
func CurrentProvenance() Provenance { return provenance }
