package clientwatch

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkeys-dev/hotkeys/keyschema"
)

// schemaStore is what the watcher knows of its tables' keys: given in
// Options, or learnt with one DescribeTable per table, off the request
// path. Calls read it without a lock: tables is a snapshot replaced, never
// changed, when a table is learnt, and its schemas are never changed.
type schemaStore struct {
	tables   atomic.Pointer[map[string]*tableSchema]
	mu       sync.Mutex           // for writers
	learning map[string]time.Time // tables being (or last failed being) described
	lookups  sync.WaitGroup
}

// tableSchema is one table's keys.
type tableSchema struct {
	pk      string            // the table's partition key attribute; "" while unknown
	indexes map[string]string // global secondary index -> its partition key attribute
	// described is true once DescribeTable answered: an index it did not
	// list as global is local, and shares the table's partition key.
	described bool
}

func (s *schemaStore) init(pks map[string]string, indexes map[string]map[string]string) error {
	tables := map[string]*tableSchema{}
	s.learning = map[string]time.Time{}
	table := func(t string) *tableSchema {
		if tables[t] == nil {
			tables[t] = &tableSchema{}
		}
		return tables[t]
	}
	for t, pk := range pks {
		if t == "" || pk == "" {
			return fmt.Errorf("partition key %q of table %q: want both", pk, t)
		}
		table(t).pk = pk
	}
	for t, ix := range indexes {
		for name, pk := range ix {
			if t == "" || name == "" || pk == "" {
				return fmt.Errorf("partition key %q of index %q of table %q: want all three", pk, name, t)
			}
			ts := table(t)
			if ts.indexes == nil {
				ts.indexes = map[string]string{}
			}
			ts.indexes[name] = pk
		}
	}
	s.tables.Store(&tables)
	return nil
}

// get returns table's schema, nil when nothing is known of it.
func (s *schemaStore) get(table string) *tableSchema { return (*s.tables.Load())[table] }

// put publishes ts as table's schema, in a new snapshot. Under s.mu.
func (s *schemaStore) put(table string, ts *tableSchema) {
	old := *s.tables.Load()
	tables := maps.Clone(old) // never nil: init stores a made map
	tables[table] = ts
	s.tables.Store(&tables)
}

// partitionKey returns table's partition key attribute, or "" while it is
// unknown; then it starts learning it, once, off the request path.
func (w *Watcher) partitionKey(table string) string {
	if ts := w.schemas.get(table); ts != nil && ts.pk != "" {
		return ts.pk
	}
	w.learn(table)
	return ""
}

// indexKey returns the partition key attribute of index of table, and
// whether the index is global (its own partitions, its own window) or
// local (the table's partitions and key). pk is "" while unknown.
func (w *Watcher) indexKey(table, index string) (pk string, global bool) {
	ts := w.schemas.get(table)
	switch {
	case ts == nil:
	case ts.indexes[index] != "":
		return ts.indexes[index], true
	case ts.described:
		return ts.pk, false
	}
	w.learn(table)
	return "", false
}

// learn starts describing table, unless that is in flight, failed less
// than a minute ago, done, or impossible (no Describe).
func (w *Watcher) learn(table string) {
	if w.describe == nil || table == "" {
		return
	}
	now := w.now()
	s := &w.schemas
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts := s.get(table); ts != nil && ts.described {
		return
	}
	if last, ok := s.learning[table]; ok && (last.IsZero() || now.Sub(last) < time.Minute) {
		return // in flight, or failed less than a minute ago
	}
	s.learning[table] = time.Time{}
	s.lookups.Add(1)
	go w.describeTable(table)
}

func (w *Watcher) describeTable(table string) {
	s := &w.schemas
	defer s.lookups.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	schema, err := keyschema.Lookup(ctx, w.describe, table)
	if err != nil {
		w.describeFailed.Add(1)
		w.log.LogAttrs(ctx, slog.LevelWarn, "clientwatch: DescribeTable failed: the table's calls count as unattributed until it answers (tried again in a minute)",
			slog.String("table", table), slog.Any("error", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.learning[table] = w.now() // try again in a minute
		return
	}
	ts := &tableSchema{pk: schema.PartitionKey, indexes: map[string]string{}, described: true}
	if given := s.get(table); given != nil { // what Options gave wins
		ts.pk = cmp.Or(given.pk, ts.pk)
		maps.Copy(ts.indexes, given.indexes)
	}
	for _, ix := range schema.Indexes {
		if _, given := ts.indexes[ix.Name]; !given {
			ts.indexes[ix.Name] = ix.PartitionKey
		}
	}
	s.put(table, ts)
	delete(s.learning, table)
}

// AwaitSchemas waits until the DescribeTable calls in flight have answered.
func (w *Watcher) AwaitSchemas() { w.schemas.lookups.Wait() }
