package uciclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ParseOption reads Name=Value. The name may contain spaces ("Skill Level=3").
func ParseOption(s string) (Option, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Option{}, fmt.Errorf("option %q: want Name=Value", s)
	}
	return Option{Name: name, Value: strings.TrimSpace(value)}, nil
}

// OptionList is a list of UCI options: a repeatable flag (bin/match's
// -a-opt and -b-opt, bin/selfplay's -engine-opt), each Name=Value, and in a
// config file a JSON list of such strings (["Hash=64", "Skill Level=3"]).
type OptionList []Option

// String writes the options space-separated, each Name=Value.
func (l *OptionList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, o := range *l {
		parts[i] = o.Name + "=" + o.Value
	}
	return strings.Join(parts, " ")
}

// Set adds one option, Name=Value, to the list.
func (l *OptionList) Set(s string) error {
	o, err := ParseOption(s)
	if err != nil {
		return err
	}
	*l = append(*l, o)
	return nil
}

// UnmarshalJSON reads the list from a config file: a JSON list of
// Name=Value strings.
func (l *OptionList) UnmarshalJSON(data []byte) error {
	var words []string
	if err := json.Unmarshal(data, &words); err != nil {
		return fmt.Errorf("want a list of \"Name=Value\" strings")
	}
	var list OptionList
	for _, w := range words {
		if err := list.Set(w); err != nil {
			return err
		}
	}
	*l = list
	return nil
}

// MarshalJSON writes the list as UnmarshalJSON reads it.
func (l OptionList) MarshalJSON() ([]byte, error) {
	words := make([]string, len(l))
	for i, o := range l {
		words[i] = o.Name + "=" + o.Value
	}
	return json.Marshal(words)
}

// SplitCommand splits an engine command line into words on spaces. Single
// quotes keep everything literally, double quotes allow \" and \\ inside, and
// a backslash outside quotes escapes the next character.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("command %q: unterminated single quote", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("command %q: unterminated double quote", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty engine command")
	}
	return words, nil
}
