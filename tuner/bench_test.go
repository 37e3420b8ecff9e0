package tuner

import (
	"testing"

	"chessforge/engine/eval"
)

// BenchmarkValueGrad measures one full-batch error and gradient over the
// test positions; ns/position is the figure that scales to a million.
func BenchmarkValueGrad(b *testing.B) {
	s, _, _, err := Load(testEPD, LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	o := NewObjective(s, 1, 0)
	w := eval.Weights()
	g := make([]float64, eval.NumParams)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.ValueGrad(w, g)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.Len()), "ns/position")
}

// BenchmarkLoad measures reading, resolving and tracing the test positions.
func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s, _, _, err := Load(testEPD, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(s.Bytes())/float64(s.Len()), "bytes/position")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/3004, "ns/position")
}
