package configs

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// NotAnInput checks, before any work starts, that the output file out is
// none of the inputs, each a file, a directory or a glob as the dataset
// readers take them. out is one of them when it is the same file as one,
// by identity rather than spelling (a symbolic or hard link, "./x" and
// "d/../x" included), or when it lies in an input directory or would match
// an input glob, whose files a reader takes for its own. Inputs that name
// nothing are left to the reader to report. The error is a *UsageError
// naming both, for the caller to prefix with the flag:
//
//	-out x.parquet: x.parquet is the input ./x.parquet: choose another output
func NotAnInput(out string, inputs ...string) error {
	ost, oerr := os.Stat(out)
	pst, perr := os.Stat(parent(out))
	for f, st := range inputFiles(inputs) {
		if oerr == nil && os.SameFile(ost, st) {
			return Usagef("%s is the input %s: choose another output", out, f)
		}
		if st.IsDir() && perr == nil && os.SameFile(pst, st) {
			return Usagef("%s lies in the input directory %s, whose files are read as the input: choose another output", out, f)
		}
	}
	for _, in := range inputs {
		if !isGlob(in) || perr != nil {
			continue
		}
		if ok, _ := filepath.Match(filepath.Base(in), filepath.Base(out)); !ok {
			continue
		}
		for _, d := range existing(filepath.Dir(in)) {
			if st, err := os.Stat(d); err == nil && os.SameFile(pst, st) {
				return Usagef("%s matches the input %s: choose another output", out, in)
			}
		}
	}
	return nil
}

// NotAnInputDir is NotAnInput for an output directory out that the command
// replaces whole: no input may be out or lie anywhere inside it.
func NotAnInputDir(out string, inputs ...string) error {
	ost, err := os.Stat(out)
	if err != nil {
		return nil // nothing lies in a directory that does not exist
	}
	// The kernel's reading of the spelling, and the lexical one that
	// filepath.Clean gives, which a writer may use.
	var roots []string
	for _, o := range []string{out, filepath.Clean(out)} {
		if r, err := realPath(o); err == nil {
			roots = append(roots, r)
		}
	}
	for f, st := range inputFiles(inputs) {
		if os.SameFile(ost, st) {
			return Usagef("%s is the input %s: choose another output", out, f)
		}
		r, err := realPath(f)
		if err != nil {
			continue
		}
		for _, root := range roots {
			if Within(root, r) {
				return Usagef("%s holds the input %s, which replacing it would delete: choose another output", out, f)
			}
		}
	}
	return nil
}

// inputFiles yields every existing file or directory that inputs name
// (files, directories and globs as the dataset readers take them), with
// its FileInfo.
func inputFiles(inputs []string) iter.Seq2[string, fs.FileInfo] {
	return func(yield func(string, fs.FileInfo) bool) {
		for _, in := range inputs {
			if in == "" {
				continue
			}
			for _, f := range existing(in) {
				if st, err := os.Stat(f); err == nil && !yield(f, st) {
					return
				}
			}
		}
	}
}

// Within reports whether path is dir or lies below it, by their spellings
// (both absolute, or both relative to one directory).
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// NewOutputDir checks, before any work starts and without making
// anything, that the output directory path can be written: path must be a
// directory that takes new files or, when it does not exist, its nearest
// existing ancestor must be. Its error names the path first, as
// OutputFile's does. A command makes the directory (MakeDirs) only once
// its work has started.
func NewOutputDir(path string) error {
	dir := path
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s: %s is not a directory", path, dir)
			}
			if err := writableDir(dir); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("%s: %w", path, err)
		}
		up := filepath.Dir(dir)
		if up == dir {
			return fmt.Errorf("%s: no directory above it exists", path)
		}
		dir = up
	}
}

// MakeDirs makes the directory dir and those missing above it, and
// returns a function that removes the ones it made while they are empty,
// for a command that fails to leave nothing new behind.
func MakeDirs(dir string) (undo func(), err error) {
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, os.ErrNotExist) {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	undo = func() {
		for _, d := range made { // the deepest first
			os.Remove(d)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		undo()
		return nil, fmt.Errorf("%s: cannot create the directory: %w", dir, err)
	}
	return undo, nil
}

// parent is the directory that holds path, as the kernel reads the
// spelling: "d/../x" is in "d/..", not in ".".
func parent(path string) string {
	p := strings.TrimRight(path, string(filepath.Separator))
	if p == "" {
		return string(filepath.Separator)
	}
	if b := filepath.Base(p); b == "." || b == ".." {
		return p + string(filepath.Separator) + ".."
	}
	i := strings.LastIndexByte(p, filepath.Separator)
	switch {
	case i < 0:
		return "."
	case i == 0:
		return string(filepath.Separator)
	}
	return p[:i]
}

// existing returns the paths that in names: in itself when it exists, or
// the matches of the glob in.
func existing(in string) []string {
	if _, err := os.Stat(in); err == nil || !isGlob(in) {
		return []string{in}
	}
	m, _ := filepath.Glob(in)
	return m
}

// isGlob reports whether path holds a glob's special characters.
func isGlob(path string) bool { return strings.ContainsAny(path, "*?[") }

// realPath is path absolute, with every symbolic link resolved.
func realPath(path string) (string, error) {
	r, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(r)
}
