package alert

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/report"
)

// One window of the sample table (12 table values, 3 keys): the work of one
// final tumbling-window invocation.
func BenchmarkPublishEMF(b *testing.B) {
	p, err := newTestPublisher(Config{Namespace: DefaultNamespace, Mode: ModeEMF, Top: 10, StorageResolution: 60}, nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	reports := []report.Report{sampleReport("Orders", recentStart())}
	b.ReportAllocs()
	for b.Loop() {
		p.Publish(context.Background(), reports)
	}
}

// The same window through the real client to a loopback fake: SigV4,
// CBOR, gzip and one HTTP round trip.
func BenchmarkPublishAPI(b *testing.B) {
	srv := newServer()
	defer srv.Close()
	p, err := newTestPublisher(DefaultConfig(), srv.Client(), io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	reports := []report.Report{sampleReport("Orders", recentStart())}
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := p.Publish(context.Background(), reports); res.APIError != nil {
			b.Fatal(res.APIError)
		}
	}
}

// One client-side window (package clientwatch): 10 table values and the
// flagged keys', as its Run publishes each closed window.
func BenchmarkPublishClientEMF(b *testing.B) {
	p, err := newTestPublisher(Config{Namespace: DefaultNamespace, Mode: ModeEMF, Top: 10, StorageResolution: 60}, nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	reports := []report.ClientReport{clientReport(b, recentStart())}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.PublishClient(context.Background(), reports); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDimensionValue(b *testing.B) {
	for _, bc := range []struct{ name, key string }{
		{"printable", "USER#6f1c2a4e-5b7d-4c3e-9a8b-0d1e2f3a4b5c"},
		{"utf8", "utilisateur#café-crème-42"},
		{"long", strings.Repeat("k", 2048)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				DimensionValue(bc.key)
			}
		})
	}
}

// The same window with three of the table's global secondary indexes, each
// with its own window (9 values and 3 keys each): what indexes add to one
// final invocation.
func BenchmarkPublishEMFIndexes(b *testing.B) {
	p, err := newTestPublisher(Config{Namespace: DefaultNamespace, Mode: ModeEMF, Top: 10, StorageResolution: 60}, nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	reports := []report.Report{sampleReport("Orders", recentStart())}
	for _, name := range []string{"GSI1", "GSI2", "GSI3"} {
		r := sampleReport("Orders", recentStart())
		r.Index = name
		reports = append(reports, r)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Publish(context.Background(), reports); err != nil {
			b.Fatal(err)
		}
	}
}
