// Package selfplay plays the engine against itself and records every position
// as a training row (SPEC §3): games numbered from a seed, opening diversity,
// adjudication, worker scheduling with a reorder buffer so that output does not
// depend on the number of workers, sharding over many processes, part files,
// resume after an interruption, and PGN.
package selfplay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// Config describes a self-play job and how to run it. The JSON names are the
// command-line flag names, so that a config file sets the same things as
// the flags. The fields above Workers decide the games; the ones below decide
// only how they are produced and where they go.
type Config struct {
	Games int    `json:"games"` // games in the whole job (all shards)
	Seed  uint64 `json:"seed"`  // every game's randomness comes from Seed and its number

	Nodes uint64 `json:"nodes"` // nodes per move (0: no node limit)
	Depth int    `json:"depth"` // depth per move (0: no depth limit); with Nodes, whichever comes first
	Hash  int    `json:"hash"`  // transposition table per worker, MiB

	RandomPlies   int     `json:"random-plies"`   // uniformly random plies at the start
	MultiPVPlies  int     `json:"multipv-plies"`  // plies (after the random ones) chosen among the top lines
	MultiPV       int     `json:"multipv"`        // lines searched on those plies
	MultiPVMargin int     `json:"multipv-margin"` // a line is a candidate within this many cp of the best
	Book          string  `json:"book"`           // EPD or PGN file of openings
	Endgames      string  `json:"endgames"`       // comma-separated material signatures, e.g. "KRPvKR,KQvKR"
	EndgameShare  float64 `json:"endgame-share"`  // share of games started from a generated endgame

	ResignScore int `json:"resign-score"` // adjudicate a win when |score| >= this ... (0: never)
	ResignPlies int `json:"resign-plies"` // ... for this many plies in a row, one side's way
	DrawPly     int `json:"draw-ply"`     // adjudicate a draw from this ply on when ...
	DrawScore   int `json:"draw-score"`   // ... |score| <= this ...
	DrawPlies   int `json:"draw-plies"`   // ... for this many plies in a row (0: never)
	MaxPlies    int `json:"max-plies"`    // the game is a draw by ply cap at this many plies (0: no cap)

	WriteMinPly   int `json:"write-min-ply"`   // record positions from this ply on
	WriteMaxScore int `json:"write-max-score"` // record only positions with |score| <= this (0: all)

	Workers   int    `json:"workers"`    // games played at once (0: one per core)
	Out       string `json:"out"`        // a .parquet file, or a directory of part files
	PartGames int    `json:"part-games"` // games per part file in a directory
	Shard     string `json:"shard"`      // "K/N": this process plays shard K of N ("" or "auto": from the environment)
	PGN       string `json:"pgn"`        // also write the games as PGN here
}

// DefaultConfig returns the defaults of every setting.
func DefaultConfig() Config {
	return Config{
		Games:         100,
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
		WriteMaxScore: 3000,
		Out:           "out.parquet",
		PartGames:     5000,
	}
}

// Validate reports the first setting that cannot be used, by its flag name.
func (c *Config) Validate() error {
	bad := func(name string, v any, why string) error {
		return fmt.Errorf("selfplay: -%s %v: %s", name, v, why)
	}
	switch {
	case c.Games < 1:
		return bad("games", c.Games, "need at least one game")
	case c.Games > maxGames:
		return bad("games", c.Games, fmt.Sprintf("at most %d games in one job", maxGames))
	case c.Nodes == 0 && c.Depth <= 0:
		return errors.New("selfplay: set a per-move budget: -nodes, -depth or both")
	case c.Depth < 0:
		return bad("depth", c.Depth, "must not be negative")
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
	case c.WriteMaxScore < 0:
		return bad("write-max-score", c.WriteMaxScore, "must not be negative")
	case c.Workers < 0:
		return bad("workers", c.Workers, "must not be negative")
	case c.Out == "":
		return bad("out", `""`, "name a .parquet file or a directory")
	case c.PartGames < 1:
		return bad("part-games", c.PartGames, "need at least one game per part file")
	}
	if sh := strings.TrimSpace(c.Shard); sh != "" && sh != "auto" {
		if _, err := ParseShard(sh); err != nil {
			return fmt.Errorf("selfplay: -shard: %w", err)
		}
	}
	if _, err := ParseSignatures(c.Endgames); err != nil {
		return fmt.Errorf("selfplay: -endgames %q: %w", c.Endgames, err)
	}
	return nil
}

// maxGames bounds a job so that game numbers fit the low 32 bits of a game ID.
const maxGames = 1 << 32

// workers returns the number of games played at once.
func (c *Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.NumCPU()
}

// jobConfig is the part of Config that decides the games: two runs whose
// jobConfigs agree produce the same games.
type jobConfig struct {
	Games         int     `json:"games"`
	Seed          uint64  `json:"seed"`
	Nodes         uint64  `json:"nodes"`
	Depth         int     `json:"depth"`
	Hash          int     `json:"hash"`
	RandomPlies   int     `json:"random-plies"`
	MultiPVPlies  int     `json:"multipv-plies"`
	MultiPV       int     `json:"multipv"`
	MultiPVMargin int     `json:"multipv-margin"`
	Book          string  `json:"book"`
	BookSHA256    string  `json:"book-sha256,omitempty"`
	Endgames      string  `json:"endgames"`
	EndgameShare  float64 `json:"endgame-share"`
	ResignScore   int     `json:"resign-score"`
	ResignPlies   int     `json:"resign-plies"`
	DrawPly       int     `json:"draw-ply"`
	DrawScore     int     `json:"draw-score"`
	DrawPlies     int     `json:"draw-plies"`
	MaxPlies      int     `json:"max-plies"`
	WriteMinPly   int     `json:"write-min-ply"`
	WriteMaxScore int     `json:"write-max-score"`
	Shards        int     `json:"shards"`
	Engine        string  `json:"engine"`
}

// LoadConfig reads a JSON config file over base: keys present in the file
// replace base's values, others keep them. Unknown keys are errors, so that a
// misspelt setting is not silently ignored.
func LoadConfig(path string, base Config) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return base, fmt.Errorf("selfplay: config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	c := base
	if err := dec.Decode(&c); err != nil {
		return base, fmt.Errorf("selfplay: config %s: %w", path, describeJSONError(data, dec, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return base, fmt.Errorf("selfplay: config %s:%d: unexpected data after the JSON object", path, lineOf(data, dec.InputOffset()))
	}
	return c, nil
}

// describeJSONError adds the line number to a JSON decoding error.
func describeJSONError(data []byte, dec *json.Decoder, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("line %d: %v", lineOf(data, syn.Offset), err)
	case errors.As(err, &typ):
		return fmt.Errorf("line %d: key %q: %v is not a valid %v", lineOf(data, typ.Offset), typ.Field, typ.Value, typ.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		key := strings.TrimPrefix(err.Error(), "json: unknown field ")
		off := dec.InputOffset()
		if i := bytes.Index(data, []byte(key)); i >= 0 {
			off = int64(i)
		}
		return fmt.Errorf("line %d: unknown field %s (the keys are the flag names)", lineOf(data, off), key)
	}
	return err
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}
