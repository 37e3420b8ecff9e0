package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/pgnimport"
)

// games is a PGN file as cutechess-cli writes one: a good game with book
// moves, a game with an illegal move, an unfinished one, a good one.
const games = `[Event "?"]
[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 {book} e5 {book} 2. Bc4 {+0.25/12 0.51s} Nc6 {-0.31/11 0.48s} 3. Qh5
{+0.40/13 0.62s} Nf6 {-M2/10 0.30s} 4. Qxf7# {+M1/1 0.002s, White mates} 1-0

[Event "?"]
[Result "0-1"]

1. d4 {+0.20/10 0.1s} d5 {-0.18/10 0.1s} 2. Kd3 {+0.10/9 0.1s} 0-1

[Event "?"]
[Result "*"]

1. c4 {+0.20/10 0.1s} *

[Event "?"]
[Result "1/2-1/2"]

1. Nf3 {+0.10/10 0.1s} Nf6 {-0.10/10 0.1s, Draw by adjudication} 1/2-1/2
`

// TestImportPGN: the format comes from the extension (or -format pgn);
// each malformed game is named on stderr and the rest are imported; the
// summary line counts both; the rows verify and the metadata names the
// source.
func TestImportPGN(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "games.pgn")
	os.WriteFile(src, []byte(games), 0o644)
	out := filepath.Join(dir, "ds.parquet")
	code, stdout, errw := runCmd("import", "-quiet", src, "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errw)
	}
	wantErr := "import: skipped game 2 (" + src + ":9): line 12: move 3 (Kd3): "
	if lines := strings.Split(strings.TrimSpace(errw), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], wantErr) ||
		lines[1] != "import: skipped game 3 ("+src+":14): result * (an unfinished game)" {
		t.Errorf("stderr %q, want the two games skipped, the first starting %q", errw, wantErr)
	}
	want := `^import: 7 rows in 2 games from ` + regexp.QuoteMeta(src) + ` to ` + regexp.QuoteMeta(out) +
		` \(2 games skipped, 0 without a score\), [0-9.]+ s, [0-9]+ positions/s$`
	if !regexp.MustCompile(want).MatchString(lastLine(stdout)) {
		t.Errorf("last line %q, want it to match %s", lastLine(stdout), want)
	}
	if code, out, _ := runCmd("verify", "-quiet", out); code != 0 || lastLine(out) != "verify: 7 rows, 0 mismatches" {
		t.Errorf("verify: exit %d, %q", code, lastLine(out))
	}
	infos, err := datasets.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	md := infos[0].Metadata
	if md[pgnimport.KeyFormat] != "pgn" || md[pgnimport.KeySource] != src || md[pgnimport.KeyGames] != "2" || md[pgnimport.KeySkipped] != "2" {
		t.Errorf("metadata %v: want the format, the source and the games counted", md)
	}

	// -format pgn for a file of another name.
	txt := filepath.Join(dir, "games.txt")
	os.WriteFile(txt, []byte(games), 0o644)
	if code, stdout, errw := runCmd("import", "-quiet", "-format", "pgn", txt, "-out", filepath.Join(dir, "txt.parquet")); code != 0 ||
		!strings.HasPrefix(lastLine(stdout), "import: 7 rows in 2 games") {
		t.Errorf("-format pgn: exit %d, %q, %s", code, lastLine(stdout), errw)
	}
}

// TestImportPGNRefusesItsInputAsOutputAndKeepsTheOutputOnFailure: -out
// may not be the PGN (exit 2, the file as it was); a PGN with nothing to
// import fails (exit 1) and leaves an earlier output as it was.
func TestImportPGNRefusesItsInputAsOutputAndKeepsTheOutputOnFailure(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "games.pgn")
	os.WriteFile(src, []byte(games), 0o644)
	before := snapshot(t, dir)
	for _, o := range []string{src, filepath.Join(dir, ".", "games.pgn")} {
		code, _, errw := runCmd("import", "-quiet", src, "-out", o)
		if code != 2 || !strings.Contains(errw, "choose another output") {
			t.Errorf("-out %s: exit %d, %q; want 2 and the refusal", o, code, errw)
		}
	}
	if d := sameFiles(before, snapshot(t, dir)); d != "" {
		t.Errorf("after the refusals: %s", d)
	}

	out := filepath.Join(dir, "ds.parquet")
	if code, _, errw := runCmd("import", "-quiet", src, "-out", out); code != 0 {
		t.Fatalf("import: %s", errw)
	}
	none := filepath.Join(dir, "none.pgn")
	os.WriteFile(none, []byte("[Result \"1-0\"]\n1. e4 {book} e5 1-0\n\n1. d4 Kd7 *\n"), 0o644)
	before = snapshot(t, dir)
	code, _, errw := runCmd("import", "-quiet", none, "-out", out)
	if code != 1 || !strings.Contains(errw, none+": no game to import (2 games read: 1 skipped, 1 without a scored move)") ||
		!strings.Contains(errw, "import: skipped game 2 ("+none+":4): line 4: move 2 (Kd7)") {
		t.Errorf("nothing to import: exit %d, %q", code, errw)
	}
	if d := sameFiles(before, snapshot(t, dir)); d != "" {
		t.Errorf("after the failed import: %s", d)
	}
}
