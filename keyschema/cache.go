package keyschema

import (
	"context"
	"sync"
	"time"
)

// Cache looks each table up once and keeps the answer: for the life of the
// process (NewCache), or for at most a given age (NewRefreshingCache), so
// that a table whose indexes change while the process runs (UpdateTable
// adds a global secondary index) is seen again within a bounded time. It is
// safe for concurrent use; concurrent lookups of one table share a single
// DescribeTable call. A first lookup's failure is not kept, so the next
// lookup asks again; a refresh's failure keeps serving the schema it had.
type Cache struct {
	api    DescribeTableAPI
	maxAge time.Duration // 0: never refresh
	now    func() time.Time

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	done    chan struct{} // closed when schema and err are set
	schema  Schema
	err     error
	fetched time.Time // when schema was looked up (or a refresh last failed)
}

// NewCache returns an empty cache that asks api, and never asks again for
// a table it has the schema of.
func NewCache(api DescribeTableAPI) *Cache {
	return &Cache{api: api, now: time.Now, entries: make(map[string]*cacheEntry)}
}

// NewRefreshingCache returns an empty cache that asks api again for a
// table whose schema is maxAge old or older: a change of key schema or
// indexes is seen at most maxAge after it is made (plus one lookup). now
// is the clock (time.Now in production).
func NewRefreshingCache(api DescribeTableAPI, maxAge time.Duration, now func() time.Time) *Cache {
	return &Cache{api: api, maxAge: maxAge, now: now, entries: make(map[string]*cacheEntry)}
}

// Lookup returns table's schema, calling DescribeTable only the first time
// (and, for a refreshing cache, when the schema it has is too old). A
// caller whose ctx ends while another caller's lookup is in flight gets
// ctx's error.
func (c *Cache) Lookup(ctx context.Context, table string) (Schema, error) {
	c.mu.Lock()
	e, ok := c.entries[table]
	var stale *cacheEntry
	if ok && c.maxAge > 0 && isDone(e) && e.err == nil && c.now().Sub(e.fetched) >= c.maxAge {
		stale, ok = e, false
	}
	if !ok {
		e = &cacheEntry{done: make(chan struct{})}
		c.entries[table] = e
	}
	c.mu.Unlock()
	if ok {
		select {
		case <-e.done:
			return e.schema, e.err
		case <-ctx.Done():
			return Schema{}, ctx.Err()
		}
	}
	e.schema, e.err = Lookup(ctx, c.api, table)
	e.fetched = c.now()
	if e.err != nil {
		c.mu.Lock()
		if stale != nil {
			// Keep what we had, and try again in another maxAge: a
			// throttled or failing DescribeTable must not stop analysis.
			e.schema, e.err = stale.schema, nil
		} else {
			delete(c.entries, table)
		}
		c.mu.Unlock()
	}
	close(e.done)
	return e.schema, e.err
}

func isDone(e *cacheEntry) bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}
