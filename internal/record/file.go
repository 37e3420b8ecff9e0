package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Marshal returns the record as its line of a history file: compact JSON
// without HTML escaping, fields in Record's order, then a newline.
func Marshal(r Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Append validates r and appends it as one line to the history file at
// path, creating the file and its directory when missing. It refuses a
// record whose id the file already holds, and a file that does not read
// (see Read). The line goes in one write to a file opened for appending,
// then is synced, so that concurrent appenders do not interleave.
func Append(path string, r Record) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("record %s: %w", r.ID, err)
	}
	line, err := Marshal(r)
	if err != nil {
		return fmt.Errorf("record %s: %w", r.ID, err)
	}
	recs, lines, err := readFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if i := slices.IndexFunc(recs, func(o Record) bool { return o.ID == r.ID }); i >= 0 {
			return fmt.Errorf("%s:%d: id: %q is already in the file", path, lines[i], r.ID)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	return f.Close()
}

// Read reads a history file: one record a line, each decoded strictly (no
// unknown field, no field of another kind, no second value on a line, no
// blank line) and validated. An error reads "path:line: field: problem".
func Read(path string) ([]Record, error) {
	recs, _, err := readFile(path)
	return recs, err
}

// readFile is Read, also returning the line of each record.
func readFile(path string) ([]Record, []int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n := bytes.Count(data, []byte("\n")) + 1
		return nil, nil, fmt.Errorf("%s:%d: record: the last line does not end with a newline", path, n)
	}
	var recs []Record
	var lines []int
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if len(data) == 0 {
			break
		}
		r, err := decode([]byte(line))
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		recs = append(recs, r)
		lines = append(lines, i+1)
	}
	return recs, lines, nil
}

// decode decodes and validates one line.
func decode(line []byte) (Record, error) {
	var r Record
	if len(bytes.TrimSpace(line)) == 0 {
		return r, fieldErr("record", "blank line")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return r, decodeErr(err)
	}
	var kind string
	if k, ok := raw["kind"]; ok {
		if err := json.Unmarshal(k, &kind); err != nil {
			return r, fieldErr("kind", "want a string, got %s", k)
		}
	}
	if _, ok := fields[kind]; ok {
		for _, f := range slices.Sorted(maps.Keys(raw)) {
			if !belongs(kind, f) && isField(f) {
				return r, fieldErr(f, "not a field of a %s record", kind)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, decodeErr(err)
	}
	if dec.More() {
		return r, fieldErr("record", "more than one JSON value on the line")
	}
	if err := r.Validate(); err != nil {
		return r, err
	}
	return r, nil
}

// isField reports whether name is a field of some kind of record.
func isField(name string) bool {
	for kind := range fields {
		if belongs(kind, name) {
			return true
		}
	}
	return false
}

// decodeErr names the field of a JSON decoding error.
func decodeErr(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fieldErr(typeErr.Field, "want %s, got a JSON %s", jsonType(typeErr.Type.String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fieldErr("record", "not one JSON object: %v", err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return fieldErr(name, "unknown field")
	}
	return fieldErr("record", "%v", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonType names a Go type of Record's as the JSON it decodes from.
func jsonType(goType string) string {
	t := strings.TrimPrefix(goType, "*")
	switch {
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "record."):
		return "an object"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case t == "float64":
		return "a number"
	}
	return "an integer"
}

// ReadDir reads every *.jsonl file of dir, in the order of their names, and
// checks the history as a whole: each id unique across the files (the
// error names both places) and each supersedes naming a record's id.
func ReadDir(dir string) ([]Record, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var all []Record
	var places []string
	at := map[string]string{}
	for _, path := range paths {
		recs, lines, err := readFile(path)
		if err != nil {
			return nil, err
		}
		for i, r := range recs {
			place := fmt.Sprintf("%s:%d", path, lines[i])
			if first, ok := at[r.ID]; ok {
				return nil, fmt.Errorf("%s: id: %q is already the id of the record at %s", place, r.ID, first)
			}
			at[r.ID] = place
			all = append(all, r)
			places = append(places, place)
		}
	}
	for i, r := range all {
		if r.Supersedes != "" && at[r.Supersedes] == "" {
			return nil, fmt.Errorf("%s: supersedes: no record has the id %q", places[i], r.Supersedes)
		}
	}
	return all, nil
}
