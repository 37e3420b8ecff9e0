// Package reshard rewrites datasets into new files: Split divides one into
// training and validation sets by game, Merge joins shards into one file,
// optionally dropping duplicate positions. The new files record where they
// came from in their metadata.
package reshard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"chessforge/datasets"
)

// Progress is told how many more rows have been handled; nil shows nothing.
type Progress func(rows int)

// writerOptions returns the options of a file made from the files of
// infos (all of one game, see statAll) by the operation op (a JSON object
// naming it and its settings): the sources' layout, their engine versions, a config that holds op and every distinct
// source config with the files it came from, and the further metadata
// keys on which all sources agree.
func writerOptions(infos []datasets.FileInfo, op map[string]any) (datasets.WriterOptions, error) {
	type source struct {
		Files  []string        `json:"files"`
		Config json.RawMessage `json:"config"`
	}
	var (
		versions []string
		sources  []source
		extra    map[string]string
	)
	for i, info := range infos {
		v := info.Metadata[datasets.KeyEngineVersion]
		if !contains(versions, v) {
			versions = append(versions, v)
		}
		cfg := info.Metadata[datasets.KeyConfig]
		if !json.Valid([]byte(cfg)) {
			cfg, _ = marshal(cfg) // keep a malformed config as a string
		}
		found := false
		for k := range sources {
			if string(sources[k].Config) == cfg {
				sources[k].Files = append(sources[k].Files, info.Path)
				found = true
			}
		}
		if !found {
			sources = append(sources, source{Files: []string{info.Path}, Config: json.RawMessage(cfg)})
		}
		if i == 0 {
			extra = map[string]string{}
			for k, v := range info.Metadata {
				if !datasets.IsWriterKey(k) {
					extra[k] = v
				}
			}
			continue
		}
		for k, v := range extra {
			if info.Metadata[k] != v {
				delete(extra, k)
			}
		}
	}
	cfg, err := json.Marshal(map[string]any{"reshard": op, "sources": sources})
	if err != nil {
		return datasets.WriterOptions{}, err
	}
	return datasets.WriterOptions{Layout: infos[0].Layout, EngineVersion: strings.Join(versions, ", "), Config: cfg, Metadata: extra}, nil
}

func marshal(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// statAll returns the files of every dataset path, in order, failing on a
// file named twice or on files of two games (a dataset holds one game).
func statAll(paths []string) ([]datasets.FileInfo, error) {
	var infos []datasets.FileInfo
	seen := map[string]bool{}
	for _, p := range paths {
		in, err := datasets.Stat(p)
		if err != nil {
			return nil, err
		}
		for _, info := range in {
			if seen[info.Path] {
				return nil, fmt.Errorf("reshard: %s is given twice", info.Path)
			}
			seen[info.Path] = true
		}
		infos = append(infos, in...)
	}
	if err := datasets.SameGame(infos); err != nil {
		return nil, fmt.Errorf("reshard: %w", err)
	}
	return infos, nil
}

// eachRow calls fn for every row of the files, in order, with the row's
// file.
func eachRow(infos []datasets.FileInfo, progress Progress, fn func(file string, r *datasets.Row) error) error {
	var row datasets.Row
	for _, info := range infos {
		r, err := datasets.Open(info.Path, nil)
		if err != nil {
			return err
		}
		n := 0
		for {
			err := r.Read(&row)
			if errors.Is(err, io.EOF) {
				break
			}
			if err == nil {
				err = fn(info.Path, &row)
			}
			if err != nil {
				r.Close()
				return err
			}
			if n++; n == 4096 {
				if progress != nil {
					progress(n)
				}
				n = 0
			}
		}
		r.Close()
		if progress != nil && n > 0 {
			progress(n)
		}
	}
	return nil
}
