// Command history draws the results history: it reads the records of
// docs/history/*.jsonl (docs/records.md, package chessforge/internal/record)
// and writes docs/history.md (the networks, the tests, the tunes, the
// cycles and the bench figures, each a table), the plots
// docs/history/lineage.svg (the network lineage's Elo) and
// docs/history/training.svg (the embedded network's losses per epoch), and
// the block of README.md between the lines "<!-- begin status -->" and
// "<!-- end status -->": where the engine stands now. `make history` runs
// it; a test in this package fails when the files are stale.
//
// Usage:
//
//	history [-dir docs/history] [-page docs/history.md] [-readme README.md] [-check]
//
// With -check it writes nothing and exits 1, naming each file that is
// stale against the records. A malformed record is an error naming its
// file, its line and the field.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"chessforge/configs"
	"chessforge/internal/atomicfile"
	"chessforge/internal/record"
)

func main() {
	os.Exit(configs.Exit(os.Stderr, "history", run(os.Args[1:], os.Stdout, os.Stderr)))
}

// paths are where history reads and writes.
type paths struct {
	dir, page, readme string
}

func (p paths) lineage() string  { return filepath.Join(p.dir, "lineage.svg") }
func (p paths) training() string { return filepath.Join(p.dir, "training.svg") }

// run parses the command line and writes (or, with -check, checks) the
// generated files.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var p paths
	fs.StringVar(&p.dir, "dir", "docs/history", "the directory of the records (*.jsonl); the plots are written there")
	fs.StringVar(&p.page, "page", "docs/history.md", "the page to write")
	fs.StringVar(&p.readme, "readme", "README.md", "the README whose status block to rewrite")
	check := fs.Bool("check", false, "write nothing; exit 1 naming each file that is stale")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: history [-dir docs/history] [-page docs/history.md] [-readme README.md] [-check]\n\n"+
			"Draws the results history's records as a page, two plots and the README's status block.\n\n")
		fs.PrintDefaults()
	}
	if err := configs.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return configs.Usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	files, err := generate(p)
	if err != nil {
		return err
	}
	if *check {
		var stale []string
		for _, f := range files {
			old, err := os.ReadFile(f.path)
			if err != nil || !bytes.Equal(old, f.data) {
				stale = append(stale, f.path)
			}
		}
		if len(stale) > 0 {
			return fmt.Errorf("stale against the records in %s: %s (run make history)", p.dir, strings.Join(stale, ", "))
		}
		fmt.Fprintf(stdout, "history: %s, %s, %s and %s's status are up to date\n", p.page, p.lineage(), p.training(), p.readme)
		return nil
	}
	for _, f := range files {
		if err := atomicfile.WriteFile(f.path, f.data, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "history: wrote %s, %s, %s and %s's status\n", p.page, p.lineage(), p.training(), p.readme)
	return nil
}

// file is one generated file.
type file struct {
	path string
	data []byte
}

// generate reads the records and the README and returns the files to
// write: the page, the two plots and the README with its status block
// rewritten.
func generate(p paths) ([]file, error) {
	recs, err := record.ReadDir(p.dir)
	if err != nil {
		return nil, err
	}
	h, err := newHistory(recs)
	if err != nil {
		return nil, err
	}
	readme, err := os.ReadFile(p.readme)
	if err != nil {
		return nil, err
	}
	link := func(from, to string) string {
		rel, err := filepath.Rel(filepath.Dir(from), to)
		if err != nil {
			return filepath.ToSlash(to)
		}
		return filepath.ToSlash(rel)
	}
	page := h.page(link(p.page, p.lineage()), link(p.page, p.training()))
	lineage, err := h.lineagePlot()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.lineage(), err)
	}
	training, err := h.trainingPlot()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.training(), err)
	}
	status := h.status(link(p.readme, p.page), link(p.readme, p.lineage()))
	newReadme, err := replaceStatus(readme, status)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.readme, err)
	}
	return []file{{p.page, page}, {p.lineage(), lineage}, {p.training(), training}, {p.readme, newReadme}}, nil
}

// The lines that open and close the README's status block.
const (
	beginStatus = "<!-- begin status -->"
	endStatus   = "<!-- end status -->"
)

// errNoMarkers is the error of a README without its status block.
var errNoMarkers = errors.New("no status block: want a line " + beginStatus + " and after it a line " + endStatus)

// replaceStatus returns readme with the lines between its status markers
// replaced by status.
func replaceStatus(readme, status []byte) ([]byte, error) {
	lines := strings.SplitAfter(string(readme), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		switch strings.TrimRight(l, "\r\n") {
		case beginStatus:
			if begin >= 0 {
				return nil, fmt.Errorf("line %d: a second %s", i+1, beginStatus)
			}
			begin = i
		case endStatus:
			if begin < 0 || end >= 0 {
				return nil, fmt.Errorf("line %d: %s out of place", i+1, endStatus)
			}
			end = i
		}
	}
	if begin < 0 || end < 0 {
		return nil, errNoMarkers
	}
	var b bytes.Buffer
	for _, l := range lines[:begin+1] {
		b.WriteString(l)
	}
	b.Write(status)
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return b.Bytes(), nil
}
