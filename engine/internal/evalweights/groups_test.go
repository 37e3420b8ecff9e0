package evalweights

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type score struct{ MG, EG int32 }

// table is a small weight table with every kind of group.
type table struct {
	Material [3]score `group:"material" family:"material" layout:"pieces" doc:"piece values"`
	Ranks    [4]score `group:"rank" family:"pawns" layout:"ranks" doc:"by rank"`
	Mob      [5]score `group:"mob" family:"mobility" cols:"2" doc:"by squares reached"`
	Danger   [2]score `group:"danger" family:"king" curve:"bend" doc:"through the curve"`
	Tempo    [1]score `group:"tempo" family:"misc" doc:"side to move"`
}

var testSchema = Schema{
	Pkg:  "test",
	Unit: "centi-unit",
	Layouts: []LayoutSpec{
		{Name: "pieces", Labels: []string{"p", "n", "b", "r"}, Prefix: true},
		{Name: "ranks", Labels: []string{"r1", "r2", "r3", "r4"}, Cols: 2},
	},
	Curve: "bend",
}

func TestReadFollowsTheStructDeclaration(t *testing.T) {
	tab, err := Read[table, score](testSchema)
	if err != nil {
		t.Fatal(err)
	}
	want := []Group{
		{Name: "material", Field: "Material", Family: "material", Doc: "piece values", Offset: 0, Size: 3, Cols: 3, Layout: "pieces", labels: testSchema.Layouts[0].Labels},
		{Name: "rank", Field: "Ranks", Family: "pawns", Doc: "by rank", Offset: 3, Size: 4, Cols: 2, Layout: "ranks", labels: testSchema.Layouts[1].Labels},
		{Name: "mob", Field: "Mob", Family: "mobility", Doc: "by squares reached", Offset: 7, Size: 5, Cols: 2, Layout: List},
		{Name: "danger", Field: "Danger", Family: "king", Doc: "through the curve", Offset: 12, Size: 2, Cols: 2, Layout: List, Nonlinear: true},
		{Name: "tempo", Field: "Tempo", Family: "misc", Doc: "side to move", Offset: 14, Size: 1, Cols: 1, Layout: List},
	}
	if !reflect.DeepEqual(tab.Groups, want) {
		t.Errorf("groups\n%+v\nwant\n%+v", tab.Groups, want)
	}
	if tab.NumFeatures != 15 || tab.NumParams() != 30 {
		t.Errorf("NumFeatures %d, NumParams %d; want 15, 30", tab.NumFeatures, tab.NumParams())
	}
	for f := range tab.NumFeatures {
		g, ok := tab.GroupOf(f)
		if !ok || f < g.Offset || f >= g.Offset+g.Size {
			t.Errorf("GroupOf(%d) = %s, %v", f, g.Name, ok)
		}
	}
	if _, ok := tab.GroupOf(15); ok {
		t.Error("GroupOf(NumFeatures) found a group")
	}
}

func TestMalformedDeclarationsAreErrorsNamingTheField(t *testing.T) {
	for name, read := range map[string]func() error{
		"not a struct": func() error { _, err := Read[[2]score, score](testSchema); return err },
		"not the score": func() error {
			_, err := Read[struct{ A [2]int32 }, score](testSchema)
			return err
		},
		"empty group": func() error {
			_, err := Read[struct {
				A [0]score `group:"a" family:"f"`
			}, score](testSchema)
			return err
		},
		"no group": func() error {
			_, err := Read[struct {
				A [2]score `family:"f"`
			}, score](testSchema)
			return err
		},
		"no family": func() error {
			_, err := Read[struct {
				A [2]score `group:"a"`
			}, score](testSchema)
			return err
		},
		"name twice": func() error {
			_, err := Read[struct {
				A, B [2]score `group:"a" family:"f"`
			}, score](testSchema)
			return err
		},
		"unknown layout": func() error {
			_, err := Read[struct {
				A [2]score `group:"a" family:"f" layout:"grid"`
			}, score](testSchema)
			return err
		},
		"too many labels' worth": func() error {
			_, err := Read[struct {
				A [5]score `group:"a" family:"f" layout:"pieces"`
			}, score](testSchema)
			return err
		},
		"fewer than an exact layout's": func() error {
			_, err := Read[struct {
				A [3]score `group:"a" family:"f" layout:"ranks"`
			}, score](testSchema)
			return err
		},
		"unknown curve": func() error {
			_, err := Read[struct {
				A [2]score `group:"a" family:"f" curve:"cubic"`
			}, score](testSchema)
			return err
		},
		"curve in a schema without": func() error {
			_, err := Read[struct {
				A [2]score `group:"a" family:"f" curve:"bend"`
			}, score](Schema{Pkg: "test"})
			return err
		},
		"bad cols": func() error {
			_, err := Read[struct {
				A [2]score `group:"a" family:"f" cols:"0"`
			}, score](testSchema)
			return err
		},
	} {
		err := read()
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.HasPrefix(err.Error(), "test: ") {
			t.Errorf("%s: error %q does not start with the schema's package", name, err)
		}
	}
}

func TestParamNamesUseTheLayoutsLabels(t *testing.T) {
	tab := MustRead[table, score](testSchema)
	for j, want := range map[int]string{
		0:       "material[p].mg",
		15 + 2:  "material[b].eg",
		4:       "rank[r2].mg",
		8:       "mob[1].mg",
		14:      "tempo.mg",
		29:      "tempo.eg",
		-1:      "param-1",
		30:      "param30",
		15 + 13: "danger[1].eg",
	} {
		if got := tab.ParamName(j); got != want {
			t.Errorf("ParamName(%d) = %q, want %q", j, got, want)
		}
	}
}

func TestSelectByFamilyGroupAndHalf(t *testing.T) {
	tab := MustRead[table, score](testSchema)
	selected := func(m []bool) []string {
		var out []string
		for j, on := range m {
			if on {
				out = append(out, tab.ParamName(j))
			}
		}
		return out
	}
	for _, tc := range []struct {
		spec string
		want int
	}{
		{"all", 30},
		{"material", 6},
		{"pawns,tempo", 10},
		{"rank.eg", 4},
		{"mob.mg, mob.eg", 10},
		{"tempo.mg,misc", 2},
		{"", 0},
	} {
		m, err := tab.Select(tc.spec)
		if err != nil {
			t.Fatalf("Select(%q): %v", tc.spec, err)
		}
		if got := selected(m); len(got) != tc.want {
			t.Errorf("Select(%q) selects %v, want %d weights", tc.spec, got, tc.want)
		}
	}
	if got, _ := tab.Select("rank.eg"); !slices.Equal(selected(got), []string{"rank[r1].eg", "rank[r2].eg", "rank[r3].eg", "rank[r4].eg"}) {
		t.Errorf("Select(rank.eg) = %v", selected(got))
	}
	for spec, want := range map[string]string{
		"material,nonsense": `"nonsense": no group or family of that name (families: material, pawns, mobility, king, misc)`,
		"tempo.xg":          `unknown half "xg"`,
	} {
		if _, err := tab.Select(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Select(%q): err = %v, want one containing %s", spec, err, want)
		}
	}
}

func TestFingerprintFollowsNamesSizesLayoutsAndCurves(t *testing.T) {
	tab := MustRead[table, score](testSchema)
	base := tab.Fingerprint()
	if len(base) != 16 || base != fingerprint(tab.Groups, true) {
		t.Fatalf("fingerprint %q", base)
	}
	for name, change := range map[string]func(gs []Group){
		"renamed":   func(gs []Group) { gs[3].Name = "other" },
		"resized":   func(gs []Group) { gs[2].Size++ },
		"reshaped":  func(gs []Group) { gs[1].Layout = List },
		"curved":    func(gs []Group) { gs[0].Nonlinear = true },
		"reordered": func(gs []Group) { gs[1], gs[2] = gs[2], gs[1] },
		"removed":   func(gs []Group) { gs[4] = Group{Name: "x", Size: 1} },
	} {
		gs := slices.Clone(tab.Groups)
		change(gs)
		if fingerprint(gs, true) == base {
			t.Errorf("%s group: fingerprint unchanged", name)
		}
	}
	// Documentation and presentation are not layout.
	gs := slices.Clone(tab.Groups)
	gs[0].Doc, gs[0].Cols, gs[0].Family, gs[0].Field = "other", 1, "other", "Other"
	if fingerprint(gs, true) != base {
		t.Error("doc, cols, family or field changed the fingerprint")
	}
	// A schema without a curve has none to record.
	if fingerprint(tab.Groups, false) == base {
		t.Error("the curve column does not enter the fingerprint")
	}
}

func TestRoundAndFeatures(t *testing.T) {
	tab := MustRead[table, score](testSchema)
	w := make([]float64, tab.NumParams())
	w[0], w[15], w[29] = 1.5, -2.5, 7.4
	v, err := tab.Round(w)
	if err != nil {
		t.Fatal(err)
	}
	if v[0] != 2 || v[15] != -3 || v[29] != 7 {
		t.Errorf("rounded %v", v)
	}
	if _, err := tab.Round(w[1:]); err == nil {
		t.Error("a short vector is not an error")
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), MaxWeight + 1} {
		w[4] = bad
		if _, err := tab.Round(w); err == nil || !strings.Contains(err.Error(), "rank[r2].mg") || !strings.Contains(err.Error(), "centi-unit") {
			t.Errorf("weight %v: err = %v, want one naming rank[r2].mg and the unit", bad, err)
		}
	}
	var x table
	x.Ranks[1] = score{3, 4}
	x.Tempo[0] = score{5, 6}
	fs := tab.Features(&x)
	if len(fs) != 15 || fs[4] != (score{3, 4}) || fs[14] != (score{5, 6}) || fs[0] != (score{}) {
		t.Errorf("features %v", fs)
	}
}
