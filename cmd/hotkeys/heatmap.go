package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/heatmap"
	"github.com/hotkeys-dev/hotkeys/report"
)

// heatmapRefresh is how often a long run (watch) rewrites its heatmap file,
// so that it can be opened while the run goes on.
const heatmapRefresh = 30 * time.Second

// heatmapWriter passes reports on and collects them into a heatmap, which
// it writes to path when the run ends (and, during a long run, every
// heatmapRefresh of wall time).
type heatmapWriter struct {
	next    streamWriter
	b       *heatmap.Builder
	path    string
	now     func() time.Time
	written time.Time
}

func newHeatmapWriter(next streamWriter, path string, cfg detector.Config, now func() time.Time) *heatmapWriter {
	return &heatmapWriter{next: next, b: heatmap.New(heatmap.Options{PartitionLimit: cfg.PartitionLimit}), path: path, now: now, written: now()}
}

func (h *heatmapWriter) Write(reps []report.Report) error {
	h.b.Add(reps...)
	if err := h.next.Write(reps); err != nil {
		return err
	}
	if len(reps) > 0 && h.now().Sub(h.written) >= heatmapRefresh {
		return h.save()
	}
	return nil
}

func (h *heatmapWriter) WriteOnsets(onsets []report.Onset) error { return h.next.WriteOnsets(onsets) }

func (h *heatmapWriter) Close(warnings []string) error {
	if err := h.next.Close(warnings); err != nil {
		return err
	}
	return h.save()
}

// save writes the page beside its destination, then renames it there, so
// that a reader never sees half a page.
func (h *heatmapWriter) save() error {
	h.written = h.now()
	f, err := os.CreateTemp(filepath.Dir(h.path), ".heatmap-*.html")
	if err != nil {
		return fmt.Errorf("--heatmap: %w", err)
	}
	err = heatmap.WriteHTML(f, h.b.Maps())
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes it private; the page is a report like stdout
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), h.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("--heatmap: writing %s: %w", h.path, err)
	}
	return nil
}
