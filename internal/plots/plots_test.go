package plots

import "testing"

func TestWholeTicksLabelWholeNumbers(t *testing.T) {
	ticks := WholeTicks(-250, 250)
	labels := 0
	for _, tk := range ticks {
		if tk.Label == "" {
			continue
		}
		labels++
		for _, c := range tk.Label {
			if c == '.' {
				t.Errorf("tick %v labelled %q: want a whole number", tk.Value, tk.Label)
			}
		}
	}
	if labels < 2 {
		t.Fatalf("%d labelled ticks over [-250, 250], want at least 2: %v", labels, ticks)
	}
}
