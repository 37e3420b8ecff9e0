package verify

import (
	"path/filepath"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/encoder"
)

func TestVerifyFindsExactlyTheCorruptedRow(t *testing.T) {
	const bad = 37
	cases := []struct {
		name   string
		mutate func(r *datasets.Row)
		want   string // in the mismatch's text
	}{
		{"a piece plane", func(r *datasets.Row) { r.Planes[5*64+27] = 1 - r.Planes[5*64+27] }, "plane 5 (white king) square d4"},
		{"the repetition plane", func(r *datasets.Row) {
			for sq := 0; sq < 64; sq++ {
				r.Planes[encoder.PlaneRepetition*64+sq] = 1
			}
		}, "plane 12 (repetitions)"},
		{"the halfmove plane", func(r *datasets.Row) { r.Planes[encoder.PlaneHalfmove*64] += 0.01 }, "halfmove clock"},
		{"the policy", func(r *datasets.Row) { r.Policy = (r.Policy + 1) % encoder.PolicySize }, "policy is"},
		{"best_is_capture", func(r *datasets.Row) { r.BestIsCapture = !r.BestIsCapture }, "best_is_capture"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.parquet")
			rows, err := fixture.Write(path, fixture.Options{Games: 2, Seed: 7, MaxPlies: 60, Mutate: func(i int64, r *datasets.Row) {
				if i == bad {
					c.mutate(r)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Dataset(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != rows || rep.Mismatches != 1 || len(rep.First) != 1 {
				t.Fatalf("%d rows, %d mismatches (%v); want %d rows, 1 mismatch", rep.Rows, rep.Mismatches, rep.First, rows)
			}
			m := rep.First[0]
			if m.Row != bad || m.File != path || !strings.Contains(m.String(), c.want) {
				t.Errorf("mismatch %v; want row %d of %s about %q", m, bad, path, c.want)
			}
		})
	}
}

func TestVerifyPassesCleanDatasets(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name        string
		opts        fixture.Options
		wantPartial bool
	}{
		{"whole games", fixture.Options{Games: 4, Seed: 3, MaxPlies: 120}, false},
		{"write window from ply 12", fixture.Options{Games: 4, Seed: 3, MaxPlies: 120, FromPly: 12}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".parquet")
			rows, err := fixture.Write(path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var progress int64
			rep, err := Dataset(path, Options{Progress: func(n int) { progress += int64(n) }})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != rows || progress != rows || rep.Mismatches != 0 {
				t.Fatalf("%d rows (progress %d), %d mismatches %v; want %d rows, none", rep.Rows, progress, rep.Mismatches, rep.First, rows)
			}
			if rep.Chains != int64(c.opts.Games) {
				t.Errorf("%d chains, want one per game (%d)", rep.Chains, c.opts.Games)
			}
			if (rep.PartialHistory > 0) != c.wantPartial {
				t.Errorf("%d rows with partial history", rep.PartialHistory)
			}
		})
	}
}

func TestVerifyFollowsAGameAcrossAReplacedFEN(t *testing.T) {
	// A FEN replaced by another legal position: the replay disagrees at
	// that row, and the next row (whose FEN follows the true game) disagrees
	// with the replay from the wrong FEN too.
	path := filepath.Join(t.TempDir(), "d.parquet")
	if _, err := fixture.Write(path, fixture.Options{Games: 1, Seed: 5, MaxPlies: 40, Mutate: func(i int64, r *datasets.Row) {
		if i == 20 {
			r.FEN = "8/8/8/4k3/8/8/8/4K3 w - - 0 1"
		}
	}}); err != nil {
		t.Fatal(err)
	}
	rep, err := Dataset(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatches < 1 || rep.First[0].Row != 20 || !strings.Contains(rep.First[0].String(), "replayed") {
		t.Fatalf("%d mismatches, first %v", rep.Mismatches, rep.First)
	}
}
