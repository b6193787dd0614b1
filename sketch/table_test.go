package sketch

import (
	"fmt"
	"testing"
)

// TestIndexTagCollision: the index keeps only the low 32 bits of a key's
// hash, so two keys can share a tag (and a home bucket). They must still
// be told apart: each found as itself, with its own count, also after the
// other is evicted and comes back.
func TestIndexTagCollision(t *testing.T) {
	// Two keys whose hashes agree in their low 32 bits: a birthday search.
	seen := map[uint32]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		k := fmt.Sprintf("key-%d", i)
		h := Hash([]byte(k))
		if o, ok := seen[uint32(h)]; ok && Hash([]byte(o)) != h {
			a, b = o, k
		}
		seen[uint32(h)] = k
	}
	ha, hb := Hash([]byte(a)), Hash([]byte(b))
	h, _ := NewHeavyHitters(2)
	h.Add([]byte(a), ha, 5, 1, 0)
	if h.find(hb, []byte(b)) >= 0 {
		t.Fatalf("%q found while only %q is tracked", b, a)
	}
	h.Add([]byte(b), hb, 3, 1, 0)
	h.Add([]byte("other"), Hash([]byte("other")), 1, 1, 0) // evicts b (3), takes 4
	h.Add([]byte(b), hb, 7, 1, 0)                          // evicts other (4), takes 11
	for _, want := range []struct {
		key          string
		lower, upper uint64
	}{{a, 5, 5}, {b, 7, 11}} {
		e, ok := h.Lookup([]byte(want.key), Hash([]byte(want.key)))
		if !ok || e.Lower != want.lower || e.Upper != want.upper {
			t.Errorf("Lookup(%q) = %+v, %v; want [%d, %d]", want.key, e, ok, want.lower, want.upper)
		}
	}
	if err := h.invariants(); err != nil {
		t.Error(err)
	}
}
