package configs

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

type inner struct {
	Games int     `json:"games" usage:"games to play"`
	Share float64 `json:"share" usage:"a share"`
}

type settings struct {
	inner
	Name  string   `json:"name" usage:"a name"`
	Seed  uint64   `json:"seed" usage:"a seed"`
	Big   int64    `json:"big" usage:"a big number"`
	On    bool     `json:"on" usage:"a switch"`
	Args  []string `json:"args" usage:"arguments"`
	Hook  func()   `json:"-"`
	plain int
}

func defaults() settings {
	return settings{inner: inner{Games: 10, Share: 0.5}, Name: "x", On: true, Args: []string{"-a", "1"}}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func parse(t *testing.T, args []string, defaultFile string) (settings, error) {
	t.Helper()
	s := defaults()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	b, err := Bind(fs, &s, defaultFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	return s, b.Apply()
}

func TestKeysFollowTheDeclarationWithEmbeddedStructsInPlace(t *testing.T) {
	keys, err := Keys(settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"games", "share", "name", "seed", "big", "on", "args"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
}

func TestDeclarationMistakesAreErrors(t *testing.T) {
	type noUsage struct {
		A int `json:"a"`
	}
	type once struct {
		A int `json:"a" usage:"x"`
	}
	type twice struct {
		once
		B int `json:"a" usage:"y"`
	}
	type snake struct {
		A int `json:"a_b" usage:"x"`
	}
	type badType struct {
		A map[string]int `json:"a" usage:"x"`
	}
	for _, v := range []any{&noUsage{}, &twice{}, &snake{}, &badType{}, noUsage{}} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		if _, err := Bind(fs, v, ""); err == nil {
			t.Errorf("Bind(%T) accepted", v)
		}
	}
}

func TestFlagsOverrideTheFileWhichOverridesTheDefaults(t *testing.T) {
	path := writeFile(t, `{"games": 40, "name": "file", "args": ["-q"], "on": false}`)
	s, err := parse(t, []string{"-config", path, "-name", "flag", "-seed", "9", "-args", "-x -y", "-share", "0.5"}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := defaults()
	want.Games, want.On = 40, false                                                    // from the file
	want.Name, want.Seed, want.Args, want.Share = "flag", 9, []string{"-x", "-y"}, 0.5 // from the flags
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got  %+v\nwant %+v", s, want)
	}
	// Without -config the default file is read; without either, the defaults stay.
	if s, err = parse(t, nil, path); err != nil || s.Games != 40 {
		t.Fatalf("default file: games %d, %v", s.Games, err)
	}
	if s, err = parse(t, []string{"-big", "7"}, ""); err != nil || !reflect.DeepEqual(s, func() settings { d := defaults(); d.Big = 7; return d }()) {
		t.Fatalf("no file: %+v, %v", s, err)
	}
}

func TestFlagDefaultsAndUsageComeFromTheStruct(t *testing.T) {
	s := defaults()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	if _, err := Bind(fs, &s, "d.json"); err != nil {
		t.Fatal(err)
	}
	for name, def := range map[string]string{"games": "10", "share": "0.5", "name": "x", "on": "true", "args": "-a 1", "config": "d.json"} {
		f := fs.Lookup(name)
		if f == nil || f.DefValue != def {
			t.Errorf("flag -%s: %+v, want default %q", name, f, def)
		}
	}
	if f := fs.Lookup("games"); f.Usage != "games to play" {
		t.Errorf("usage %q", f.Usage)
	}
	if fs.Lookup("Hook") != nil || fs.Lookup("plain") != nil {
		t.Error("fields without a key became flags")
	}
}

func TestLoadErrorsNameTheFileLineAndKey(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown key", "{\n  \"games\": 5,\n  \"gmaes\": 6\n}", `line 3: unknown field "gmaes"`},
		{"old snake_case key", "{\n  \"name\": \"a\",\n\n  \"big_x\": 1,\n  \"b_i_g\": 1\n}", `line 4: unknown field "big_x"`},
		{"wrong type", "{\n  \"games\": \"many\"\n}", `line 2: key "games"`},
		{"syntax", "{\n  \"games\": 5,,\n}", "line 2"},
		{"trailing data", "{\"games\": 5}\n{}", "unexpected data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaults()
			err := Load(writeFile(t, tt.text), &s)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "c.json") {
				t.Fatalf("error %v, want one naming c.json and %q", err, tt.want)
			}
		})
	}
	type kebab struct {
		WorkDir string `json:"work-dir" usage:"a directory"`
	}
	var k kebab
	err := Load(writeFile(t, "{\n\"work_dir\": \"x\"\n}"), &k)
	if err == nil || !strings.Contains(err.Error(), `line 2: key "work_dir" is now "work-dir"`) {
		t.Fatalf("snake_case key: %v", err)
	}
	if err := Load(filepath.Join(t.TempDir(), "none.json"), &k); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Fatalf("missing file: %v", err)
	}
}

// pair is a setting of a type of its own: a flag.Value that also decodes
// from JSON.
type pair [2]string

func (p *pair) String() string { return p[0] + "=" + p[1] }

func (p *pair) Set(s string) error {
	a, b, ok := strings.Cut(s, "=")
	if !ok {
		return errors.New("want NAME=VALUE")
	}
	*p = pair{a, b}
	return nil
}

func (p *pair) UnmarshalText(text []byte) error { return p.Set(string(text)) }

type timed struct {
	Wait  Duration `json:"wait" usage:"how long to wait"`
	Opt   pair     `json:"opt" usage:"an option NAME=VALUE"`
	Words []string `json:"words" usage:"words"`
}

func TestDurationsAndValuesOfTheirOwnAreFlagsAndKeys(t *testing.T) {
	path := writeFile(t, "{\n  \"wait\": \"1m30s\",\n  \"opt\": \"Hash=16\",\n  \"words\": [\"a\", \"b\"]\n}")
	s := timed{Wait: Duration(500 * time.Millisecond), Words: []string{"x", "y"}}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	b, err := Bind(fs, &s, "")
	if err != nil {
		t.Fatal(err)
	}
	if f := fs.Lookup("wait"); f == nil || f.DefValue != "500ms" {
		t.Fatalf("-wait default: %+v", f)
	}
	if err := fs.Parse([]string{"-config", path, "-opt", "Threads=2"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(); err != nil {
		t.Fatal(err)
	}
	want := timed{Wait: Duration(90 * time.Second), Opt: pair{"Threads", "2"}, Words: []string{"a", "b"}}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %+v, want %+v", s, want)
	}
	for text, msg := range map[string]string{
		"{\n\"wait\": \"soon\"\n}":     `line 2: key "wait"`,
		"{\n\n\"opt\": \"x\"\n}":       `line 3: key "opt": want NAME=VALUE`,
		"{\n\"words\": [1]\n}":         `line 2: key "words": number is not a valid string`,
		"[1]":                          "must hold a JSON object",
		"{\n\"wait\": \"1s\"":          "line 2: unexpected end",
		"{\n\"wait\": \"1s\" \"opt\"}": "line 2",
	} {
		var s timed
		if err := Decode([]byte(text), &s); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want one with %q", text, err, msg)
		}
	}
}

// noted is a settings struct whose help is completed when the program runs.
type noted struct {
	Plies int `json:"plies" usage:"ply cap"`
	notes map[string]string
}

func (n noted) UsageNotes() (map[string]string, error) { return n.notes, nil }

func TestUsageNotesEndTheirFlagsHelp(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	n := noted{notes: map[string]string{"plies": fmt.Sprintf(" (%d for dama)", 400)}}
	if _, err := Bind(fs, &n, ""); err != nil {
		t.Fatal(err)
	}
	if f := fs.Lookup("plies"); f.Usage != "ply cap (400 for dama)" {
		t.Errorf("usage %q", f.Usage)
	}
	n.notes = map[string]string{"plies": "", "moves": " (none)"}
	if _, err := Bind(flag.NewFlagSet("test", flag.ContinueOnError), &n, ""); err == nil || !strings.Contains(err.Error(), `"moves", which is no setting`) {
		t.Errorf("a note for no setting: %v", err)
	}
}

// TestDuplicateKeysAndNullsAreErrors checks that a key given twice and a
// null value, at the top level or inside a value, are errors naming the
// file, the line and the key: json.Unmarshal would keep the last of two
// keys and take null as "leave it as it is", silently.
func TestDuplicateKeysAndNullsAreErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"duplicate key", `{"games": 1, "games": 2}`, `line 1: key "games" given twice (first on line 1)`},
		{"duplicate key on its line", "{\n  \"games\": 1,\n  \"name\": \"a\",\n  \"games\": 2\n}", `line 4: key "games" given twice (first on line 2)`},
		{"null", `{"games": null}`, `line 1: key "games": null is no value`},
		{"null on its line", "{\n  \"name\": \"a\",\n  \"args\": null\n}", `line 3: key "args": null is no value`},
		{"null in a list", "{\n  \"args\": [\"a\",\n    null]\n}", `line 3: key "args": null is no value`},
		{"duplicate key in an object", "{\n  \"name\": \"a\",\n  \"args\": [{\"x\": 1,\n  \"x\": 2}]\n}", `line 4: key "args": key "x" given twice (first on line 3)`},
		{"null in an object", "{\n  \"args\": [{\"x\":\n null}]\n}", `line 3: key "args": null is no value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaults()
			err := Load(writeFile(t, tt.text), &s)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "c.json") {
				t.Fatalf("error %v, want one naming c.json and %q", err, tt.want)
			}
		})
	}
	// Through a command: a usage error, exit 2.
	s := defaults()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	b, err := Bind(fs, &s, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"-config", writeFile(t, `{"games": 1, "games": 2}`)}); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	if code := Exit(&stderr, "test", b.Apply()); code != ExitUsage || !strings.Contains(stderr.String(), `c.json: line 1: key "games" given twice`) {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	// Nested values without repeats or nulls still load.
	if err := Decode([]byte(`{"args": ["a", "b"], "games": 3}`), &s); err != nil || s.Games != 3 {
		t.Fatalf("%+v, %v", s, err)
	}
}
