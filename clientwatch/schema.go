package clientwatch

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hotkeys-dev/hotkeys/keyschema"
)

// schemaStore is what the watcher knows of its tables' keys: given in
// Options, or learnt with one DescribeTable per table, off the request
// path.
type schemaStore struct {
	mu       sync.RWMutex
	tables   map[string]*tableSchema
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
	s.tables, s.learning = map[string]*tableSchema{}, map[string]time.Time{}
	for t, pk := range pks {
		if t == "" || pk == "" {
			return fmt.Errorf("partition key %q of table %q: want both", pk, t)
		}
		s.table(t).pk = pk
	}
	for t, ix := range indexes {
		for name, pk := range ix {
			if t == "" || name == "" || pk == "" {
				return fmt.Errorf("partition key %q of index %q of table %q: want all three", pk, name, t)
			}
			ts := s.table(t)
			if ts.indexes == nil {
				ts.indexes = map[string]string{}
			}
			ts.indexes[name] = pk
		}
	}
	return nil
}

func (s *schemaStore) table(t string) *tableSchema {
	ts := s.tables[t]
	if ts == nil {
		ts = &tableSchema{}
		s.tables[t] = ts
	}
	return ts
}

// partitionKey returns table's partition key attribute, or "" while it is
// unknown; then it starts learning it, once, off the request path.
func (w *Watcher) partitionKey(table string) string {
	w.schemas.mu.RLock()
	ts := w.schemas.tables[table]
	w.schemas.mu.RUnlock()
	if ts != nil && ts.pk != "" {
		return ts.pk
	}
	w.learn(table)
	return ""
}

// indexKey returns the partition key attribute of index of table, and
// whether the index is global (its own partitions, its own window) or
// local (the table's partitions and key). pk is "" while unknown.
func (w *Watcher) indexKey(table, index string) (pk string, global bool) {
	w.schemas.mu.RLock()
	ts := w.schemas.tables[table]
	var described bool
	var tablePK string
	if ts != nil {
		pk, global = ts.indexes[index], true
		described, tablePK = ts.described, ts.pk
	}
	w.schemas.mu.RUnlock()
	switch {
	case pk != "":
		return pk, true
	case described:
		return tablePK, false
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
	if ts := s.tables[table]; ts != nil && ts.described {
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
		w.log.LogAttrs(ctx, slog.LevelWarn, "clientwatch: DescribeTable failed: the table's calls count as unattributed until it answers (tried again in a minute)",
			slog.String("table", table), slog.Any("error", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.learning[table] = w.now() // try again in a minute
		return
	}
	ts := s.table(table)
	if ts.pk == "" {
		ts.pk = schema.PartitionKey
	}
	if ts.indexes == nil {
		ts.indexes = map[string]string{}
	}
	for _, ix := range schema.Indexes {
		if _, given := ts.indexes[ix.Name]; !given {
			ts.indexes[ix.Name] = ix.PartitionKey
		}
	}
	ts.described = true
	delete(s.learning, table)
}

// AwaitSchemas waits until the DescribeTable calls in flight have answered.
func (w *Watcher) AwaitSchemas() { w.schemas.lookups.Wait() }
