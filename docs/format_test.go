// Package docs holds the repository's user documentation; its test checks
// that format.md, the dataset format, agrees with the code that writes
// datasets, so that the page cannot drift from the files silently.
package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/selfplay"
)

// page reads format.md, the file datasets.FormatDoc names (relative to the
// repository root, one directory up).
func page(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(datasets.FormatDoc)))
	if err != nil {
		t.Fatalf("the page datasets.FormatDoc names: %v", err)
	}
	return string(b)
}

// tableRows returns the cells of the Markdown table rows whose first cell is
// first, trimmed.
func tableRows(doc, first string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == first {
			rows = append(rows, cells)
		}
	}
	return rows
}

// arrowType is how the page writes an Arrow type: its name, and for a
// fixed-size list fixed_size_list<element type>[length].
func arrowType(dt arrow.DataType) string {
	if l, ok := dt.(*arrow.FixedSizeListType); ok {
		return fmt.Sprintf("fixed_size_list<%s>[%d]", l.Elem(), l.Len())
	}
	return dt.String()
}

// TestPageListsEveryColumn checks that every column the writer writes has a
// row in a table of the page, with its Arrow type.
func TestPageListsEveryColumn(t *testing.T) {
	doc := page(t)
	for _, f := range datasets.Schema().Fields() {
		rows := tableRows(doc, "`"+f.Name+"`")
		if len(rows) != 1 {
			t.Errorf("column %s: %d table rows on the page, want 1", f.Name, len(rows))
			continue
		}
		if got, want := rows[0][1], arrowType(f.Type); len(rows[0]) < 3 || got != want {
			t.Errorf("column %s: the page says type %q, the writer writes %q", f.Name, got, want)
		}
	}
}

// TestPageListsEveryMetadataKey checks that every metadata key the writer
// and self-play write has a row in the page's metadata table.
func TestPageListsEveryMetadataKey(t *testing.T) {
	doc := page(t)
	keys := append(datasets.WriterKeys(), selfplay.KeyShard, selfplay.KeyGames, selfplay.KeyEval, selfplay.KeyNetwork)
	for _, k := range keys {
		if len(tableRows(doc, "`"+k+"`")) == 0 {
			t.Errorf("metadata key %s has no table row on the page", k)
		}
	}
}

// TestPageVersions checks that the version strings on the page are the ones
// the writer writes: every row of the metadata tables gives the code's
// value, every layout string on the page is a current one, and each
// version's section has its anchor.
func TestPageVersions(t *testing.T) {
	doc := page(t)
	versions := map[string]string{
		datasets.KeySchemaVersion: datasets.SchemaVersion,
		datasets.KeyPlanes:        encoder.PlanesVersion,
		datasets.KeyPolicy:        encoder.PolicyVersion,
		datasets.KeyFormat:        datasets.FormatDoc,
	}
	for k, v := range versions {
		rows := tableRows(doc, "`"+k+"`")
		if len(rows) == 0 {
			t.Errorf("%s: no table row on the page", k)
		}
		for _, r := range rows {
			if len(r) < 2 || !strings.HasPrefix(r[1], "`"+v+"`") {
				t.Errorf("%s: the page says %q, the writer writes %q", k, r[1], v)
			}
		}
	}
	layouts := regexp.MustCompile(`\b\d+x\d+x\d+-v\d+\b`).FindAllString(doc, -1)
	for _, l := range layouts {
		if l != encoder.PlanesVersion && l != encoder.PolicyVersion {
			t.Errorf("the page names layout %s, the code has %s and %s", l, encoder.PlanesVersion, encoder.PolicyVersion)
		}
	}
	for _, v := range []string{encoder.PlanesVersion, encoder.PolicyVersion} {
		if !slices.Contains(layouts, v) {
			t.Errorf("the page never names layout %s", v)
		}
	}
	for _, anchor := range []string{"planes-" + encoder.PlanesVersion, "policy-" + encoder.PolicyVersion, "schema-version-" + datasets.SchemaVersion} {
		if !strings.Contains(doc, `<a id="`+anchor+`"></a>`) {
			t.Errorf("no anchor %s on the page", anchor)
		}
	}
}

// TestPagePolicyExamples checks the page's policy index examples against
// encoder.PolicyIndex.
func TestPagePolicyExamples(t *testing.T) {
	doc := page(t)
	n := 0
	for _, line := range strings.Split(doc, "\n") {
		m := regexp.MustCompile("^\\| `([a-h][1-8])([a-h][1-8])([nbrq]?)` \\| (\\d+) \\| (\\d+) .*\\| (\\d+) \\|$").FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		from, _ := board.ParseSquare(m[1])
		to, _ := board.ParseSquare(m[2])
		mv := board.NewMove(from, to)
		if m[3] != "" {
			mv = board.NewPromotion(from, to, board.PieceType(strings.Index("nbrq", m[3])+int(board.Knight)))
		}
		got, err := encoder.PolicyIndex(mv)
		if err != nil {
			t.Fatal(err)
		}
		fromSq, _ := strconv.Atoi(m[4])
		typ, _ := strconv.Atoi(m[5])
		policy, _ := strconv.Atoi(m[6])
		if got != policy || got%64 != fromSq || got/64 != typ || fromSq != int(from) {
			t.Errorf("%s: the page says from %d type %d policy %d; encoder.PolicyIndex gives %d (from %d, type %d)",
				line, fromSq, typ, policy, got, got%64, got/64)
		}
	}
	if n < 4 {
		t.Errorf("%d policy examples found on the page, want at least 4", n)
	}
}
