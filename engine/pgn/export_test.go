package pgn

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteRecordLaysOutAnyGame(t *testing.T) {
	r := &Record{
		Tags:         map[string]string{"White": "A", "Round": "2", "Zeta": "z", "Alpha": `"a"`},
		Setup:        []Tag{{"GameType", "22"}, {"FEN", "B:W21:B1"}},
		FirstMove:    7,
		BlackFirst:   true,
		Moves:        []string{"1-5", "21-17", "5-9", "17-13"},
		Comments:     []string{"", "a} note", ""},
		FinalComment: "done",
		Result:       "1-1",
	}
	want := `[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "2"]
[White "A"]
[Black "?"]
[Result "1-1"]
[GameType "22"]
[FEN "B:W21:B1"]
[Alpha "\"a\""]
[Zeta "z"]

7... 1-5 8. 21-17 {a) note} 8... 5-9 9. 17-13 {done} 1-1

`
	var b bytes.Buffer
	if err := WriteRecord(&b, r); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteRecordWrapsAt79Columns(t *testing.T) {
	r := &Record{FirstMove: 1, Result: "*"}
	for range 60 {
		r.Moves = append(r.Moves, "22-18")
	}
	var b bytes.Buffer
	if err := WriteRecord(&b, r); err != nil {
		t.Fatal(err)
	}
	movetext := strings.TrimSpace(b.String()[strings.Index(b.String(), "\n\n")+2:])
	lines := strings.Split(movetext, "\n")
	if len(lines) < 2 {
		t.Fatalf("60 moves on one line: %q", movetext)
	}
	for i, l := range lines {
		// A full line could not take its next word.
		if len(l) > 79 || i+1 < len(lines) && len(l)+1+len(strings.Fields(lines[i+1])[0]) <= 79 {
			t.Errorf("line %d of %d is %d columns: %q", i+1, len(lines), len(l), l)
		}
	}
	if got := strings.Join(strings.Fields(movetext), " "); !strings.HasPrefix(got, "1. 22-18 22-18 2. 22-18") || !strings.HasSuffix(got, "30. 22-18 22-18 *") {
		t.Errorf("movetext %q", got)
	}
}
