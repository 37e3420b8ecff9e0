// Package selfplay plays the engine against itself and records every position
// as a training row (SPEC §3): games numbered from a seed, opening diversity,
// adjudication, worker scheduling with a reorder buffer so that output does not
// depend on the number of workers, sharding over many processes, part files,
// resume after an interruption, and PGN. The game is chess or, with Game
// "dama", Italian draughts (dama.go): one gamePlayer per worker plays each
// game, and the job machinery around it is the same for both.
package selfplay

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"chessforge/configs"
	"chessforge/datasets/jobs"
	"chessforge/encoder"
	"chessforge/selfplay/match/uciclient"
)

// Config describes a self-play job and how to run it. Each setting is
// declared here once: its json name is both its config-file key and its
// command-line flag (see package configs), its usage tag the flag's help,
// and DefaultConfig gives its default. The job tag says whether it decides
// the games: "yes" puts it in the job record that -resume compares (see
// jobRecord), "file" puts the file's name and a hash of its contents there,
// "no" means it decides only how the games are produced and where they go.
type Config struct {
	// Game is the game played: chess, or dama (Italian draughts). Added
	// after the record's form was fixed, it enters the job record only when
	// it is not the default (record:"omitdefault"), so that chess jobs keep
	// their records and resume.
	Game  string `json:"game" job:"yes" record:"omitdefault" usage:"the game: chess or dama (Italian draughts)"`
	Games int    `json:"games" job:"yes" usage:"games in the whole job (all shards)"`
	Seed  uint64 `json:"seed" job:"yes" usage:"seed: the same seed, config and engine give the same games"`

	Nodes uint64 `json:"nodes" job:"yes" usage:"nodes per move (0: none)"`
	Depth int    `json:"depth" job:"yes" usage:"depth per move (0: none); with -nodes, whichever comes first"`
	Hash  int    `json:"hash" job:"yes" usage:"transposition table per worker, MiB"`
	// SoftNodes is the soft node limit (search.Limits.SoftNodes). Added
	// after the record's form was fixed, it enters the job record only
	// when set (record:"omitzero"), so that earlier jobs keep their records.
	SoftNodes uint64 `json:"soft-nodes" job:"yes" record:"omitzero" usage:"soft nodes per move (0: none): each search ends with the iteration that passes this many nodes; below -nodes, which still stops at once (chess only)"`

	RandomPlies   int     `json:"random-plies" job:"yes" usage:"uniformly random plies at the start (not for generated endgames)"`
	MultiPVPlies  int     `json:"multipv-plies" job:"yes" usage:"plies after the random ones chosen at random among the top lines"`
	MultiPV       int     `json:"multipv" job:"yes" usage:"lines searched on those plies"`
	MultiPVMargin int     `json:"multipv-margin" job:"yes" usage:"a line is a candidate within this many centipawns of the best"`
	Book          string  `json:"book" job:"file" usage:"opening book, EPD or PGN"`
	Endgames      string  `json:"endgames" job:"yes" usage:"start from random legal positions of these material signatures, e.g. KRPvKR,KQvKR (dama: kings K and men M with counts, e.g. 2Kv1K1M,3Mv2M)"`
	EndgameShare  float64 `json:"endgame-share" job:"yes" usage:"share of games started from -endgames positions"`

	// NNUE and EvalFile choose the evaluation, as the UCI options Use NNUE
	// and EvalFile do: the network by default, as the engine plays. Added
	// after the record's form was fixed, they enter the job record only
	// when not zero (record:"omitzero": NNUE only when true), so that jobs
	// of either evaluation keep the records they were written with.
	NNUE     bool   `json:"nnue" job:"yes" record:"omitzero" usage:"evaluate with a network (-eval-file, or the one embedded in the engine), as the engine does; -nnue=false plays the hand-crafted evaluation (chess only)"`
	EvalFile string `json:"eval-file" job:"file" record:"omitzero" usage:"network file for -nnue (empty: the network embedded in the engine)"`

	// Engine, EngineOpt and MoveTime play an outside UCI engine instead of
	// ours (uciengine.go). Added after the record's form was fixed, they
	// enter the job record only when set, as NNUE does; Engine under the
	// key engine-command (recordkey), since the record's "engine" is the
	// engine's name and version.
	Engine    string               `json:"engine" job:"yes" record:"omitdefault" recordkey:"engine-command" usage:"play this UCI engine against itself instead of ours (chess): its command line, split into words at spaces ('...' or \"...\" keep spaces in a word)"`
	EngineOpt uciclient.OptionList `json:"engine-opt" job:"yes" record:"omitdefault" usage:"UCI option of -engine, Name=Value, sent as setoption (repeatable; Threads is 1 and Hash is -hash unless set here)"`
	MoveTime  int                  `json:"movetime" job:"yes" record:"omitdefault" usage:"milliseconds per move of -engine (go movetime; 0: none); with -nodes or -depth, whichever comes first"`
	// EngineTimeout bounds each wait for the outside engine; 0 derives it
	// from the budget (see Config.engineTimeout).
	EngineTimeout configs.Duration `json:"engine-timeout" job:"no" usage:"how long to wait for -engine's answer before it loses the game (0: 10s + 2 × -movetime + 50µs × -nodes, or 10m with -depth alone)"`

	ResignScore int `json:"resign-score" job:"yes" usage:"adjudicate a win when |score| >= this (0: never) ..."`
	ResignPlies int `json:"resign-plies" job:"yes" usage:"... for this many plies in a row"`
	DrawPly     int `json:"draw-ply" job:"yes" usage:"adjudicate a draw from this ply on when ..."`
	DrawScore   int `json:"draw-score" job:"yes" usage:"... |score| <= this ..."`
	DrawPlies   int `json:"draw-plies" job:"yes" usage:"... for this many plies in a row (0: never)"`
	MaxPlies    int `json:"max-plies" job:"yes" usage:"ply cap: the game is drawn at this many plies (0: none)"`

	// WriteMinPly starts the write window: a game's rows run from this ply
	// to its end, every position in between (see Game.Rows).
	WriteMinPly int `json:"write-min-ply" job:"yes" usage:"record positions from this ply on (every later one: a game's rows are contiguous)"`
	// WriteMaxScore is the removed score cap: setting it is an error.
	WriteMaxScore RemovedWriteMaxScore `json:"write-max-score" job:"no" usage:"removed: games are recorded whole; drop big scores when reading, with the read-time filter max-score"`

	Workers   int    `json:"workers" job:"no" usage:"games played at once (0: one per CPU the process may use, GOMAXPROCS)"`
	Out       string `json:"out" job:"no" usage:"output: a .parquet file, or a directory of part files (sharded or large jobs always make a directory)"`
	PartGames int    `json:"part-games" job:"no" usage:"games per part file in an output directory"`
	// Shard is not in the job record, but the number of shards it resolves
	// to is: each shard of a job plays different games.
	Shard string `json:"shard" job:"no" usage:"K/N: play shard K of N (default: from JOB_COMPLETION_INDEX+SELFPLAY_SHARDS or SLURM_ARRAY_TASK_*)"`
	PGN   string `json:"pgn" job:"no" usage:"also write the games as PGN to this file (sharded: the shard is added to the name)"`
}

// DefaultConfig returns the defaults of every setting, for chess.
func DefaultConfig() Config {
	return Config{
		Game:          encoder.GameChess,
		Games:         100,
		NNUE:          true,
		Seed:          1,
		Nodes:         5000,
		Hash:          16,
		RandomPlies:   4,
		MultiPVPlies:  8,
		MultiPV:       4,
		MultiPVMargin: 40,
		EndgameShare:  1,
		ResignScore:   1000,
		ResignPlies:   6,
		DrawPly:       80,
		DrawScore:     10,
		DrawPlies:     12,
		MaxPlies:      400,
		WriteMinPly:   8,
		Out:           "out.parquet",
		PartGames:     5000,
	}
}

// DamaDefaults returns the defaults of a draughts job (-game dama): the
// chess defaults but for adjudication, scaled to the draughts evaluation's
// centi-men (a man is 100, a king worth more; a side three men up wins): a
// win is adjudicated at |score| >= 400 for 8 plies in a row, a draw at
// |score| <= 10 for 20 plies in a row from ply 80. Draws by the rules
// (forty moves each without a capture, threefold repetition) often come
// first.
func DamaDefaults() Config {
	c := DefaultConfig()
	c.Game = encoder.GameDama
	c.NNUE = false // the networks are chess's
	c.ResignScore = 400
	c.ResignPlies = 8
	c.DrawPlies = 20
	return c
}

// UsageNotes completes the -game flag's help (see configs.UsageNoter) with
// the settings whose defaults DamaDefaults changes, and their values.
func (Config) UsageNotes() (map[string]string, error) {
	fields, err := configFields()
	if err != nil {
		return nil, err
	}
	chess, dama := DefaultConfig(), DamaDefaults()
	cv, dv := reflect.ValueOf(chess), reflect.ValueOf(dama)
	var changed []string
	for _, f := range fields {
		if f.Key != "game" && !sameValue(cv.FieldByIndex(f.Index), dv.FieldByIndex(f.Index)) {
			changed = append(changed, fmt.Sprintf("%s %v", f.Key, dv.FieldByIndex(f.Index)))
		}
	}
	return map[string]string{"game": "; with dama, other defaults: " + strings.Join(changed, ", ")}, nil
}

// DefaultsFor returns the defaults of a game's jobs: DefaultConfig for
// chess, DamaDefaults for dama.
func DefaultsFor(game string) Config {
	if game == encoder.GameDama {
		return DamaDefaults()
	}
	return DefaultConfig()
}

// playing returns the settings as they play: -nnue, the chess engine's
// evaluation (on by default, as configs/selfplay.json says too), is off
// where our chess evaluation plays no move, in a draughts job (its own
// evaluation) and with an outside -engine, so that neither's job record
// carries it.
func (c Config) playing() Config {
	if c.Game == encoder.GameDama || c.Engine != "" {
		c.NNUE = false
	}
	return c
}

// Validate reports the first setting that cannot be used, by its flag name.
func (c *Config) Validate() error {
	bad := func(name string, v any, why string) error {
		return fmt.Errorf("selfplay: -%s %v: %s", name, v, why)
	}
	if _, err := encoder.LayoutOf(c.Game); err != nil || c.Game == "" {
		return bad("game", c.Game, "want chess or dama")
	}
	if c.Game == encoder.GameDama {
		switch {
		case c.Book != "":
			return bad("book", c.Book, "opening books are for chess; draughts games start from the start position and -random-plies, or from -endgames")
		case c.EvalFile != "":
			return bad("eval-file", c.EvalFile, "the networks are for chess; draughts is played with its own evaluation (engine/dama/eval)")
		case c.SoftNodes > 0:
			return bad("soft-nodes", c.SoftNodes, "a soft node limit is the chess search's; draughts searches by -nodes and -depth")
		}
	}
	if err := c.checkEngine(); err != nil {
		return err
	}
	switch {
	case c.Games < 1:
		return bad("games", c.Games, "need at least one game")
	case c.Games > maxGames:
		return bad("games", c.Games, fmt.Sprintf("at most %d games in one job", maxGames))
	case c.Nodes == 0 && c.Depth <= 0 && c.MoveTime <= 0 && c.SoftNodes == 0:
		if c.Engine != "" {
			return errors.New("selfplay: set a per-move budget: -nodes, -depth, -movetime or several")
		}
		return errors.New("selfplay: set a per-move budget: -nodes, -soft-nodes, -depth or more than one")
	case c.SoftNodes > 0 && c.Nodes > 0 && c.SoftNodes >= c.Nodes:
		return fmt.Errorf("selfplay: -soft-nodes %d: -nodes %d would stop every search first; set -nodes above it, or 0 for none", c.SoftNodes, c.Nodes)
	case c.Depth < 0:
		return bad("depth", c.Depth, "must not be negative")
	case c.EvalFile != "" && !c.NNUE:
		return bad("eval-file", c.EvalFile, "needs the network, and -nnue=false plays the hand-crafted evaluation, which reads no file")
	case c.Hash < 1:
		return bad("hash", c.Hash, "need at least 1 MiB")
	case c.RandomPlies < 0:
		return bad("random-plies", c.RandomPlies, "must not be negative")
	case c.MultiPVPlies < 0:
		return bad("multipv-plies", c.MultiPVPlies, "must not be negative")
	case c.MultiPVPlies > 0 && c.MultiPV < 2:
		return bad("multipv", c.MultiPV, "choosing among the top lines needs at least 2")
	case c.MultiPVMargin < 0:
		return bad("multipv-margin", c.MultiPVMargin, "must not be negative")
	case c.EndgameShare < 0 || c.EndgameShare > 1:
		return bad("endgame-share", c.EndgameShare, "must be between 0 and 1")
	case c.ResignScore < 0 || c.ResignPlies < 0 || (c.ResignScore > 0 && c.ResignPlies == 0):
		return bad("resign-plies", c.ResignPlies, "resigning needs -resign-score > 0 and -resign-plies > 0")
	case c.DrawScore < 0 || c.DrawPlies < 0 || c.DrawPly < 0:
		return bad("draw-plies", c.DrawPlies, "draw adjudication settings must not be negative")
	case c.MaxPlies < 0:
		return bad("max-plies", c.MaxPlies, "must not be negative")
	case c.WriteMinPly < 0:
		return bad("write-min-ply", c.WriteMinPly, "must not be negative")
	case c.Workers < 0:
		return bad("workers", c.Workers, "must not be negative")
	case c.Out == "":
		return bad("out", `""`, "name a .parquet file or a directory")
	case c.PartGames < 1:
		return bad("part-games", c.PartGames, "need at least one game per part file")
	}
	if sh := strings.TrimSpace(c.Shard); sh != "" && sh != "auto" {
		if _, err := jobs.ParseShard(sh); err != nil {
			return fmt.Errorf("selfplay: -shard: %w", err)
		}
	}
	if err := c.checkEndgames(); err != nil {
		return fmt.Errorf("selfplay: -endgames %q: %w", c.Endgames, err)
	}
	return nil
}

// checkEndgames parses -endgames as the game's signatures.
func (c *Config) checkEndgames() error {
	if c.Game == encoder.GameDama {
		_, err := parseDamaSignatures(c.Endgames)
		return err
	}
	_, err := ParseSignatures(c.Endgames)
	return err
}

// ErrWriteMaxScore is the error for the removed setting write-max-score.
var ErrWriteMaxScore = errors.New("write-max-score is removed: self-play records every position of a game " +
	"from -write-min-ply on, so that games replay whole; drop big scores when reading instead, with the " +
	"read-time filter max-score (bin/tune -max-score, bin/dataset export -max-score, the Python loader's max_score)")

// RemovedWriteMaxScore is the setting write-max-score, a write filter that
// dropped rows in the middle of games. It is kept only to say so: a flag or
// a config-file value is ErrWriteMaxScore. It holds no value: it encodes
// as JSON null, and null (not set) decodes without error.
type RemovedWriteMaxScore struct{}

// String returns "" (the flag has no value).
func (RemovedWriteMaxScore) String() string { return "" }

// Set fails with ErrWriteMaxScore.
func (*RemovedWriteMaxScore) Set(string) error { return ErrWriteMaxScore }

// UnmarshalJSON fails with ErrWriteMaxScore unless data is null.
func (*RemovedWriteMaxScore) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	return ErrWriteMaxScore
}

// MarshalJSON returns null.
func (RemovedWriteMaxScore) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// maxGames bounds a job so that game numbers fit the low 32 bits of a game ID.
const maxGames = 1 << 32

// workers returns the number of games played at once: by default one per
// CPU the process may use, which runtime.GOMAXPROCS reports: since Go 1.25
// it honours a container's CPU limit (cgroup quota) as well as the CPU
// affinity mask, where runtime.NumCPU counts every core of the machine.
func (c *Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// jobRecord returns the job record: the JSON object of the settings that
// decide the games (job:"yes"; for job:"file", the file's base name and
// the SHA-256 of its contents under the key with "-sha256" added), in
// declaration order, then the number of shards and the engine's version,
// then, with a network, its id (network). A setting tagged
// record:"omitdefault" is left out while it has DefaultConfig's value, one
// tagged record:"omitzero" while it is its type's zero value; a setting
// tagged recordkey:"K" is recorded under K instead of its name.
// Two runs whose records agree produce the same games; -resume compares
// them byte for byte with the record in the files already written.
func jobRecord(cfg *Config, shards int, engine, network string) ([]byte, error) {
	fields, err := configFields()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	add := func(key string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, "%q:%s", key, data)
		return nil
	}
	cv := reflect.ValueOf(cfg).Elem()
	def := DefaultConfig()
	dv := reflect.ValueOf(&def).Elem()
	for _, f := range fields {
		fv := cv.FieldByIndex(f.Index)
		switch f.Tag.Get("record") {
		case "omitdefault":
			if sameValue(fv, dv.FieldByIndex(f.Index)) {
				continue
			}
		case "omitzero":
			if fv.IsZero() {
				continue
			}
		}
		v := fv.Interface()
		switch f.Tag.Get("job") {
		case "yes":
			err = add(recordKey(f), v)
		case "file":
			path := v.(string)
			name := path
			if path != "" {
				name = filepath.Base(path)
			}
			if err = add(f.Key, name); err == nil && path != "" {
				var data []byte
				if data, err = os.ReadFile(path); err != nil {
					return nil, fmt.Errorf("selfplay: %w", err)
				}
				sum := sha256.Sum256(data)
				err = add(f.Key+"-sha256", hex.EncodeToString(sum[:]))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if err := add("shards", shards); err != nil {
		return nil, err
	}
	if err := add("engine", engine); err != nil {
		return nil, err
	}
	if network != "" {
		if err := add("network", network); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// sameValue reports whether two values of a setting are the same; an empty
// list is the same as none.
func sameValue(a, b reflect.Value) bool {
	if a.Kind() == reflect.Slice {
		return (a.Len() == 0 && b.Len() == 0) || reflect.DeepEqual(a.Interface(), b.Interface())
	}
	return a.Equal(b)
}

// recordKey is a setting's key in the job record: its name, or its
// recordkey tag.
func recordKey(f configs.Field) string {
	if k := f.Tag.Get("recordkey"); k != "" {
		return k
	}
	return f.Key
}

// configFields returns Config's settings, checking that each one says
// whether it decides the games and that its key in the job record is not
// one of the keys the record ends with.
func configFields() ([]configs.Field, error) {
	fields, err := configs.Fields(reflect.TypeFor[Config]())
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if j := f.Tag.Get("job"); j != "yes" && j != "no" && !(j == "file" && f.Type.Kind() == reflect.String) {
			return nil, fmt.Errorf("selfplay: Config setting %q: job tag %q, want yes, no or file", f.Key, j)
		}
		switch recordKey(f) {
		case "shards", "engine", "network":
			return nil, fmt.Errorf("selfplay: Config setting %q: its job record key %q is the record's own: tag it recordkey", f.Key, recordKey(f))
		}
	}
	return fields, nil
}

// LoadConfig reads a JSON config file over base: keys present in the file
// replace base's values, others keep them. Unknown keys are errors, so that a
// misspelt setting is not silently ignored; errors name the file and line.
func LoadConfig(path string, base Config) (Config, error) {
	c := base
	if err := configs.Load(path, &c); err != nil {
		return base, fmt.Errorf("selfplay: %w", err)
	}
	return c, nil
}
