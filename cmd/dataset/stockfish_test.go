package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestExportImportStockfishRoundTrip runs the README's commands: export to
// .binpack and .plain, import each back, export the import again; the files
// come back byte for byte.
func TestExportImportStockfishRoundTrip(t *testing.T) {
	dir, rows := twoShards(t)
	tmp := t.TempDir()
	for _, format := range []string{"plain", "binpack"} {
		file := filepath.Join(tmp, "a."+format)
		code, out, errw := runCmd("export", "-format", format, dir, "-out", file, "-quiet")
		if code != 0 {
			t.Fatalf("export %s: exit %d: %s", format, code, errw)
		}
		want := "export: " + strconv.FormatInt(rows, 10) + " rows to " + file + " ("
		if !strings.HasPrefix(lastLine(out), want) || !strings.Contains(out, "bytes per position") {
			t.Errorf("export %s: last line %q, want it to start %q and give bytes per position", format, lastLine(out), want)
		}
		imported := filepath.Join(tmp, format+".parquet")
		code, out, errw = runCmd("import", file, "-out", imported) // the format from the extension
		if code != 0 {
			t.Fatalf("import %s: exit %d: %s", format, code, errw)
		}
		if m := regexp.MustCompile(`^import: (\d+) rows in 6 games from `).FindStringSubmatch(lastLine(out)); m == nil || m[1] != strconv.FormatInt(rows, 10) {
			t.Errorf("import %s: last line %q, want %d rows in 6 games", format, lastLine(out), rows)
		}
		again := filepath.Join(tmp, "b."+format)
		if code, _, errw := runCmd("export", "-format", format, imported, "-out", again, "-quiet"); code != 0 {
			t.Fatalf("export of the import: exit %d: %s", code, errw)
		}
		a, _ := os.ReadFile(file)
		b, _ := os.ReadFile(again)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: export, import, export: the files differ (%d and %d bytes)", format, len(a), len(b))
		}
		if code, out, _ := runCmd("verify", "-quiet", imported); code != 0 || !strings.HasSuffix(lastLine(out), " 0 mismatches") {
			t.Errorf("verify of the %s import: exit %d, %q", format, code, lastLine(out))
		}
	}
}

func TestImportNamesTheFileAndOffsetOfATruncatedBinpack(t *testing.T) {
	dir, _ := twoShards(t)
	file := filepath.Join(t.TempDir(), "a.binpack")
	if code, _, errw := runCmd("export", "-format", "binpack", dir, "-out", file, "-quiet"); code != 0 {
		t.Fatalf("export: %s", errw)
	}
	data, _ := os.ReadFile(file)
	cut := filepath.Join(t.TempDir(), "cut.binpack")
	os.WriteFile(cut, data[:len(data)-3], 0o644)
	code, _, errw := runCmd("import", cut, "-out", filepath.Join(t.TempDir(), "x.parquet"), "-quiet")
	if code != 1 || !strings.Contains(errw, cut+": offset 0: truncated chunk") {
		t.Errorf("exit %d, stderr %q: want 1 and the file, offset and fault named", code, errw)
	}
	code, _, errw = runCmd("import", "-quiet", file, "-out", "x.parquet", "-format", "epd")
	if code != 2 || !strings.Contains(errw, `-format "epd": want plain, binpack or pgn`) {
		t.Errorf("-format epd: exit %d, %q; want a usage error", code, errw)
	}
	code, _, errw = runCmd("import", "-quiet", filepath.Join(t.TempDir(), "games.txt"), "-out", "x.parquet")
	if code != 2 || !strings.Contains(errw, "-format is required") {
		t.Errorf("unknown extension: exit %d, %q; want a usage error", code, errw)
	}
}
