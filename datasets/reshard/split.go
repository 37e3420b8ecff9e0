package reshard

import (
	"fmt"
	"os"
	"path/filepath"

	"chessforge/datasets"
)

// Names of Split's two files in its output directory.
const (
	TrainFile      = "train.parquet"
	ValidationFile = "val.parquet"
)

// SplitOptions configures Split.
type SplitOptions struct {
	// Val is the share of games for validation, in [0, 1].
	Val float64
	// Seed changes which games go to validation; the same seed gives the
	// same split.
	Seed     uint64
	Progress Progress
}

// SplitReport counts what Split wrote.
type SplitReport struct {
	Train, Validation           string // the files written
	TrainRows, ValidationRows   int64
	TrainGames, ValidationGames int64
}

// IsValidation reports whether the game gameID belongs to the validation
// set of a split with validation share val and seed: a hash of the game id
// and seed, as a fraction in [0, 1), below val. It depends on nothing else,
// so every row of a game goes to the same side, in every run and whatever
// the order or sharding of the rows.
func IsValidation(gameID int64, val float64, seed uint64) bool {
	h := mix(uint64(gameID) ^ mix(seed+0x9e3779b97f4a7c15))
	return float64(h>>11)/(1<<53) < val
}

// mix is the splitmix64 finaliser: a bijection of uint64 with good
// avalanche.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Split writes the rows of the dataset at src into dir/train.parquet and
// dir/val.parquet (dir is created if needed), each game wholly on the side
// IsValidation gives it, rows in their original order. Both files are
// written under other names and renamed into place once both are whole: a
// failed split leaves an earlier split in dir as it was.
func Split(src, dir string, opts SplitOptions) (*SplitReport, error) {
	if opts.Val < 0 || opts.Val > 1 {
		return nil, fmt.Errorf("reshard: validation share %v is not in [0, 1]", opts.Val)
	}
	infos, err := datasets.Stat(src)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reshard: %w", err)
	}
	rep := &SplitReport{Train: filepath.Join(dir, TrainFile), Validation: filepath.Join(dir, ValidationFile)}
	finals := [2]string{rep.Train, rep.Validation}
	staged := [2]string{stagedName(rep.Train), stagedName(rep.Validation)}
	var ws [2]*datasets.Writer
	for i, part := range []string{"train", "validation"} {
		wo, err := writerOptions(infos, map[string]any{"op": "split", "source": src, "val": opts.Val, "seed": opts.Seed, "part": part})
		if err == nil {
			ws[i], err = datasets.Create(staged[i], wo)
		}
		if err != nil {
			if ws[0] != nil {
				ws[0].Abort()
			}
			return nil, err
		}
	}
	games := [2]map[int64]bool{{}, {}}
	err = eachRow(infos, opts.Progress, func(file string, r *datasets.Row) error {
		side := 0
		if IsValidation(r.GameID, opts.Val, opts.Seed) {
			side = 1
		}
		games[side][r.GameID] = true
		if err := ws[side].Write(r); err != nil {
			return fmt.Errorf("reshard: %s: game %d ply %d: %w", file, r.GameID, r.Ply, err)
		}
		return nil
	})
	if err != nil {
		ws[0].Abort()
		ws[1].Abort()
		return nil, err
	}
	if err := ws[0].Close(); err != nil {
		ws[1].Abort()
		return nil, err
	}
	if err := ws[1].Close(); err != nil {
		os.Remove(staged[0])
		return nil, err
	}
	if err := commit(staged, finals); err != nil {
		return nil, fmt.Errorf("reshard: %w", err)
	}
	rep.TrainRows, rep.ValidationRows = ws[0].Rows(), ws[1].Rows()
	rep.TrainGames, rep.ValidationGames = int64(len(games[0])), int64(len(games[1]))
	return rep, nil
}

// stagedName is the name a file of a split is written under until both
// are whole: hidden, and not a .parquet file a reader of dir would take.
func stagedName(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".new")
}

// commit renames the files staged over the files finals, all or none: an
// earlier final file is kept under a hard link until every rename is done,
// and put back if one fails.
func commit(staged, finals [2]string) error {
	var backups [2]string
	var existed [2]bool
	defer func() {
		for _, b := range backups {
			if b != "" {
				os.Remove(b)
			}
		}
	}()
	for i, f := range finals {
		if _, err := os.Lstat(f); err != nil {
			continue
		}
		existed[i] = true
		b := filepath.Join(filepath.Dir(f), "."+filepath.Base(f)+".old")
		os.Remove(b)
		if os.Link(f, b) == nil {
			backups[i] = b
		}
	}
	for i := range finals {
		if err := os.Rename(staged[i], finals[i]); err != nil {
			for _, s := range staged[i:] {
				os.Remove(s)
			}
			for j := range i { // undo the renames done
				switch {
				case backups[j] != "":
					os.Rename(backups[j], finals[j])
					backups[j] = ""
				case !existed[j]:
					os.Remove(finals[j])
				}
			}
			return err
		}
	}
	return nil
}
