package jobs

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"chessforge/datasets"
)

// part is the metadata of a file self-play wrote: shard k/n of a job of
// games games, holding the shard's games [from, to).
func part(games, k, n, from, to int) datasets.FileInfo {
	return datasets.FileInfo{
		Path: fmt.Sprintf("job/part-s%03dof%03d-%d.parquet", k, n, from),
		Metadata: map[string]string{
			datasets.KeyConfig: fmt.Sprintf(`{"games":%d,"seed":1,"shards":%d,"engine":"x"}`, games, n),
			KeyShard:           fmt.Sprintf("%d/%d", k, n),
			KeyGames:           fmt.Sprintf("%d-%d", from, to),
		},
	}
}

func TestCoverageNamesMissingShardsAndGames(t *testing.T) {
	// 10 games in 4 shards: shard 1 plays games 0, 4, 8; shard 2 games
	// 1, 5, 9; shard 3 games 2, 6; shard 4 games 3, 7. Shard 2 is missing,
	// shard 1 lacks its middle part, shard 4 was cut short.
	files := []datasets.FileInfo{
		part(10, 1, 4, 0, 1), part(10, 1, 4, 2, 3),
		part(10, 3, 4, 0, 1), part(10, 3, 4, 1, 2),
		part(10, 4, 4, 0, 1),
		{Path: "other.parquet", Metadata: map[string]string{}}, // not self-play's
	}
	jobs, err := Cover(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].Games != 10 || len(jobs[0].Shards) != 4 || jobs[0].Files != 5 {
		t.Fatalf("jobs %+v", jobs)
	}
	var w bytes.Buffer
	jobs[0].Print(&w)
	want := `job:       10 games in 4 shards, 3 of 4 shards present, 5 of 10 games
  shard 1/4: 2 of 3 games (2 files); missing: shard game 1 (job game 4); continue with -shard 1/4 -resume
  missing shard 2/4: its 3 games, job games 1, 5, 9
  shard 3/4: 2 of 2 games, complete (2 files)
  shard 4/4: 1 of 2 games (1 file); missing: shard game 1 (job game 7); continue with -shard 4/4 -resume
`
	if w.String() != want {
		t.Errorf("got\n%s\nwant\n%s", w.String(), want)
	}
}

func TestCoverageOfAnUnshardedJobIsOneLine(t *testing.T) {
	for _, c := range []struct {
		files []datasets.FileInfo
		want  string
	}{
		{[]datasets.FileInfo{part(400, 1, 1, 0, 400)}, "job:       400 of 400 games, complete\n"},
		{[]datasets.FileInfo{part(400, 1, 1, 0, 100), part(400, 1, 1, 100, 250)}, "job:       250 of 400 games; missing job games 250-399; continue with -resume\n"},
	} {
		jobs, err := Cover(c.files)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("%v, %d jobs", err, len(jobs))
		}
		var w bytes.Buffer
		jobs[0].Print(&w)
		if w.String() != c.want {
			t.Errorf("got %q, want %q", w.String(), c.want)
		}
	}
}

func TestCoverageRejectsUnreadableMetadata(t *testing.T) {
	bad := part(10, 1, 4, 0, 1)
	bad.Metadata[KeyGames] = "3"
	wrongN := part(10, 1, 4, 0, 1)
	wrongN.Metadata[KeyShard] = "1/3"
	for _, f := range []datasets.FileInfo{bad, wrongN} {
		if _, err := Cover([]datasets.FileInfo{f}); err == nil || !strings.Contains(err.Error(), f.Path) {
			t.Errorf("%v: error %v, want one naming the file", f.Metadata, err)
		}
	}
	// A split or a merge keeps its sources' shard key, but its record is
	// its own: it is no job's file.
	split := part(10, 1, 1, 0, 10)
	split.Metadata[datasets.KeyConfig] = `{"reshard":{"op":"split"},"sources":[]}`
	if jobs, err := Cover([]datasets.FileInfo{split}); err != nil || len(jobs) != 0 {
		t.Errorf("a split's file: %v, %d jobs", err, len(jobs))
	}
	// Two jobs in one directory are reported apart.
	jobs, err := Cover([]datasets.FileInfo{part(10, 1, 2, 0, 5), part(20, 1, 1, 0, 20)})
	if err != nil || len(jobs) != 2 {
		t.Errorf("two jobs: %v, %d", err, len(jobs))
	}
}
