package record

import (
	"strings"
	"testing"
)

// TestLiteralAt checks the masked-word comparison members uses for its
// guess (and matchField after its switch) against a string comparison:
// every field's literal against every field's text, near misses, and the
// end of the payload; fUnknown's literal matches nothing.
func TestLiteralAt(t *testing.T) {
	var texts []string
	for id := range lits {
		if l := lits[id].s; l != "" {
			name := l[1 : len(l)-2]
			texts = append(texts, l, `"`+name+`x":`, `"`+name+`" :`, `"`+name[:len(name)-1]+`":`, `"x`+name+`":`)
		}
	}
	for id := range lits {
		l := &lits[id]
		for _, text := range texts {
			for _, tail := range []string{`"value that is long enough to fill 32 bytes"`, `1}`, ``} {
				in := []byte(text + tail)
				want := l.s != "" && strings.HasPrefix(string(in), l.s)
				if got := l.at(in, 0); got != want {
					t.Errorf("lits[%d] (%q).at(%q) = %v, want %v", id, l.s, in, got, want)
				}
			}
		}
	}
}

func TestMatchField(t *testing.T) {
	names := map[int][]string{
		kindRecord: {"eventID", "eventName", "eventVersion", "eventSource", "eventSourceARN", "awsRegion", "dynamodb"},
		kindDynamo: {"Keys", "NewImage", "OldImage", "SequenceNumber", "SizeBytes", "StreamViewType", "ApproximateCreationDateTime"},
	}
	for kind, list := range names {
		for _, name := range list {
			want := fieldID(kind, []byte(name))
			if name == "eventVersion" || name == "eventSource" || name == "awsRegion" {
				want = map[string]int{"eventVersion": fEventVersion, "eventSource": fEventSource, "awsRegion": fAWSRegion}[name]
			}
			if want == fUnknown {
				t.Fatalf("fieldID does not know %q", name)
			}
			for _, tail := range []string{`"value that is long enough"`, `1}`} { // and at the payload's end
				in := []byte(`"` + name + `":` + tail)
				if id, next := matchField(in, 0, kind); id != want || next != len(name)+3 {
					t.Errorf("matchField(%q) = %d, %d; want %d, %d", in, id, next, want, len(name)+3)
				}
				for _, near := range []string{`"` + name + `x":`, `"` + name + `" :`, `"` + name[:len(name)-1] + `":`, `"x` + name + `":`} {
					in := []byte(near + tail)
					if id, _ := matchField(in, 0, kind); id != fUnknown {
						t.Errorf("matchField(%q) = %d, want fUnknown", in, id)
					}
				}
			}
			in := []byte(`"` + name + `":"value that is long enough"`)
			// Names of one kind of object are not fields of another.
			other := kindDynamo
			if kind == kindDynamo {
				other = kindRecord
			}
			if id, _ := matchField(in, 0, other); id != fUnknown {
				t.Errorf("matchField(%q, other kind) = %d", in, id)
			}
		}
	}
}
