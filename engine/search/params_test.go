package search

import (
	"reflect"
	"strings"
	"testing"
)

// TestParamTable checks that paramTable declares every Params field exactly
// once, under the field's name, with its value inside its range, and that
// the search starts with those values.
func TestParamTable(t *testing.T) {
	v := reflect.ValueOf(&defaultParams).Elem()
	fields := map[*int]string{}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Type.Kind() != reflect.Int {
			t.Fatalf("Params.%s is a %v: paramTable holds ints", f.Name, f.Type)
		}
		fields[v.Field(i).Addr().Interface().(*int)] = f.Name
	}
	seen := map[string]bool{}
	for _, s := range paramTable {
		name, ok := fields[s.field]
		switch {
		case !ok:
			t.Errorf("%s: field is not in defaultParams", s.name)
		case name != s.name:
			t.Errorf("%s: row names field %s", s.name, name)
		case seen[name]:
			t.Errorf("%s: declared twice", name)
		}
		seen[name] = true
		if s.lo > s.value || s.value > s.hi {
			t.Errorf("%s: value %d outside [%d, %d]", s.name, s.value, s.lo, s.hi)
		}
		if *s.field != s.value {
			t.Errorf("%s: defaultParams has %d, the table %d", s.name, *s.field, s.value)
		}
	}
	for _, name := range fields {
		if !seen[name] {
			t.Errorf("Params.%s has no row in paramTable", name)
		}
	}
	if params != defaultParams {
		t.Error("the search does not start with defaultParams")
	}
	for _, s := range paramTable {
		if s.name == "HistoryBonusMax" && s.hi > historyLimit {
			t.Errorf("HistoryBonusMax may reach %d, more than historyLimit %d", s.hi, historyLimit)
		}
	}
}

// TestDerivedTables checks the tables setParams derives from the default
// parameters against values worked out by hand.
func TestDerivedTables(t *testing.T) {
	if want := [7]int{100, 320, 330, 500, 950, 20000, 0}; seeValue != want {
		t.Errorf("seeValue = %v, want %v", seeValue, want)
	}
	// 0.8 + ln(d)·ln(m)/2.3, truncated.
	for _, c := range []struct{ d, m, want int }{
		{1, 1, 0}, {1, 63, 0}, {2, 2, 1}, {3, 3, 1}, {4, 8, 2}, {10, 10, 3}, {20, 40, 5}, {63, 63, 8},
	} {
		if got := lmr(c.d, c.m); got != c.want {
			t.Errorf("lmr(%d, %d) = %d, want %d", c.d, c.m, got, c.want)
		}
	}
	// Other parameters give other tables, and the defaults restore them.
	p := defaultParams
	p.LMRBase, p.SEEKnight = 180, 300
	setParams(p)
	got1, got2 := lmr(2, 2), seeValue[1]
	setParams(defaultParams)
	if got1 != 2 || got2 != 300 || lmr(2, 2) != 1 || seeValue[1] != 320 {
		t.Errorf("setParams: lmr(2, 2) %d and knight %d with other parameters, %d and %d after", got1, got2, lmr(2, 2), seeValue[1])
	}
}

// TestSetParam checks that SetParam changes one parameter and the tables
// derived from it, and that an unknown name or a value outside the range is
// an error naming it that changes nothing.
func TestSetParam(t *testing.T) {
	defer setParams(defaultParams)
	list := ParamList()
	if len(list) != len(paramTable) || list[0].Name != paramTable[0].name || list[0].Default != paramTable[0].value {
		t.Fatalf("ParamList() = %v..., want paramTable's rows", list[:1])
	}
	if err := SetParam("SEEKnight", 300); err != nil {
		t.Fatal(err)
	}
	want := defaultParams
	want.SEEKnight = 300
	if params != want || seeValue[1] != 300 {
		t.Errorf("SetParam(SEEKnight, 300): params %+v, knight %d", params, seeValue[1])
	}
	if err := SetParam("LMRBase", 180); err != nil || lmr(2, 2) != 2 {
		t.Errorf("SetParam(LMRBase, 180): %v, lmr(2, 2) = %d, want 2", err, lmr(2, 2))
	}
	want.LMRBase = 180
	for _, c := range []struct {
		name  string
		value int
		err   string
	}{
		{"SEEKnight", 199, "search parameter SEEKnight=199: outside its range [200, 450]"},
		{"SEEKnight", 451, "search parameter SEEKnight=451: outside its range [200, 450]"},
		{"seeknight", 300, `no search parameter "seeknight"`},
		{"Hash", 16, `no search parameter "Hash"`},
	} {
		err := SetParam(c.name, c.value)
		if err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("SetParam(%q, %d) = %v, want %q", c.name, c.value, err, c.err)
		}
		if params != want {
			t.Errorf("SetParam(%q, %d) changed the parameters", c.name, c.value)
		}
	}
}
