package keyschema

import (
	"context"
	"sync"
)

// Cache looks each table up once and keeps the answer for the life of the
// process (a warm Lambda container, one `watch` run): key schemas never
// change. It is safe for concurrent use; concurrent lookups of one table
// share a single DescribeTable call. Failures are not kept, so the next
// lookup asks again.
type Cache struct {
	api DescribeTableAPI

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	done   chan struct{} // closed when schema and err are set
	schema Schema
	err    error
}

// NewCache returns an empty cache that asks api.
func NewCache(api DescribeTableAPI) *Cache {
	return &Cache{api: api, entries: make(map[string]*cacheEntry)}
}

// Lookup returns table's schema, calling DescribeTable only the first time.
// A caller whose ctx ends while another caller's lookup is in flight gets
// ctx's error.
func (c *Cache) Lookup(ctx context.Context, table string) (Schema, error) {
	c.mu.Lock()
	e, ok := c.entries[table]
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
	if e.err != nil {
		c.mu.Lock()
		delete(c.entries, table)
		c.mu.Unlock()
	}
	close(e.done)
	return e.schema, e.err
}
