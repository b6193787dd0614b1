package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
)

// maxMalformedNotes caps the per-record warnings on stderr; the count in
// the report is always complete.
const maxMalformedNotes = 10

// pipeline is the path every command shares: raw Lambda-event JSON, through
// the record decoder, into the detector, out as reports. The Lambda has the
// same path with its own output.
type pipeline struct {
	dec    *record.Decoder
	det    *detector.Detector
	out    reportWriter
	stderr io.Writer
	now    func() time.Time

	malformed uint64
	lastTable string
	lastTime  time.Time
	err       error // first error of a callback
}

func newPipeline(o *options, out reportWriter, stderr io.Writer, now func() time.Time) (*pipeline, error) {
	dec, err := record.NewDecoder(record.Config{PartitionKey: o.partitionKey})
	if err != nil {
		return nil, usageError{err}
	}
	det, err := detector.New(o.cfg)
	if err != nil {
		return nil, usageError{flagError(err)}
	}
	if o.heatmap != "" {
		out = newHeatmapWriter(out, o.heatmap, o.cfg, now)
	}
	return &pipeline{dec: dec, det: det, out: out, stderr: stderr, now: now}, nil
}

// feed analyses one payload. shard, when not empty, is the stream shard the
// records came from (watch knows it; a plain Lambda batch does not say).
// Reports of the windows that record time has moved past are written out.
func (p *pipeline) feed(name string, payload []byte, shard string) error {
	err := p.dec.Decode(payload, record.Visitor{
		Record: func(r *record.Record) {
			if shard != "" {
				r.Shard = shard
			}
			if r.Time.IsZero() {
				// No ApproximateCreationDateTime: the best we know is the
				// previous record's time, or now.
				r.Time = p.lastTime
				if r.Time.IsZero() {
					r.Time = p.now()
				}
			}
			p.lastTime, p.lastTable = r.Time, r.Table
			if err := p.det.Add(r); err != nil && p.err == nil {
				p.err = err
			}
		},
		Malformed: func(m *record.Malformed) {
			p.malformed++
			table := m.Table
			if table == "" {
				table = p.lastTable
			}
			p.det.AddMalformed(table)
			if p.malformed <= maxMalformedNotes {
				fmt.Fprintf(p.stderr, "hotkeys: %s: skipped malformed record at byte %d (eventID %q): %v\n", name, m.Offset, m.EventID, m.Err)
			} else if p.malformed == maxMalformedNotes+1 {
				fmt.Fprintf(p.stderr, "hotkeys: %s: more malformed records; the reports count them all\n", name)
			}
		},
	})
	var amb *record.AmbiguousKeyError
	if errors.As(err, &amb) {
		return usageError{err}
	}
	if err != nil {
		return inputError{fmt.Sprintf("%s: %v", name, err)}
	}
	if p.err != nil {
		return p.err
	}
	return p.out.Write(p.det.Flush())
}

// finish reports every window still open.
func (p *pipeline) finish() error {
	if err := p.out.Write(p.det.FlushAll()); err != nil {
		return err
	}
	return p.out.Close()
}
