package ddb

import "testing"

func BenchmarkNumberSize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NumberSize("-1234.5678E-3"); err != nil {
			b.Fatal(err)
		}
	}
}
