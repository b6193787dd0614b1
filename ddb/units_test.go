package ddb

import "testing"

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		size        int
		write, read uint64
	}{
		{-1, 1, 1}, // nothing known: still one unit
		{0, 1, 1},
		{1, 1, 1},
		{1023, 1, 1},
		{1024, 1, 1},
		{1025, 2, 1},
		{2048, 2, 1},
		{2049, 3, 1},
		{4096, 4, 1},
		{4097, 5, 2},
		{8192, 8, 2},
		{8193, 9, 3},
		{400 * 1024, 400, 100}, // DynamoDB's largest item
	} {
		if got := WriteUnits(c.size); got != c.write {
			t.Errorf("WriteUnits(%d) = %d, want %d", c.size, got, c.write)
		}
		if got := ReadUnits(c.size); got != c.read {
			t.Errorf("ReadUnits(%d) = %d, want %d", c.size, got, c.read)
		}
	}
}

func TestItemWriteUnits(t *testing.T) {
	cases := []struct {
		name          string
		kind          WriteKind
		newS, oldS, k int
		wcu           uint64
		exact         bool
	}{
		{"insert small", Created, 100, -1, 10, 1, true},
		{"insert 1 KB", Created, 1024, -1, 10, 1, true},
		{"insert 1 KB + 1", Created, 1025, -1, 10, 2, true},
		{"insert empty", Created, 0, -1, 0, 1, true},
		{"insert 400 KB", Created, 400 * 1024, -1, 10, 400, true},
		{"modify grows", Updated, 3000, 1000, 10, 3, true},
		{"modify shrinks", Updated, 1000, 3000, 10, 3, true},
		{"remove", Deleted, -1, 2049, 10, 3, true},
		{"ttl delete", Expired, -1, 5000, 10, 0, true},
		{"ttl delete keys only", Expired, -1, -1, 10, 0, true},
		{"keys only insert", Created, -1, -1, 30, 1, false},
		{"keys only big key", Updated, -1, -1, 2048 + 1024 + 1, 4, false},
		{"modify without old", Updated, 5000, -1, 10, 5, false},
		{"modify without new", Updated, -1, 5000, 10, 5, false},
		{"remove without old", Deleted, 2000, -1, 10, 2, false},
		{"insert without new", Created, -1, 3000, 10, 3, false},
		{"insert with both", Created, 100, 5000, 10, 1, true},
		{"unknown kind", 0, 100, 5000, 10, 5, false},
	}
	for _, c := range cases {
		wcu, exact := ItemWriteUnits(c.kind, c.newS, c.oldS, c.k)
		if wcu != c.wcu || exact != c.exact {
			t.Errorf("%s: ItemWriteUnits = %d, %v; want %d, %v", c.name, wcu, exact, c.wcu, c.exact)
		}
	}
}

func TestContainerSize(t *testing.T) {
	for _, c := range []struct{ n, nested, want int }{
		{0, 0, 3},         // an empty L or M
		{2, 5, 3 + 2 + 5}, // two elements of 5 bytes in all
	} {
		if got := ContainerSize(c.n, c.nested); got != c.want {
			t.Errorf("ContainerSize(%d, %d) = %d, want %d", c.n, c.nested, got, c.want)
		}
	}
}
