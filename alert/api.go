package alert

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// MetricPutter is what the publisher needs of *cloudwatch.Client.
type MetricPutter interface {
	PutMetricData(ctx context.Context, in *cloudwatch.PutMetricDataInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.PutMetricDataOutput, error)
}

var _ MetricPutter = (*cloudwatch.Client)(nil)

// PutMetricData limits: 1,000 datums and 1 MB per request. The byte budget
// stays under 1 MiB with room for the request envelope, and is counted on
// the uncompressed CBOR body, which bounds the gzipped one.
const (
	maxDatumsPerRequest = 1000
	maxRequestBytes     = 1_000_000
	envelopeBytes       = 512 // map, Namespace (≤ 255 chars) and MetricData headers
)

// Time kept back from the caller's deadline for the EMF fallback, and the
// bound on the API when the caller set no deadline.
const (
	maxFallbackReserve = 500 * time.Millisecond
	defaultAPITimeout  = 30 * time.Second
)

// apiContext bounds the API calls so that, if CloudWatch hangs, there is
// still time before the caller's deadline to write the metrics as EMF: a
// fifth of the time left, at most 500 ms, is held back.
func apiContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithTimeout(ctx, defaultAPITimeout)
	}
	reserve := min(time.Until(deadline)/5, maxFallbackReserve)
	return context.WithDeadline(ctx, deadline.Add(-max(reserve, 0)))
}

// datumBytes bounds the CBOR size of one datum as the SDK encodes it: member
// names, string headers of up to 3 bytes, 9-byte numbers, a tagged
// timestamp, and a margin.
func datumBytes(g *group, v *value) int {
	n := 128 + len(v.name) + len(v.unit)
	for _, d := range g.dims {
		n += 32 + len(d.name) + len(d.value)
	}
	return n
}

// at addresses one value of one group.
type at struct{ group, value int }

// batches splits the values of groups into PutMetricData requests within the
// limits, in order. Each batch is a half-open range of the flattened values.
// Groups outside CloudWatch's time range are left out.
func batches(groups []group) (flat []at, bounds [][2]int) {
	start, size := 0, envelopeBytes
	for gi := range groups {
		if groups[gi].outside {
			continue
		}
		for vi := range groups[gi].values {
			n := datumBytes(&groups[gi], &groups[gi].values[vi])
			if len(flat)-start == maxDatumsPerRequest || (len(flat) > start && size+n > maxRequestBytes) {
				bounds = append(bounds, [2]int{start, len(flat)})
				start, size = len(flat), envelopeBytes
			}
			flat = append(flat, at{gi, vi})
			size += n
		}
	}
	if len(flat) > start {
		bounds = append(bounds, [2]int{start, len(flat)})
	}
	return flat, bounds
}

func (p *Publisher) datum(g *group, v *value) types.MetricDatum {
	dims := make([]types.Dimension, len(g.dims))
	for i, d := range g.dims {
		dims[i] = types.Dimension{Name: aws.String(d.name), Value: aws.String(d.value)}
	}
	return types.MetricDatum{
		MetricName:        aws.String(v.name),
		Dimensions:        dims,
		Timestamp:         aws.Time(g.timestamp),
		Unit:              types.StandardUnit(v.unit),
		Value:             aws.Float64(v.v),
		StorageResolution: aws.Int32(int32(p.cfg.StorageResolution)),
	}
}

// putAPI sends the groups' values in as few requests as the limits allow.
// The client's retryer retries each request; once one still fails, or the
// time runs out, putAPI stops and returns the values not sent, regrouped.
func (p *Publisher) putAPI(ctx context.Context, groups []group, res *Result) []group {
	for _, g := range groups {
		if g.outside {
			res.OutsideTimeRange += len(g.values)
		}
	}
	flat, bounds := batches(groups)
	if len(flat) == 0 {
		return nil
	}
	ctx, cancel := apiContext(ctx)
	defer cancel()
	for _, b := range bounds {
		if err := ctx.Err(); err != nil {
			res.APIError = err
			return regroup(groups, flat[b[0]:])
		}
		data := make([]types.MetricDatum, 0, b[1]-b[0])
		for _, a := range flat[b[0]:b[1]] {
			data = append(data, p.datum(&groups[a.group], &groups[a.group].values[a.value]))
		}
		res.Requests++
		_, err := p.api.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{
			Namespace:  aws.String(p.cfg.Namespace),
			MetricData: data,
		})
		if err != nil {
			res.APIError = err
			return regroup(groups, flat[b[0]:])
		}
		res.MetricsSent += len(data)
	}
	return nil
}

// regroup rebuilds groups from a run of flattened values, so that the unsent
// ones can go out as EMF lines with their own dimensions and timestamps.
func regroup(groups []group, rest []at) []group {
	var out []group
	for i, a := range rest {
		if i == 0 || a.group != rest[i-1].group {
			g := groups[a.group]
			out = append(out, group{timestamp: g.timestamp, dims: g.dims})
		}
		last := &out[len(out)-1]
		last.values = append(last.values, groups[a.group].values[a.value])
	}
	return out
}
