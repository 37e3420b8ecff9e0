package stage

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CheckBinaries reports an error naming the first of the programs bins
// (paths such as bin/engine), or of the program running, that is missing
// or older than a source file it is built from under root (the
// repository): a Go file other than a test, go.mod, go.sum, the PGO
// profile or an embedded network. Such a program was built from another
// tree (an experiment since undone, say), and a recipe that ran it would
// measure the wrong program. The walk skips hidden directories, testdata,
// and root's bin and data.
func CheckBinaries(root string, bins ...string) error {
	if self, err := os.Executable(); err == nil {
		bins = append(bins[:len(bins):len(bins)], self)
	}
	for _, b := range bins {
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("%s is missing: run make build first", b)
		}
	}
	src, changed, err := newestSource(root)
	if err != nil || src == "" {
		return err
	}
	for _, b := range bins {
		info, err := os.Stat(b)
		if err != nil {
			return err
		}
		if info.ModTime().Before(changed) {
			return fmt.Errorf("%s (built %s) is older than %s (changed %s): run make build first",
				b, info.ModTime().Format(time.DateTime), src, changed.Format(time.DateTime))
		}
	}
	return nil
}

// newestSource returns the most recently modified source file under root
// (as CheckBinaries counts them) and its time; "" when there is none. A
// network or profile counts only beside a package's Go files, where it is
// embedded or read by the build (engine/nnue/default.nnue,
// cmd/engine/default.pgo); elsewhere it is data.
func newestSource(root string) (string, time.Time, error) {
	type file struct {
		path string
		at   time.Time
	}
	var code, beside []file
	goDirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || rel == "bin" || rel == "data") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(name)
		isCode := (ext == ".go" || ext == ".s") && !strings.HasSuffix(name, "_test.go")
		if !isCode && name != "go.mod" && name != "go.sum" && ext != ".nnue" && ext != ".pgo" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f := file{path, info.ModTime()}
		if isCode {
			goDirs[filepath.Dir(path)] = true
		}
		if ext == ".nnue" || ext == ".pgo" {
			beside = append(beside, f)
		} else {
			code = append(code, f)
		}
		return nil
	})
	var newest file
	for _, f := range code {
		if f.at.After(newest.at) {
			newest = f
		}
	}
	for _, f := range beside {
		if goDirs[filepath.Dir(f.path)] && f.at.After(newest.at) {
			newest = f
		}
	}
	return newest.path, newest.at, err
}
