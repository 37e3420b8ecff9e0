package jobs

import "testing"

func TestShardParsingAndGameNumbers(t *testing.T) {
	for _, bad := range []string{"0/4", "5/4", "3", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	s, err := ParseShard("2/3")
	if err != nil || s != (Shard{2, 3}) {
		t.Fatalf("ParseShard(2/3) = %v, %v", s, err)
	}
	// 10 games over 3 shards: 1/3 plays 0,3,6,9; 2/3 plays 1,4,7; 3/3 plays 2,5,8.
	seen := map[int]int{}
	for k := 1; k <= 3; k++ {
		sh := Shard{k, 3}
		for i := range sh.Games(10) {
			seen[sh.Game(i)]++
		}
	}
	if len(seen) != 10 {
		t.Fatalf("shards cover %d of 10 games", len(seen))
	}
	for g, n := range seen {
		if g < 0 || g >= 10 || n != 1 {
			t.Fatalf("game %d played %d times", g, n)
		}
	}
}

func TestParseGamesReadsFromTo(t *testing.T) {
	for _, c := range []struct {
		text     string
		from, to int
		ok       bool
	}{
		{"0-0", 0, 0, true},
		{"3-17", 3, 17, true},
		{"3", 0, 0, false},
		{"5-4", 0, 0, false},
		{"-1-4", 0, 0, false},
		{"a-b", 0, 0, false},
	} {
		from, to, err := ParseGames(c.text)
		if (err == nil) != c.ok || from != c.from || to != c.to {
			t.Errorf("ParseGames(%q) = %d, %d, %v; want %d, %d, ok %v", c.text, from, to, err, c.from, c.to, c.ok)
		}
	}
}
