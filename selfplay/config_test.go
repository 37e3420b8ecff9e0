package selfplay

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"chessforge/configs"
	"chessforge/selfplay/match/uciclient"
)

func TestShippedConfigsAreValid(t *testing.T) {
	paths, err := filepath.Glob("../configs/selfplay*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no configs found: %v", err)
	}
	for _, p := range paths {
		c, err := LoadConfig(p, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestShippedConfigShowsEverySetting(t *testing.T) {
	fields, err := configs.Fields(reflect.TypeFor[Config]())
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile("../configs/selfplay.json")
	if err != nil {
		t.Fatal(err)
	}
	var def map[string]any
	if err := json.Unmarshal(shipped, &def); err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		_, ok := def[f.Key]
		if removed := f.Type == reflect.TypeFor[RemovedWriteMaxScore](); ok == removed {
			t.Errorf("configs/selfplay.json: setting %q shown %v, removed %v", f.Key, ok, removed)
		}
	}
}

func TestRemovedWriteMaxScoreSaysToFilterAtReadTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, path, "{\n  \"games\": 5,\n  \"write-max-score\": 3000\n}")
	_, err := LoadConfig(path, DefaultConfig())
	if err == nil || !strings.Contains(err.Error(), "c.json") || !strings.Contains(err.Error(), "line 3") ||
		!strings.Contains(err.Error(), "read-time filter max-score") {
		t.Fatalf("config file error %v; want one naming c.json, line 3 and the read-time filter max-score", err)
	}
	var c Config
	if err := c.WriteMaxScore.Set("0"); !errors.Is(err, ErrWriteMaxScore) {
		t.Fatalf("flag error %v, want ErrWriteMaxScore", err)
	}
}

func TestLoadConfigErrorsNameTheLineAndKey(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown key", "{\n  \"games\": 5,\n  \"gmaes\": 6\n}", `line 3: unknown field "gmaes"`},
		{"wrong type", "{\n  \"games\": \"many\"\n}", `line 2: key "games"`},
		{"syntax", "{\n  \"games\": 5,,\n}", "line 2"},
		{"trailing data", "{\"games\": 5}\n{}", "unexpected data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.json")
			writeFile(t, path, tt.text)
			_, err := LoadConfig(path, DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "c.json") {
				t.Fatalf("error %v, want one naming c.json and %q", err, tt.want)
			}
		})
	}
}

func TestLoadConfigKeepsUnsetValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, path, `{"games": 12, "endgames": "KRPvKR"}`)
	c, err := LoadConfig(path, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Games, want.Endgames = 12, "KRPvKR"
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
}

func TestValidateNamesTheFlag(t *testing.T) {
	tests := []struct {
		set  func(*Config)
		flag string
	}{
		{func(c *Config) { c.Games = 0 }, "-games"},
		{func(c *Config) { c.Nodes, c.Depth = 0, 0 }, "-nodes"},
		{func(c *Config) { c.MultiPV = 1 }, "-multipv"},
		{func(c *Config) { c.EndgameShare = 2 }, "-endgame-share"},
		{func(c *Config) { c.Endgames = "KRvR" }, "-endgames"},
		{func(c *Config) { c.PartGames = 0 }, "-part-games"},
		{func(c *Config) { c.Hash = 0 }, "-hash"},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		tt.set(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.flag) {
			t.Errorf("error %v, want one naming %s", err, tt.flag)
		}
	}
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
}

func TestShardFromEnvironment(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Shard
		wantErr string
	}{
		{"none", nil, Unsharded, ""},
		{"kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "4", "SELFPLAY_SHARDS": "10"}, Shard{K: 5, N: 10}, ""},
		{"kubernetes without total", map[string]string{"JOB_COMPLETION_INDEX": "4"}, Shard{}, "SELFPLAY_SHARDS"},
		{"kubernetes out of range", map[string]string{"JOB_COMPLETION_INDEX": "10", "SELFPLAY_SHARDS": "10"}, Shard{}, "outside"},
		{"slurm from 0", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{K: 1, N: 8}, ""},
		{"slurm from 1", map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{K: 8, N: 8}, ""},
		{"slurm with a step", map[string]string{"SLURM_ARRAY_TASK_ID": "14", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{}, "contiguous"},
		{"slurm garbage", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{}, "SLURM_ARRAY_TASK_ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveShard("auto", func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v, want %v", got, err, tt.want)
			}
		})
	}
	// An explicit -shard wins over the environment.
	got, err := ResolveShard("3/4", func(string) string { return "1" })
	if err != nil || got != (Shard{K: 3, N: 4}) {
		t.Fatalf("explicit shard: %v, %v", got, err)
	}
}

func TestClusterExamplesAgreeWithTheProgram(t *testing.T) {
	k8s, err := os.ReadFile("../configs/selfplay-k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	completions := regexp.MustCompile(`(?m)^\s+completions:\s*(\d+)`).FindSubmatch(k8s)
	shards := regexp.MustCompile(`name: SELFPLAY_SHARDS\s+value: "(\d+)"`).FindSubmatch(k8s)
	if completions == nil || shards == nil || string(completions[1]) != string(shards[1]) {
		t.Fatalf("the Indexed Job's completions %q and SELFPLAY_SHARDS %q must agree", completions, shards)
	}
	n, _ := strconv.Atoi(string(shards[1]))
	for k := range n {
		env := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(k), "SELFPLAY_SHARDS": string(shards[1])}
		if s, err := ResolveShard("", func(v string) string { return env[v] }); err != nil || s != (Shard{K: k + 1, N: n}) {
			t.Fatalf("index %d: shard %v, %v", k, s, err)
		}
	}
	slurm, err := os.ReadFile("../configs/selfplay-slurm-array.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{"k8s": k8s, "slurm": slurm} {
		cfgPath := regexp.MustCompile(`configs/selfplay[\w.-]*\.json`).Find(text)
		if cfgPath == nil || !strings.Contains(string(text), "-resume") {
			t.Fatalf("%s example: needs a config and -resume", name)
		}
		c, err := LoadConfig("../"+string(cfgPath), DefaultConfig())
		if err != nil || c.Games != 100000 {
			t.Fatalf("%s example: config %s: %v, %d games", name, cfgPath, err, c.Games)
		}
	}
	if !regexp.MustCompile(`(?m)^#SBATCH --array=0-\d+$`).Match(slurm) {
		t.Fatal("the Slurm example needs a contiguous array without a step")
	}
}

func TestJobRecordIsTheOneResumeCompares(t *testing.T) {
	// The record's bytes are compared with the ones in files written by
	// earlier runs (and earlier versions): its form must not change.
	cfg := DefaultConfig()
	got, err := jobRecord(&cfg, 1, "v0", "")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"games":100,"seed":1,"nodes":5000,"depth":0,"hash":16,"random-plies":4,"multipv-plies":8,"multipv":4,"multipv-margin":40,"book":"","endgames":"","endgame-share":1,"nnue":true,"resign-score":1000,"resign-plies":6,"draw-ply":80,"draw-score":10,"draw-plies":12,"max-plies":400,"write-min-ply":8,"shards":1,"engine":"v0"}`
	if string(got) != want {
		t.Fatalf("job record\n got %s\nwant %s", got, want)
	}
	// A job of the hand-crafted evaluation keeps the record it had when
	// that was the default: no "nnue" key.
	hce := DefaultConfig()
	hce.NNUE = false
	got, err = jobRecord(&hce, 1, "v0", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(want, `"nnue":true,`, "", 1); string(got) != want {
		t.Fatalf("job record of -nnue=false\n got %s\nwant %s", got, want)
	}
	book := filepath.Join(t.TempDir(), "book.epd")
	writeFile(t, book, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
	cfg.Book = book
	got, err = jobRecord(&cfg, 4, "v0", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"book":"book.epd","book-sha256":"`) || !strings.HasSuffix(string(got), `"shards":4,"engine":"v0"}`) {
		t.Fatalf("job record with a book: %s", got)
	}
}

// TestEveryGameDecidingSettingIsInTheJobRecord changes each setting of
// Config in turn: the ones tagged job:"yes" or "file" must change the
// record -resume compares, the others must not.
func TestEveryGameDecidingSettingIsInTheJobRecord(t *testing.T) {
	fields, err := configFields()
	if err != nil {
		t.Fatal(err)
	}
	if n := reflect.TypeFor[Config]().NumField(); len(fields) != n {
		t.Fatalf("%d of Config's %d fields are settings: every field needs a json key, usage and job tag", len(fields), n)
	}
	base := DefaultConfig()
	before, err := jobRecord(&base, 1, "v0", "")
	if err != nil {
		t.Fatal(err)
	}
	book := filepath.Join(t.TempDir(), "book.epd")
	writeFile(t, book, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
	for _, f := range fields {
		c := DefaultConfig()
		v := reflect.ValueOf(&c).Elem().FieldByIndex(f.Index)
		switch v.Kind() {
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Slice:
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		case reflect.Uint64:
			v.SetUint(v.Uint() + 1)
		case reflect.Float64:
			v.SetFloat(v.Float() / 2)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.String:
			v.SetString(book)
		case reflect.Struct:
			continue // a removed setting, which holds no value
		default:
			t.Fatalf("setting %q: no test change for %v", f.Key, v.Kind())
		}
		after, err := jobRecord(&c, 1, "v0", "")
		if err != nil {
			t.Fatalf("%s: %v", f.Key, err)
		}
		deciding := f.Tag.Get("job") != "no"
		if changed := string(after) != string(before); changed != deciding {
			t.Errorf("setting %q (job:%q): changing it changes the job record: %v", f.Key, f.Tag.Get("job"), changed)
		}
	}
	// The same book under another name is the same job; other contents are not.
	other := filepath.Join(t.TempDir(), "book.epd")
	writeFile(t, other, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
	a, b := DefaultConfig(), DefaultConfig()
	a.Book, b.Book = book, other
	ra, _ := jobRecord(&a, 1, "v0", "")
	rb, _ := jobRecord(&b, 1, "v0", "")
	writeFile(t, other, "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n")
	rc, _ := jobRecord(&b, 1, "v0", "")
	if string(ra) != string(rb) || string(rb) == string(rc) {
		t.Errorf("book records: same contents %v, other contents %v", string(ra) == string(rb), string(rb) != string(rc))
	}
}

func TestWorkersDefaultToTheCPUsTheProcessMayUse(t *testing.T) {
	// GOMAXPROCS, not the machine's core count: a container's CPU limit
	// lowers it (Go 1.25+), and a pod on a big node must not start a
	// worker, and a transposition table, per core of the node.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	c := DefaultConfig()
	if got := c.workers(); got != 3 {
		t.Errorf("-workers 0 with GOMAXPROCS 3: %d workers, want 3", got)
	}
	c.Workers = 5
	if got := c.workers(); got != 5 {
		t.Errorf("-workers 5: %d workers", got)
	}
}

func TestGameHelpNamesTheDefaultsDamaChanges(t *testing.T) {
	fs := flag.NewFlagSet("selfplay", flag.ContinueOnError)
	c := DefaultConfig()
	if _, err := configs.Bind(fs, &c, ""); err != nil {
		t.Fatal(err)
	}
	want := "the game: chess or dama (Italian draughts); with dama, other defaults: nnue false, resign-score 400, resign-plies 8, draw-plies 20"
	if got := fs.Lookup("game").Usage; got != want {
		t.Errorf("-game help %q, want %q", got, want)
	}
}

// TestJobRecordNamesEachKeyOnce: a setting's key in the record must not be
// one the record ends with (shards, engine, network): -engine CMD once
// wrote "engine" twice, and a JSON reader kept only the engine's version.
func TestJobRecordNamesEachKeyOnce(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NNUE = false
	cfg.Engine = "sf -x"
	cfg.EngineOpt = uciclient.OptionList{{Name: "Hash", Value: "8"}}
	cfg.MoveTime = 20
	got, err := jobRecord(&cfg, 1, "Stockfish 16", "net0")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(got))
	seen := map[string]bool{}
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		key := tok.(string)
		if seen[key] {
			t.Errorf("job record %s: key %q twice", got, key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(string(got), `"engine-command":"sf -x"`) || !strings.HasSuffix(string(got), `"engine":"Stockfish 16","network":"net0"}`) {
		t.Errorf("job record %s: want the command under engine-command, the engine's name under engine", got)
	}
}
