package eval

import (
	"unsafe"

	"chessforge/engine/internal/evalweights"
)

// Score is a pair of weights, one for a full board (midgame) and one for
// a bare one (endgame), in centi-men.
type Score struct {
	MG, EG int32
}

// weightTable declares the draughts feature groups, one a field, tagged
// as engine/internal/evalweights documents (group, family, layout, cols,
// doc; no curve). Its layouts are list (the default), pieces (man, king),
// rows (relative row 0..7) and backrank (which of the four back-row
// squares hold a man). weights_gen.go assigns each group's values to its
// field by name in an array of the field's own length, so a group
// resized, renamed or removed fails to build until the file is
// regenerated.
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
type Layout = evalweights.Layout

// The layouts of groups.
const (
	List            = evalweights.List // labelled by position: 0, 1, ...
	Pieces   Layout = "pieces"         // man, king
	Rows     Layout = "rows"           // row0..row7, from the owner's side
	BackRank Layout = "backrank"       // a pattern of the four back-row squares: "x.x." (x = an own man)
)

// schema is what the draughts weight table declares beyond the shared
// machinery: its layouts with their labels.
var schema = evalweights.Schema{
	Pkg:  "dama/eval",
	Unit: "centi-man",
	Layouts: []evalweights.LayoutSpec{
		{Name: Pieces, Labels: []string{"man", "king"}},
		{Name: Rows, Labels: []string{"row0", "row1", "row2", "row3", "row4", "row5", "row6", "row7"}, Cols: 8},
		{Name: BackRank, Labels: backRankLabels(), Cols: 4},
	},
}

// backRankLabels returns the labels of the 16 back-row patterns: entry k
// has an own man on the i-th back-row square (left to right from the
// owner's side) where bit i of k is set, e.g. "x..x" for 9.
func backRankLabels() []string {
	out := make([]string, 16)
	for k := range out {
		var b [4]byte
		for i := range b {
			b[i] = '.'
			if k>>i&1 != 0 {
				b[i] = 'x'
			}
		}
		out[k] = string(b[:])
	}
	return out
}

// Group is a named range of features, one field of the weight table. Its
// Label(k) names an entry: "man" or "king", "row3", a back-row pattern
// such as "x..x", or the index.
type Group = evalweights.Group

// table is the registry weightTable declares.
var table = evalweights.MustRead[weightTable, Score](schema)

// Groups is the registry of every feature group, in index order.
var Groups = table.Groups

// LayoutFingerprint returns a short hash of the weight layout (every
// group's name, size and layout, in order); the generated weights file
// records the one it was written for, and a test checks it.
func LayoutFingerprint() string { return table.Fingerprint() }

// GroupOf returns the group that holds feature f.
func GroupOf(f int) (Group, bool) { return table.GroupOf(f) }

// ParamName names entry j of the tuner's weight vector, e.g.
// "man_row[row3].mg" or "tempo.eg".
func ParamName(j int) string { return table.ParamName(j) }

// Select parses a comma-separated list of group names and families (as in
// the tuner's -params: "material,men", or "all"), each optionally ending
// in ".mg" or ".eg" for that half only, and returns a mask over the
// NumParams weights, true where a weight may be tuned.
func Select(spec string) ([]bool, error) { return table.Select(spec) }

// Families returns the family names in registry order, each once.
func Families() []string { return table.Families() }

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
	for f, sc := range table.Features(t) {
		s.mg[f], s.eg[f] = sc.MG, sc.EG
	}
	return s
}

// FromVector returns the weights of a tuner's vector w (NumParams entries,
// layout as Vector), each rounded to the nearest integer.
func FromVector(w []float64) (Weights, error) {
	v, err := table.Round(w)
	if err != nil {
		return Weights{}, err
	}
	s := new(weightSet)
	copy(s.mg[:], v[:NumFeatures])
	copy(s.eg[:], v[NumFeatures:])
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
type Provenance = evalweights.Provenance

// CurrentProvenance returns the provenance of the compiled-in weights.
func CurrentProvenance() Provenance { return provenance }
