package fakecloudwatch

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/encoding/cbor"
)

func datum(name string, v float64, ts time.Time, dims ...string) types.MetricDatum {
	d := types.MetricDatum{MetricName: aws.String(name), Value: aws.Float64(v), Timestamp: aws.Time(ts), Unit: types.StandardUnitCount}
	for i := 0; i+1 < len(dims); i += 2 {
		d.Dimensions = append(d.Dimensions, types.Dimension{Name: aws.String(dims[i]), Value: aws.String(dims[i+1])})
	}
	return d
}

// now is the tests' clock: CloudWatch's time range is checked against it,
// so that no test depends on when it runs.
var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newServer starts a server whose clock stands at now.
func newServer() *Server {
	s := New()
	s.SetClock(func() time.Time { return now })
	return s
}

func TestRoundTripRealClient(t *testing.T) {
	s := newServer()
	defer s.Close()
	ts := now.Add(-time.Minute)
	in := &cloudwatch.PutMetricDataInput{
		Namespace: aws.String("HotKeyDetector"),
		MetricData: []types.MetricDatum{
			datum("WriteCapacityUnits", 23456, ts, "TableName", "Orders"),
			{
				MetricName: aws.String("Latency"), Values: []float64{1.5, 2.25}, Counts: []float64{3, 4},
				Unit: types.StandardUnitMilliseconds, StorageResolution: aws.Int32(1), Timestamp: aws.Time(ts),
				Dimensions: []types.Dimension{{Name: aws.String("TableName"), Value: aws.String("Orders")}, {Name: aws.String("PartitionKey"), Value: aws.String("b64:AAE")}},
			},
		},
	}
	for _, tc := range []struct {
		name     string
		minBytes int64
		encoding string
	}{
		{"bare client gzips every body", 0, "gzip"},
		{"default config leaves small bodies plain", 10240, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.Reset()
			c := s.Client(func(o *cloudwatch.Options) { o.RequestMinCompressSizeBytes = tc.minBytes })
			if _, err := c.PutMetricData(context.Background(), in); err != nil {
				t.Fatalf("PutMetricData: %v (rejected: %v)", err, s.Rejected())
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.ContentEncoding != tc.encoding {
				t.Errorf("Content-Encoding %q, want %q", r.ContentEncoding, tc.encoding)
			}
			if r.Namespace != "HotKeyDetector" || len(r.Data) != 2 {
				t.Fatalf("namespace %q with %d data", r.Namespace, len(r.Data))
			}
			d0, d1 := r.Data[0], r.Data[1]
			if d0.MetricName != "WriteCapacityUnits" || !d0.HasValue || d0.Value != 23456 || d0.Unit != "Count" ||
				!d0.Timestamp.Equal(ts) || d0.Dimension("TableName") != "Orders" || d0.StorageResolution != 0 {
				t.Errorf("datum 0 arrived as %+v", d0)
			}
			if d1.HasValue || len(d1.Values) != 2 || d1.Values[1] != 2.25 || d1.Counts[0] != 3 || d1.Unit != "Milliseconds" ||
				d1.StorageResolution != 1 || d1.Dimension("PartitionKey") != "b64:AAE" || d1.Namespace != "HotKeyDetector" {
				t.Errorf("datum 1 arrived as %+v", d1)
			}
		})
	}
}

func TestRejectsWhatCloudWatchRejects(t *testing.T) {
	s := newServer()
	defer s.Close()
	c := s.Client()
	many := make([]types.MetricDatum, 1001)
	for i := range many {
		many[i] = datum("M", float64(i), now)
	}
	for _, tc := range []struct {
		name string
		ns   string
		data []types.MetricDatum
		want string
	}{
		{"NaN", "N", []types.MetricDatum{datum("M", math.NaN(), now)}, "not accepted"},
		{"infinity", "N", []types.MetricDatum{datum("M", math.Inf(-1), now)}, "not accepted"},
		{"non-ASCII dimension", "N", []types.MetricDatum{datum("M", 1, now, "PartitionKey", "café")}, "not printable ASCII"},
		{"blank dimension", "N", []types.MetricDatum{datum("M", 1, now, "PartitionKey", "   ")}, "whitespace"},
		{"long dimension", "N", []types.MetricDatum{datum("M", 1, now, "PartitionKey", strings.Repeat("k", 1025))}, "length 1025"},
		{"too many data", "N", many, "1001 items"},
		{"stale timestamp", "N", []types.MetricDatum{datum("M", 1, now.Add(-15*24*time.Hour))}, "two weeks"},
		{"future timestamp", "N", []types.MetricDatum{datum("M", 1, now.Add(3*time.Hour))}, "two hours"},
		{"reserved namespace", "AWS/DynamoDB", []types.MetricDatum{datum("M", 1, now)}, "reserved"},
		{"colon namespace", ":x", []types.MetricDatum{datum("M", 1, now)}, "starts with ':'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.Reset()
			_, err := c.PutMetricData(context.Background(), &cloudwatch.PutMetricDataInput{Namespace: aws.String(tc.ns), MetricData: tc.data})
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) || !strings.HasPrefix(apiErr.ErrorCode(), "InvalidParameterValue") {
				t.Fatalf("err = %v, want an InvalidParameterValue API error", err)
			}
			if got := s.Attempts(); got != 1 {
				t.Errorf("%d attempts: a 400 must not be retried", got)
			}
			rej := s.Rejected()
			if len(rej) != 1 || !strings.Contains(rej[0], tc.want) {
				t.Errorf("rejected %q, want one reason containing %q", rej, tc.want)
			}
			if len(s.Requests()) != 0 {
				t.Errorf("a rejected request was kept")
			}
		})
	}
}

func TestInjectedFailures(t *testing.T) {
	s := newServer()
	defer s.Close()
	c := s.Client(FastRetries(3))
	in := &cloudwatch.PutMetricDataInput{Namespace: aws.String("N"), MetricData: []types.MetricDatum{datum("M", 1, now)}}

	s.FailNext(2, InternalError)
	if _, err := c.PutMetricData(context.Background(), in); err != nil {
		t.Fatalf("two failures then success with 3 attempts: %v", err)
	}
	if s.Attempts() != 3 || len(s.Requests()) != 1 {
		t.Errorf("attempts %d, requests %d; want 3 and 1", s.Attempts(), len(s.Requests()))
	}

	s.Reset()
	s.FailAll(InternalError)
	_, err := c.PutMetricData(context.Background(), in)
	var fault *types.InternalServiceFault
	if !errors.As(err, &fault) {
		t.Fatalf("err = %v, want the modelled InternalServiceFault", err)
	}
	if s.Attempts() != 3 {
		t.Errorf("attempts %d, want 3 (the retryer's maximum)", s.Attempts())
	}

	s.Reset()
	s.FailAfter(1, InternalError)
	if _, err := c.PutMetricData(context.Background(), in); err != nil {
		t.Fatalf("first request after FailAfter(1): %v", err)
	}
	if _, err := c.PutMetricData(context.Background(), in); !errors.As(err, &fault) {
		t.Fatalf("second request after FailAfter(1): err = %v, want the modelled InternalServiceFault", err)
	}

	s.Reset()
	s.FailAll(Failure{Stall: true})
	// A stalled request never ends on its own: whenever the deadline
	// comes, the client must give up with it.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.PutMetricData(ctx, in); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stalled server: err = %v, want the deadline", err)
	}
}

func TestRejectsBadEnvelope(t *testing.T) {
	s := newServer()
	defer s.Close()
	body := cbor.Encode(cbor.Map{"Namespace": cbor.String("N")})
	for _, tc := range []struct {
		name   string
		path   string
		header map[string]string
		status int
	}{
		{"wrong operation", "/service/GraniteServiceVersion20100801/operation/GetMetricData", nil, http.StatusNotFound},
		{"no protocol header", Path, map[string]string{"Smithy-Protocol": ""}, http.StatusBadRequest},
		{"unsigned", Path, map[string]string{"Authorization": ""}, http.StatusForbidden},
		{"bad encoding", Path, map[string]string{"Content-Encoding": "br"}, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, s.URL+tc.path, strings.NewReader(string(body)))
			req.Header.Set("Smithy-Protocol", "rpc-v2-cbor")
			req.Header.Set("Content-Type", "application/cbor")
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20261122/us-east-1/monitoring/aws4_request")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	ts := &cbor.Tag{ID: 1, Value: cbor.Float64(1795346400)}
	f.Add(cbor.Encode(cbor.Map{
		"Namespace": cbor.String("HotKeyDetector"),
		"MetricData": cbor.List{cbor.Map{
			"MetricName": cbor.String("WriteCapacityUnits"), "Value": cbor.Float64(3), "Timestamp": ts,
			"Unit": cbor.String("Count"), "StorageResolution": cbor.Uint(60),
			"Dimensions": cbor.List{cbor.Map{"Name": cbor.String("TableName"), "Value": cbor.String("Orders")}},
		}},
	}))
	f.Add(cbor.Encode(cbor.Map{"MetricData": cbor.List{cbor.Map{"Values": cbor.List{cbor.Uint(1)}, "Counts": cbor.List{cbor.NegInt(2)}}}}))
	f.Add([]byte{0xa0})
	f.Add([]byte{0xbf, 0xff})
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Decode(body)
		if err != nil {
			return
		}
		if r.BodyBytes != len(body) {
			t.Fatalf("BodyBytes %d for %d bytes", r.BodyBytes, len(body))
		}
		_ = r.Validate(now) // a fixed clock, so that a failing input replays
	})
}
