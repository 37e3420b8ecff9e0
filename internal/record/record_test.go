package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// oneOfEach is a valid record of each kind, with most of its fields set.
func oneOfEach() []Record {
	return []Record{
		{Kind: KindMatch, ID: "2026-12-01-capture-futility-1a2b3c", Date: "2026-12-01T10:00:00Z",
			What: "capture futility at 4+0.04 <&>", Commit: "1c9bad8", Source: "README.md@32516ba", Note: "kept",
			Engines: []Engine{
				{Name: "chessforge 0.1.0", Command: "bin/engine", Build: "chessforge 0.1.0", Network: "1e3bf8638d5e0a3e",
					Eval: "nnue", Options: map[string]string{"Threads": "1"}},
				{Name: "stockfish", Command: "/usr/games/stockfish", Options: map[string]string{"UCI_Elo": "2850", "UCI_LimitStrength": "true"}},
			},
			TC: "clock=4+0.04", Game: "chess", Openings: "random-plies=8", Seed: ptr(uint64(0)), Games: 563,
			WDL: []int{200, 163, 200}, Penta: []int{10, 50, 161, 50, 10}, Elo: ptr(1.9), EloCI: ptr(16.6),
			SPRT:    &SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05, LLR: 1.2, Lower: -2.94, Upper: 2.94},
			Verdict: "undecided", Ended: "interrupted", Kept: ptr(false), WallS: ptr(3600.5), Concurrency: 2},
		{Kind: KindNetwork, ID: "net-1e3bf8638d5e0a3e", Date: "2026-11-20", What: "256 wide from scratch",
			Network: "1e3bf8638d5e0a3e", Parent: "9662f71f33e1868d", Arch: "768x2-256-1-screlu", Data: "self-play at level 112",
			Positions: 35_700_000, Command: "chessforge-nnue train", Epochs: []Epoch{{1, ptr(0.05), ptr(0.051)}, {2, ptr(0.04), nil}},
			PawnScale: ptr(276.0), Gate: "2026-12-01-capture-futility-1a2b3c", Kept: ptr(true), Embedded: ptr(true)},
		{Kind: KindCycle, ID: "cycle-3", Date: "2026-11-21", What: "loop-nnue cycle 3", Loop: "loop-nnue", Cycle: ptr(0),
			Stages: []Stage{{"selfplay", ptr(12.5)}, {"train", ptr(0.0)}}, Verdict: "reverted", Match: "m1", Network: "9662f71f33e1868d"},
		{Kind: KindTune, ID: "texel-1", Date: "2026-11-22", What: "texel on 1 M positions", Tool: "texel", Data: "out.parquet",
			Iterations: 100, Params: map[string]float64{"PawnMG": 82}, Figures: map[string]float64{"k": 1.1}, Match: "m2"},
		{Kind: KindBench, ID: "bench-search", Date: "2026-11-23", What: "bench at depth 13", Subject: "search",
			Command: "bin/engine bench", Figures: map[string]float64{"nodes": 2339207, "nps": 2130000}, Machine: "2 cores"},
	}
}

func TestRecordsOfEachKindRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "h.jsonl")
	want := oneOfEach()
	for _, r := range want {
		if err := Append(path, r); err != nil {
			t.Fatalf("Append %s: %v", r.ID, err)
		}
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != len(want) {
		t.Errorf("%d lines, want %d", n, len(want))
	}
	if !strings.Contains(string(data), `"what":"capture futility at 4+0.04 <&>"`) {
		t.Errorf("the JSON escapes HTML or is not compact:\n%s", data)
	}
	if !strings.Contains(string(data), `"seed":0`) {
		t.Errorf("a zero seed is left out:\n%s", data)
	}
}

func TestAppendRefusesAnIDAlreadyInTheFileAndAnInvalidRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	r := oneOfEach()[4]
	if err := Append(path, r); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, r); err == nil || err.Error() != path+`:1: id: "bench-search" is already in the file` {
		t.Errorf("second Append: %v", err)
	}
	r.ID = "bench-2"
	r.Subject = "gpu"
	if err := Append(path, r); err == nil || !strings.Contains(err.Error(), "subject: want search, perft") {
		t.Errorf("Append of an invalid record: %v", err)
	}
	if recs, err := Read(path); err != nil || len(recs) != 1 {
		t.Errorf("after the refusals the file holds %d records (%v), want 1", len(recs), err)
	}
}

const goodMatch = `{"kind":"match","id":"m1","date":"2026-12-01","what":"x","engines":[{"name":"a"},{"name":"b"}],"tc":"nodes=20000","games":4,"wdl":[1,2,1],"elo":0`

func TestReadNamesTheFileTheLineAndTheField(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"good first line is line 1", goodMatch + "}", ""},
		{"blank line", "", "record: blank line"},
		{"not JSON", "{", "record: not one JSON object: unexpected end of JSON input"},
		{"two values", goodMatch + "} {}", "record: not one JSON object: invalid character '{' after top-level value"},
		{"unknown field", goodMatch + `,"colour":"red"}`, "colour: unknown field"},
		{"bad elo bound", goodMatch + `,"elo_bound":"over"}`, `elo_bound: want above or below, got "over"`},
		{"elo bound with an interval", goodMatch + `,"elo_bound":"above","elo_ci":3}`, "elo_bound: a bound has no interval: elo_ci must be absent"},
		{"unknown engine field", strings.Replace(goodMatch, `{"name":"a"}`, `{"name":"a","elo":3}`, 1) + "}", "elo: unknown field"},
		{"field of another kind", goodMatch + `,"arch":"768"}`, "arch: not a field of a match record"},
		{"wrong type", strings.Replace(goodMatch, `"games":4`, `"games":"4"`, 1) + "}", "games: want an integer, got a JSON string"},
		{"wrong type inside", strings.Replace(goodMatch, `{"name":"a"}`, `{"name":7}`, 1) + "}", "engines.name: want a string, got a JSON number"},
		{"bad kind", `{"kind":"game","id":"x","date":"2026-12-01","what":"x"}`, `kind: want match, network, cycle, tune or bench, got "game"`},
		{"missing id", strings.Replace(goodMatch, `"id":"m1",`, "", 1) + "}", "id: missing"},
		{"bad id", strings.Replace(goodMatch, `"id":"m1"`, `"id":"M 1"`, 1) + "}", `id: want [a-z0-9][a-z0-9._-]*, got "M 1"`},
		{"long id", strings.Replace(goodMatch, `"id":"m1"`, `"id":"`+strings.Repeat("a", 81)+`"`, 1) + "}", "id: 81 characters, want at most 80"},
		{"bad date", strings.Replace(goodMatch, `"2026-12-01"`, `"1 Dec 2026"`, 1) + "}", `date: want RFC 3339 (2026-11-28T14:03:00Z) or a day (2026-11-28), got "1 Dec 2026"`},
		{"long what", strings.Replace(goodMatch, `"what":"x"`, `"what":"`+strings.Repeat("w", 121)+`"`, 1) + "}", "what: 121 characters, want at most 120"},
		{"bad commit", goodMatch + `,"commit":"xyz"}`, `commit: want 7 to 40 lower-case hex digits, got "xyz"`},
		{"wdl sum", strings.Replace(goodMatch, `[1,2,1]`, `[1,2,2]`, 1) + "}", "wdl: want three counts that sum to games (4), got [1 2 2]"},
		{"score with wdl", goodMatch + `,"score":0.5}`, "score: only where wdl is missing"},
		{"score range", strings.Replace(goodMatch, `"wdl":[1,2,1]`, `"score":1.5`, 1) + "}", "score: want a fraction from 0 to 1, got 1.5"},
		{"penta sum", goodMatch + `,"penta":[0,0,1,0,0]}`, "penta: want five counts that sum to the game pairs (2), got [0 0 1 0 0]"},
		{"verdict without sprt", goodMatch + `,"verdict":"H1"}`, "verdict: only with sprt"},
		{"bad verdict", goodMatch + `,"sprt":{"elo0":0,"elo1":5,"alpha":0.05,"beta":0.05,"llr":0,"lower":-2.9,"upper":2.9},"verdict":"yes"}`, `verdict: want H1, H0 or undecided, got "yes"`},
		{"bad tc", strings.Replace(goodMatch, `nodes=20000`, `20k nodes`, 1) + "}", `tc: want nodes=N, depth=N, movetime=MS, clock=S+INC or a:TC/b:TC, got "20k nodes"`},
		{"one engine", strings.Replace(goodMatch, `,{"name":"b"}`, "", 1) + "}", "engines: want 2 engines (A, B), got 1"},
		{"engine network", strings.Replace(goodMatch, `{"name":"b"}`, `{"name":"b","network":"abc"}`, 1) + "}", `engines[1].network: want a network id of 16 hex digits, got "abc"`},
		{"missing elo", strings.Replace(goodMatch, `,"elo":0`, "", 1) + "}", "elo: missing"},
		{"network without kept", `{"kind":"network","id":"n","date":"2026-12-01","what":"x","network":"0123456789abcdef","parent":"hce","arch":"a"}`, "kept: missing"},
		{"network parent", `{"kind":"network","id":"n","date":"2026-12-01","what":"x","network":"0123456789abcdef","parent":"none","arch":"a","kept":true}`, `parent: want hce or a network id of 16 hex digits, got "none"`},
		{"epoch loss", `{"kind":"network","id":"n","date":"2026-12-01","what":"x","network":"0123456789abcdef","parent":"hce","arch":"a","kept":true,"epochs":[{"epoch":1}]}`, "epochs[0].train_loss: missing"},
		{"cycle verdict", `{"kind":"cycle","id":"c","date":"2026-12-01","what":"x","loop":"loop","stages":[{"name":"s","seconds":1}],"verdict":"H1"}`, `verdict: want kept, reverted, undecided or failed, got "H1"`},
		{"bench figures", `{"kind":"bench","id":"b","date":"2026-12-01","what":"x","subject":"search","command":"bin/engine bench"}`, "figures: missing"},
		{"tune tool", `{"kind":"tune","id":"t","date":"2026-12-01","what":"x","tool":"adam"}`, `tool: want texel or spsa, got "adam"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "engine.jsonl")
			// The bad line is the second, after a good one.
			good := strings.Replace(goodMatch, `"m1"`, `"m0"`, 1) + "}"
			if err := os.WriteFile(path, []byte(good+"\n"+tc.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read(path)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Read: %v", err)
			case tc.want != "" && (err == nil || err.Error() != path+":2: "+tc.want):
				t.Errorf("Read: %v\nwant %s:2: %s", err, path, tc.want)
			}
		})
	}
}

func TestReadRefusesAFileWithoutItsLastNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte(goodMatch+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || err.Error() != path+":1: record: the last line does not end with a newline" {
		t.Errorf("Read: %v", err)
	}
	if err := Append(path, oneOfEach()[4]); err == nil {
		t.Error("Append to a file without its last newline succeeded")
	}
}

func TestReadDirChecksIDsAcrossFilesAndSupersedes(t *testing.T) {
	write := func(dir, name string, lines ...string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec := func(id, extra string) string {
		return strings.Replace(goodMatch, `"m1"`, `"`+id+`"`, 1) + extra + "}"
	}

	dir := t.TempDir()
	write(dir, "a.jsonl", rec("m1", ""), rec("m2", ""))
	write(dir, "b.jsonl", rec("m3", `,"supersedes":"m1"`), rec("m2", ""))
	write(dir, "notes.txt", "not a record")
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if _, err := ReadDir(dir); err == nil || err.Error() != b+`:2: id: "m2" is already the id of the record at `+a+":2" {
		t.Errorf("ReadDir with a duplicate id: %v", err)
	}

	write(dir, "b.jsonl", rec("m3", `,"supersedes":"m9"`))
	if _, err := ReadDir(dir); err == nil || err.Error() != b+`:1: supersedes: no record has the id "m9"` {
		t.Errorf("ReadDir with a dangling supersedes: %v", err)
	}

	write(dir, "b.jsonl", rec("m3", `,"supersedes":"m1"`))
	recs, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, " ") != "m1 m2 m3" {
		t.Errorf("ids %v, want m1 m2 m3 in the order of the files", ids)
	}
}

func TestNewIDIsADaySlugAndHash(t *testing.T) {
	t1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	id := NewID(t1, "capture futility at 4+0.04")
	if !regexp.MustCompile(`^2026-12-01-capture-futility-at-4-0-04-[0-9a-f]{6}$`).MatchString(id) {
		t.Errorf("NewID = %q", id)
	}
	if again := NewID(t1, "capture futility at 4+0.04"); again != id {
		t.Errorf("NewID is not a function of its arguments: %q, %q", id, again)
	}
	if other := NewID(t1.Add(time.Second), "capture futility at 4+0.04"); other == id {
		t.Errorf("two times give the same id %q", id)
	}
	long := NewID(t1, strings.Repeat("Very long title, ", 10))
	if err := checkID("id", long, true); err != nil || len(long) != len("2026-12-01-")+40+len("-abcdef") {
		t.Errorf("NewID of a long what = %q (%v)", long, err)
	}
	if got := NewID(t1, "+++"); !regexp.MustCompile(`^2026-12-01-[0-9a-f]{6}$`).MatchString(got) {
		t.Errorf("NewID without letters = %q", got)
	}
}

func TestValidateRefusesAFieldOfAnotherKind(t *testing.T) {
	r := oneOfEach()[4]
	r.Games = 3
	if err := r.Validate(); err == nil || err.Error() != "games: not a field of a bench record" {
		t.Errorf("Validate: %v", err)
	}
}

func TestCheckWhatAndClipWhat(t *testing.T) {
	long := strings.Repeat("é", MaxWhat+1)
	for _, tt := range []struct {
		what string
		ok   bool
	}{{"", true}, {"capture futility at 4+0.04", true}, {long[:len(long)-2], true}, {long, false}, {"two\nlines", false}, {"cr\r", false}} {
		if err := CheckWhat(tt.what); (err == nil) != tt.ok {
			t.Errorf("CheckWhat(%q): %v, want ok %v", tt.what, err, tt.ok)
		}
	}
	if got := ClipWhat(long); got != long[:len(long)-2] || CheckWhat(got) != nil {
		t.Errorf("ClipWhat cut %d characters to %d", MaxWhat+1, len([]rune(got)))
	}
	if got := ClipWhat("short"); got != "short" {
		t.Errorf("ClipWhat(short) = %q", got)
	}
}

func TestRoundWritesNoNegativeZero(t *testing.T) {
	for _, tc := range []struct {
		x, want float64
		text    string
	}{{-0.04, 0, "0"}, {-0.05, -0.1, "-0.1"}, {12.345, 12.3, "12.3"}, {2419.96, 2420, "2420"}} {
		got := Round(tc.x, 1)
		if b, _ := json.Marshal(got); got != tc.want || string(b) != tc.text {
			t.Errorf("Round(%v, 1) = %v, JSON %s; want %s", tc.x, got, b, tc.text)
		}
	}
}
