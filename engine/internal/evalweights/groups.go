// Package evalweights is the machinery an evaluation's weights-as-data
// share, chess and draughts alike: it reads the weight groups from the
// tagged fields of a weight-table struct, and from them derives the
// parameter names, the tuner's -params selection, the layout's fingerprint
// and the generated weights file (Generate).
//
// A weight table is a struct whose every field is a non-empty array of
// one score type (a {midgame, endgame} pair): the array's length is the
// group's size, its place in the struct the group's offset in the feature
// vector. Its tag says the rest:
//
//	group:"name"     the group's name, for -params and reports (required, unique)
//	family:"name"    the -params family it belongs to (required)
//	layout:"name"    how its entries are labelled: list (the default,
//	                 labelled 0, 1, ...) or one of the Schema's layouts
//	cols:"7"         values per line in the generated file (default: the
//	                 layout's Cols, else the group's size)
//	curve:"name"     its weights enter the evaluation through the Schema's
//	                 curve, not as a plain dot product (Group.Nonlinear)
//	doc:"text"       one line, written above the group in the generated file
//
// The tuner's weight vector has 2·NumFeatures entries: every feature's
// midgame weight, then every feature's endgame weight.
package evalweights

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Layout names how a group's entries are labelled, as its layout tag
// writes it.
type Layout string

// List is the layout every schema knows: entries labelled by position.
const List Layout = "list"

// LayoutSpec declares one layout of a schema.
type LayoutSpec struct {
	Name Layout
	// Labels are the entries' labels, in order. A group of this layout has
	// exactly len(Labels) entries, or, where Prefix is set, at most that
	// many (the first ones).
	Labels []string
	Prefix bool
	// Cols is the number of values a line in the generated file; 0 means
	// the group's size (one line).
	Cols int
}

// Schema is what differs between the evaluations' weight tables.
type Schema struct {
	// Pkg prefixes every error, e.g. "eval" or "dama/eval".
	Pkg string
	// Unit names a weight's unit in errors, e.g. "centipawn".
	Unit string
	// Layouts are the layouts besides List that groups may name.
	Layouts []LayoutSpec
	// Curve is the one curve a group may name, e.g. "kingdanger"; "" where
	// there is none. A schema with a curve records in the fingerprint
	// which groups use it.
	Curve string
}

// Group is a named range of features, one field of the weight table: a
// registry entry. The coefficient vector, the weight vector, the tuner's
// choice of what to tune and the generated weights file all follow the
// list of groups.
type Group struct {
	Name   string // unique, e.g. "psqt_knight"
	Field  string // the field that holds its weights, e.g. "PSQTKnight"
	Family string // the -params family it belongs to, e.g. "psqt"
	Doc    string // one line, written above the group in the generated file
	Offset int    // index of the first feature
	Size   int    // number of features
	Cols   int    // values per line in the generated file
	Layout Layout
	// Nonlinear marks the groups whose weights enter the evaluation
	// through the schema's curve, not as a plain dot product.
	Nonlinear bool

	labels []string // the layout's labels; nil for List
}

// Label returns the label of the k-th entry of g: its layout's label, or
// the index for a list.
func (g Group) Label(k int) string {
	if k < len(g.labels) {
		return g.labels[k]
	}
	return strconv.Itoa(k)
}

// Table is the registry of the groups of weight table T, a struct whose
// fields are arrays of score type S, in feature order.
type Table[T, S any] struct {
	Groups      []Group
	NumFeatures int

	schema      Schema
	fingerprint string
}

// MustRead is Read for a weight table declared in the program: a malformed
// declaration is a programming error that every test run meets at
// start-up, so it panics, as regexp.MustCompile does.
func MustRead[T, S any](s Schema) *Table[T, S] {
	tab, err := Read[T, S](s)
	if err != nil {
		panic(err)
	}
	return tab
}

// Read reads the groups that the fields of struct type T declare under
// schema s; every field must be a non-empty array of S.
func Read[T, S any](s Schema) (*Table[T, S], error) {
	t, score := reflect.TypeFor[T](), reflect.TypeFor[S]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s: weight table %s is not a struct", s.Pkg, t)
	}
	layouts := map[Layout]LayoutSpec{List: {Name: List}}
	names := []string{string(List)}
	for _, l := range s.Layouts {
		layouts[l.Name] = l
		names = append(names, string(l.Name))
	}
	tab := &Table[T, S]{schema: s}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Array || f.Type.Elem() != score || f.Type.Len() == 0 {
			return nil, fmt.Errorf("%s: weight table field %s is a %s, want a non-empty array of %s", s.Pkg, f.Name, f.Type, score.Name())
		}
		g := Group{
			Name:   f.Tag.Get("group"),
			Field:  f.Name,
			Family: f.Tag.Get("family"),
			Doc:    f.Tag.Get("doc"),
			Offset: int(f.Offset / score.Size()),
			Size:   f.Type.Len(),
			Layout: List,
		}
		if g.Name == "" || g.Family == "" || seen[g.Name] {
			return nil, fmt.Errorf("%s: weight table field %s: want a unique group tag and a family tag", s.Pkg, f.Name)
		}
		seen[g.Name] = true
		if l := f.Tag.Get("layout"); l != "" {
			g.Layout = Layout(l)
		}
		spec, ok := layouts[g.Layout]
		if !ok {
			return nil, fmt.Errorf("%s: group %s: unknown layout %q (want one of %s)", s.Pkg, g.Name, g.Layout, strings.Join(names, ", "))
		}
		if n := len(spec.Labels); spec.Labels != nil && (g.Size > n || (g.Size < n && !spec.Prefix)) {
			return nil, fmt.Errorf("%s: group %s: %d entries do not fit layout %s", s.Pkg, g.Name, g.Size, g.Layout)
		}
		g.labels = spec.Labels
		switch c := f.Tag.Get("curve"); {
		case c == "":
		case c == s.Curve:
			g.Nonlinear = true
		default:
			return nil, fmt.Errorf("%s: group %s: unknown curve %q (want %q)", s.Pkg, g.Name, c, s.Curve)
		}
		g.Cols = g.Size
		if spec.Cols > 0 {
			g.Cols = spec.Cols
		}
		if c := f.Tag.Get("cols"); c != "" {
			n, err := strconv.Atoi(c)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%s: group %s: cols %q is not a positive number", s.Pkg, g.Name, c)
			}
			g.Cols = n
		}
		tab.Groups = append(tab.Groups, g)
		tab.NumFeatures += g.Size
	}
	tab.fingerprint = fingerprint(tab.Groups, s.Curve != "")
	return tab, nil
}

// Fingerprint returns a short hash of the layout: every group's name,
// size and layout (and, where the schema has a curve, whether the group
// uses it), in order. A generated weights file records the fingerprint of
// the layout it was written for, so a test can check that it is current.
func (t *Table[T, S]) Fingerprint() string { return t.fingerprint }

// fingerprint hashes the layout of groups gs; curves says whether the
// schema has a curve to record.
func fingerprint(gs []Group, curves bool) string {
	h := sha256.New()
	for _, g := range gs {
		if curves {
			fmt.Fprintf(h, "%s %d %s %t\n", g.Name, g.Size, g.Layout, g.Nonlinear)
		} else {
			fmt.Fprintf(h, "%s %d %s\n", g.Name, g.Size, g.Layout)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// NumParams is the length of the tuner's weight vector: 2·NumFeatures.
func (t *Table[T, S]) NumParams() int { return 2 * t.NumFeatures }

// GroupOf returns the group that holds feature f.
func (t *Table[T, S]) GroupOf(f int) (Group, bool) {
	for _, g := range t.Groups {
		if f >= g.Offset && f < g.Offset+g.Size {
			return g, true
		}
	}
	return Group{}, false
}

// ParamName names entry j of the tuner's weight vector, e.g.
// "psqt_knight[f3].mg" or "tempo.eg"; "param<j>" outside the vector.
func (t *Table[T, S]) ParamName(j int) string {
	if j < 0 || j >= t.NumParams() {
		return fmt.Sprintf("param%d", j)
	}
	f, half := j, "mg"
	if j >= t.NumFeatures {
		f, half = j-t.NumFeatures, "eg"
	}
	g, _ := t.GroupOf(f)
	if g.Size == 1 {
		return g.Name + "." + half
	}
	return fmt.Sprintf("%s[%s].%s", g.Name, g.Label(f-g.Offset), half)
}

// Select parses a comma-separated list of group names and families (as in
// a tuner's -params flag: "psqt,kingsafety,passed_rank", or "all"), each
// optionally ending in ".mg" or ".eg" for that half only, and returns a
// mask over the NumParams weights, true where a weight may be tuned.
func (t *Table[T, S]) Select(spec string) ([]bool, error) {
	mask := make([]bool, t.NumParams())
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, half := item, ""
		if i := strings.LastIndexByte(item, '.'); i >= 0 {
			name, half = item[:i], item[i+1:]
			if half != "mg" && half != "eg" {
				return nil, fmt.Errorf("%s: -params %q: unknown half %q (want mg or eg)", t.schema.Pkg, item, half)
			}
		}
		found := false
		for _, g := range t.Groups {
			if name != "all" && name != g.Name && name != g.Family {
				continue
			}
			found = true
			for f := g.Offset; f < g.Offset+g.Size; f++ {
				mask[f] = mask[f] || half != "eg"
				mask[t.NumFeatures+f] = mask[t.NumFeatures+f] || half != "mg"
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: -params %q: no group or family of that name (families: %s)", t.schema.Pkg, item, strings.Join(t.Families(), ", "))
		}
	}
	return mask, nil
}

// Families returns the family names in registry order, each once.
func (t *Table[T, S]) Families() []string {
	var out []string
	for _, g := range t.Groups {
		if !slices.Contains(out, g.Family) {
			out = append(out, g.Family)
		}
	}
	return out
}

// MaxWeight bounds a weight's magnitude; a larger value means a tuner
// diverged (and could overflow an evaluation's sums).
const MaxWeight = 1 << 20

// Round returns the tuner's vector w (NumParams entries) rounded to
// integers, or an error naming the first weight that is not a usable value.
func (t *Table[T, S]) Round(w []float64) ([]int32, error) {
	if len(w) != t.NumParams() {
		return nil, fmt.Errorf("%s: weight vector has %d entries, want %d", t.schema.Pkg, len(w), t.NumParams())
	}
	out := make([]int32, len(w))
	for j, x := range w {
		if math.IsNaN(x) || math.Abs(x) > MaxWeight {
			return nil, fmt.Errorf("%s: weight %d (%s) is %v, not a usable %s value", t.schema.Pkg, j, t.ParamName(j), x, t.schema.Unit)
		}
		out[j] = int32(math.Round(x))
	}
	return out, nil
}

// Features returns the scores of table in feature order.
func (t *Table[T, S]) Features(table *T) []S {
	out := make([]S, t.NumFeatures)
	v := reflect.ValueOf(table).Elem()
	for i, g := range t.Groups {
		reflect.Copy(reflect.ValueOf(out[g.Offset:g.Offset+g.Size]), v.Field(i))
	}
	return out
}
