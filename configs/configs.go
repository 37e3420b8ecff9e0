// Package configs declares each command's settings once and derives its
// flags and its config-file keys from that one declaration; the directory
// also holds the shipped config files (selfplay.json, loop.json, ...).
//
// A settings struct tags each setting with its key and its usage text:
//
//	type Settings struct {
//		Games int    `json:"games" usage:"games in the whole job"`
//		Out   string `json:"out" usage:"output file"`
//	}
//
// The json name is both the key in a config file and the flag's name
// (kebab-case, so "-part-games" and "part-games"); the usage tag is the
// flag's help; the struct's values when the flags are bound are the
// defaults. Embedded structs contribute their settings, so a command can add
// its own options to a library's configuration. Fields tagged json:"-" or
// without a json tag are not settings.
//
// A command binds the struct to its flag set, parses, then applies the
// config file and the flags set on the command line, in that order:
//
//	s := DefaultSettings()
//	b, err := configs.Bind(fs, &s, "") // defines -config FILE and a flag per setting
//	...
//	if err := fs.Parse(args); err != nil { ... }
//	if err := b.Apply(); err != nil { ... } // defaults < config file < flags
//
// Config files are JSON objects whose keys are the settings' names; an
// unknown key is an error naming the file and line, and so are a snake_case
// spelling of a kebab-case key, a key given twice and a null value (inside
// a setting's value too).
package configs

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Field is one setting of a settings struct.
type Field struct {
	Key   string            // the config key and flag name (the json name)
	Usage string            // the flag's help text
	Index []int             // the field's index path, for reflect.Value.FieldByIndex
	Tag   reflect.StructTag // the field's whole tag, for tags of the caller's own
	Type  reflect.Type
}

// Fields returns the settings of struct type t in declaration order,
// embedded structs' settings in place. It is an error for a setting to have
// no usage text, for two settings to share a key, or for a key not to be
// kebab-case.
func Fields(t reflect.Type) ([]Field, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("configs: %v is not a struct", t)
	}
	var out []Field
	seen := map[string]bool{}
	var walk func(t reflect.Type, index []int) error
	walk = func(t reflect.Type, index []int) error {
		for i := range t.NumField() {
			f := t.Field(i)
			idx := append(index[:len(index):len(index)], i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				if err := walk(f.Type, idx); err != nil {
					return err
				}
				continue
			}
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			usage, ok := f.Tag.Lookup("usage")
			switch {
			case !ok || usage == "":
				return fmt.Errorf("configs: %v.%s: setting %q has no usage tag", t, f.Name, name)
			case seen[name]:
				return fmt.Errorf("configs: %v.%s: setting %q declared twice", t, f.Name, name)
			case name != strings.ToLower(name) || strings.ContainsAny(name, "_ "):
				return fmt.Errorf("configs: %v.%s: key %q is not kebab-case", t, f.Name, name)
			}
			seen[name] = true
			out = append(out, Field{Key: name, Usage: usage, Index: idx, Tag: f.Tag, Type: f.Type})
		}
		return nil
	}
	if err := walk(t, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// Keys returns the setting names of the struct v (or *v) in declaration
// order.
func Keys(v any) ([]string, error) {
	t := reflect.TypeOf(v)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil, errors.New("configs: Keys of nil")
	}
	fs, err := Fields(t)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.Key
	}
	return keys, nil
}

// UsageNoter is a settings struct some of whose flags' help ends with text
// known only when the program runs: a default that depends on another
// setting, or a value declared elsewhere (a constant, another default). Bind
// appends each note to the usage tag of the setting its key names, as is.
type UsageNoter interface {
	UsageNotes() (map[string]string, error)
}

// Bound is a settings struct bound to a flag set by Bind.
type Bound struct {
	fs     *flag.FlagSet
	dst    reflect.Value // the settings struct
	flags  reflect.Value // a copy of it that the flags write to
	fields map[string]Field
	file   string // the -config flag's value
}

// Bind defines on fs the flag -config FILE (defaultFile: the file read when
// -config is not given; "" for none) and one flag per setting of the struct
// dst points to, with dst's current values as the defaults. A setting's
// type is string, bool, int, int64, uint64, float64, Duration, []string (its
// flag takes a space-separated list) or any type whose pointer is a
// flag.Value (for config files it should also decode from JSON, e.g. as an
// encoding.TextUnmarshaler). Call Apply after fs.Parse.
//
// A flag's help is its usage tag, followed by its note when dst is a
// UsageNoter.
//
// Bind's errors are mistakes in the struct's declaration: a missing usage
// tag, a duplicate key, a field type no flag can hold, a note for no
// setting.
func Bind(fs *flag.FlagSet, dst any, defaultFile string) (*Bound, error) {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("configs: Bind needs a pointer to a struct, not %T", dst)
	}
	fields, err := Fields(v.Elem().Type())
	if err != nil {
		return nil, err
	}
	if n, ok := dst.(UsageNoter); ok {
		if fields, err = addNotes(fields, n); err != nil {
			return nil, err
		}
	}
	b := &Bound{fs: fs, dst: v.Elem(), flags: reflect.New(v.Elem().Type()).Elem(), fields: map[string]Field{}}
	b.flags.Set(b.dst)
	fs.StringVar(&b.file, "config", defaultFile, "JSON config file whose keys are these flags' names")
	for _, f := range fields {
		fv := b.flags.FieldByIndex(f.Index)
		if fv.Kind() == reflect.Slice && !fv.IsNil() {
			// The flags' copy must not share a backing array with dst,
			// which the config file is decoded into.
			c := reflect.MakeSlice(fv.Type(), fv.Len(), fv.Len())
			reflect.Copy(c, fv)
			fv.Set(c)
		}
		switch p := fv.Addr().Interface().(type) {
		case flag.Value:
			fs.Var(p, f.Key, f.Usage)
		case *string:
			fs.StringVar(p, f.Key, *p, f.Usage)
		case *bool:
			fs.BoolVar(p, f.Key, *p, f.Usage)
		case *int:
			fs.IntVar(p, f.Key, *p, f.Usage)
		case *int64:
			fs.Int64Var(p, f.Key, *p, f.Usage)
		case *uint64:
			fs.Uint64Var(p, f.Key, *p, f.Usage)
		case *float64:
			fs.Float64Var(p, f.Key, *p, f.Usage)
		case *[]string:
			fs.Var((*listValue)(p), f.Key, f.Usage)
		default:
			return nil, fmt.Errorf("configs: setting %q: no flag for type %v", f.Key, f.Type)
		}
		b.fields[f.Key] = f
	}
	return b, nil
}

// addNotes returns fields with n's notes appended to their usage.
func addNotes(fields []Field, n UsageNoter) ([]Field, error) {
	notes, err := n.UsageNotes()
	if err != nil {
		return nil, fmt.Errorf("configs: usage notes: %w", err)
	}
	keys := map[string]bool{}
	for i := range fields {
		keys[fields[i].Key] = true
		fields[i].Usage += notes[fields[i].Key]
	}
	for _, key := range slices.Sorted(maps.Keys(notes)) {
		if !keys[key] {
			return nil, fmt.Errorf("configs: usage note for %q, which is no setting", key)
		}
	}
	return fields, nil
}

// Apply sets the struct Bind was given from, in order of precedence, the
// flags set on the command line, the config file (-config, or Bind's
// default file), and the values it held when bound. Call it after the flag
// set is parsed. Its error, a config file that cannot be read or holds a
// mistake, is a *UsageError.
func (b *Bound) Apply() error {
	if b.file != "" {
		if err := Load(b.file, b.dst.Addr().Interface()); err != nil {
			return &UsageError{err}
		}
	}
	b.fs.Visit(func(fl *flag.Flag) {
		if f, ok := b.fields[fl.Name]; ok {
			b.dst.FieldByIndex(f.Index).Set(b.flags.FieldByIndex(f.Index))
		}
	})
	return nil
}

// File returns the config file Apply reads ("" for none).
func (b *Bound) File() string { return b.file }

// Duration is a time.Duration setting: a flag and a config-file string in
// time.ParseDuration's form ("500ms", "1m30s"); a JSON number is
// nanoseconds.
type Duration time.Duration

// Set parses a flag's value.
func (d *Duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// String formats the duration as time.Duration does.
func (d *Duration) String() string { return time.Duration(*d).String() }

// UnmarshalJSON reads a string such as "500ms", or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		return d.Set(s)
	}
	var n int64
	if err := json.Unmarshal(data, &n); err != nil {
		return fmt.Errorf("%s is not a duration such as \"500ms\"", data)
	}
	*d = Duration(n)
	return nil
}

// MarshalJSON writes the duration as a string such as "500ms".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// listValue is a []string flag: a space-separated list.
type listValue []string

func (l *listValue) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, " ")
}

func (l *listValue) Set(s string) error {
	*l = strings.Fields(s)
	return nil
}

// Load reads the JSON config file at path into the settings struct dst
// points to: keys present in the file replace its values, others keep them.
// Errors name the file, the line and the key: an unknown key (a misspelt
// setting is not silently ignored), a key given twice, a null value (at any
// depth), a value of the wrong type, bad JSON.
func Load(path string, dst any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := Decode(data, dst); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// Decode is Load for a config file's contents; its errors name the line.
func Decode(data []byte, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("configs: Decode needs a pointer to a struct, not %T", dst)
	}
	fields, err := Fields(v.Elem().Type())
	if err != nil {
		return err
	}
	byKey := map[string]Field{}
	for _, f := range fields {
		byKey[f.Key] = f
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	syntax := func(err error) error {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return fmt.Errorf("line %d: %v", lineOf(data, syn.Offset), err)
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("line %d: unexpected end of the file", lineOf(data, int64(len(data))))
		}
		return fmt.Errorf("line %d: %v", lineOf(data, dec.InputOffset()), err)
	}
	if tok, err := dec.Token(); err != nil {
		return syntax(err)
	} else if tok != json.Delim('{') {
		return fmt.Errorf("line %d: the file must hold a JSON object", lineOf(data, dec.InputOffset()))
	}
	seen := map[string]int{} // key -> its line
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key := tok.(string) // an object's keys are strings, else Token fails
		line := lineOf(data, dec.InputOffset())
		if first, ok := seen[key]; ok {
			return fmt.Errorf("line %d: key %q given twice (first on line %d)", line, key, first)
		}
		seen[key] = line
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntax(err)
		}
		if at, msg := checkValue(data, raw, dec.InputOffset()-int64(len(raw))); msg != "" {
			return fmt.Errorf("line %d: key %q: %s", at, key, msg)
		}
		f, ok := byKey[key]
		if !ok {
			if kebab := strings.ReplaceAll(key, "_", "-"); kebab != key {
				if _, ok := byKey[kebab]; ok {
					return fmt.Errorf("line %d: key %q is now %q (keys are kebab-case, the flag names)", line, key, kebab)
				}
			}
			return fmt.Errorf("line %d: unknown field %q (the keys are the flag names)", line, key)
		}
		if err := json.Unmarshal(raw, v.Elem().FieldByIndex(f.Index).Addr().Interface()); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				return fmt.Errorf("line %d: key %q: %v is not a valid %v", line, key, typ.Value, typ.Type)
			}
			return fmt.Errorf("line %d: key %q: %v", line, key, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("line %d: unexpected data after the JSON object", lineOf(data, dec.InputOffset()))
	}
	return nil
}

// checkValue reports a null, or an object with a key given twice, in the
// JSON value raw, which starts at byte offset start of data: the line and
// what is wrong, or "" when nothing is. json.Unmarshal would take null as "leave the
// setting as it is" and keep the last of two keys, silently.
func checkValue(data, raw []byte, start int64) (line int, msg string) {
	type object struct {
		keys    map[string]int // key -> its line
		wantKey bool           // the next token is a key
	}
	var stack []*object // the objects and arrays (nil) the walk is in
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return 0, ""
		}
		line := lineOf(data, start+dec.InputOffset())
		if err != nil {
			return line, err.Error() // not reached: raw is one whole value
		}
		var in *object
		if len(stack) > 0 {
			in = stack[len(stack)-1]
		}
		if in != nil && in.wantKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				continue
			}
			key := tok.(string) // an object's keys are strings, else Token fails
			if first, ok := in.keys[key]; ok {
				return line, fmt.Sprintf("key %q given twice (first on line %d)", key, first)
			}
			in.keys[key] = line
			in.wantKey = false
			continue
		}
		if in != nil {
			in.wantKey = true // after this value, the next key
		}
		switch tok {
		case nil:
			return line, "null is no value (leave the key out for the default)"
		case json.Delim('{'):
			stack = append(stack, &object{keys: map[string]int{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, nil)
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}
